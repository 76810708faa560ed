/*
Copyright 2026 The dra-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package explain

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// GangPreemption is what kube-scheduler's pod group preemption
// (DefaultPreemption's PodGroupPostFilter, GenericWorkload) would do, with
// DRAAllocator, for a group whose pods do not fit now: it evicts pods of
// lower priority than the group's, in the domain whose victims cost least
// (DRAAllocator ranks the re-run's placements so, by
// eviction.CompareCost), and gives back, PodDisruptionBudget violators
// first and each part most important first, every pod the group can do
// without.
type GangPreemption struct {
	// Domain is where the group would go ("rack=r2"), "the cluster"
	// without a topology constraint; empty when preemption cannot help,
	// and NotPossible says why.
	Domain      string `json:"domain,omitempty"`
	NotPossible string `json:"notPossible,omitempty"`
	// Victims are the pods evicted, most important first.
	Victims []Victim `json:"victims,omitempty"`
	// Domains counts the domains where some set of evictions makes room.
	Domains int `json:"domains"`
}

// Why a group's preemption cannot help (with notPossibleDisabled,
// notPossibleNever and notPossibleNoPods).
const notPossibleNoRoomForGroup = "no domain would hold the group's pods even with every pod of lower priority evicted"

// gangDomain is where a group's pods may go in a preemption: a domain of
// its topology constraint, or every node (nodes nil).
type gangDomain struct {
	name  string
	nodes map[string]bool
	// keep restricts the allocator to the domain's devices (a device
	// attribute's domain), nil otherwise.
	keep func(*allocator.Allocator) *allocator.Allocator
}

// gangPreemption answers for the group g of pod, whose pods pods are,
// in each of domains.
func (c *Cluster) gangPreemption(ctx context.Context, pod *v1.Pod, g *Gang, pods []allocator.GangPod, domains []gangDomain) (*GangPreemption, error) {
	switch {
	case c.settings.PreemptionDisabled:
		return &GangPreemption{NotPossible: notPossibleDisabled}, nil
	case pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == v1.PreemptNever:
		return &GangPreemption{NotPossible: notPossibleNever}, nil
	case len(c.snap.BoundPods()) == 0:
		return &GangPreemption{NotPossible: notPossibleNoPods}, nil
	}
	out := &GangPreemption{}
	var best *domainPreemption
	for _, d := range domains {
		dp, err := c.preemptIn(ctx, pod, g, pods, d)
		if err != nil {
			return nil, err
		}
		if dp == nil {
			continue
		}
		out.Domains++
		if best == nil || eviction.CompareCost(dp.cost(), best.cost()) < 0 {
			best = dp
		}
	}
	if best == nil {
		out.NotPossible = notPossibleNoRoomForGroup
		return out, nil
	}
	out.Domain = best.domain
	out.Victims = best.victims()
	return out, nil
}

// domainPreemption is the evictions that make room for a group in one
// domain.
type domainPreemption struct {
	domain string
	victimSet
}

// preemptIn evicts every unit of lower priority than the group's with a
// pod on the domain's nodes; if the group then fits there, it gives them
// back (reprieve) as long as the group still fits. nil: no room, or no
// victims needed.
func (c *Cluster) preemptIn(ctx context.Context, pod *v1.Pod, g *Gang, pods []allocator.GangPod, d gangDomain) (*domainPreemption, error) {
	_, priority := c.groups().UnitOf(pod) // the group's
	var inDomain []*v1.Pod
	for _, node := range slices.Sorted(maps.Keys(c.snap.BoundPods())) { // the same answer every time
		if d.nodes == nil || d.nodes[node] {
			inDomain = append(inDomain, c.snap.BoundPods()[node]...)
		}
	}
	lower := c.lowerUnits(inDomain, priority)
	if len(lower) == 0 {
		return nil, nil
	}
	evicted := map[types.UID]*v1.Pod{}
	for _, u := range lower {
		for _, p := range u.Pods {
			evicted[p.UID] = p
		}
	}
	releases := eviction.ReleasesAcross(evicted, func(node string) []*v1.Pod {
		var staying []*v1.Pod
		for _, p := range c.snap.BoundPods()[node] {
			if evicted[p.UID] == nil {
				staying = append(staying, p)
			}
		}
		return staying
	}, clusterClaims{c})
	fits := func() (bool, error) {
		var freed []*resourceapi.AllocationResult
		for _, r := range releases {
			if r.FreedBy(evicted) {
				freed = append(freed, r.Allocation)
			}
		}
		alloc := c.allocator(c.snap.State()).WhatIf(allocator.WhatIf{ReleaseAnywhere: freed})
		if d.keep != nil {
			alloc = d.keep(alloc)
		}
		fit, _, err := c.planGang(ctx, alloc, g.Group, pods, d.nodes)
		if err != nil {
			return false, fmt.Errorf("%s with the pods of lower priority evicted: %w", d.name, err)
		}
		return fit >= g.Need, nil
	}
	if ok, err := fits(); err != nil || !ok {
		return nil, err
	}
	victims, err := c.reprieve(lower, evicted, fits)
	if err != nil || len(victims.units) == 0 {
		return nil, err // with none: it fits without evictions, not a preemption
	}
	return &domainPreemption{domain: d.name, victimSet: victims}, nil
}

// write prints the group's preemption: its domain and victims, or why
// there is none.
func (p *GangPreemption) write(w io.Writer) {
	if p.Domain == "" {
		fmt.Fprintf(w, "Pod group preemption: cannot help: %s\n", p.NotPossible)
		return
	}
	fmt.Fprintf(w, "Pod group preemption: %s, whose victims cost least (evictions make room in %d %s)\n", p.Domain, p.Domains, plural(p.Domains, "domain", "domains"))
	writeVictims(w, p.Victims)
}
