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
	"sort"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// Preemption is what kube-scheduler's DefaultPreemption, with the
// plugin's device simulation, would do for a pod that fits on no node
// now: the node it would nominate and the pods it would evict there.
type Preemption struct {
	// Node is the node the pod would be nominated to; empty when
	// preemption cannot help, and NotPossible says why.
	Node        string `json:"node,omitempty"`
	NotPossible string `json:"notPossible,omitempty"`
	// Victims are the pods evicted on Node, most important first.
	Victims []Victim `json:"victims,omitempty"`
	// Devices are what the pod's claims would get there once the
	// victims' claims are released.
	Devices []string `json:"devices,omitempty"`
	// Nodes counts the nodes where some set of evictions makes room.
	Nodes int `json:"nodes"`
}

// Victim is a pod preemption would evict.
type Victim struct {
	Pod      string `json:"pod"`
	Priority int32  `json:"priority"`
	// Group is the PodGroup, namespace/name, evicted whole with the pod
	// (its disruptionMode is All); empty when the pod goes alone.
	Group string `json:"group,omitempty"`
	// Claims are the ResourceClaims its eviction frees.
	Claims []string `json:"claims,omitempty"`
	// ViolatesPDB is set when the eviction violates a PodDisruptionBudget.
	ViolatesPDB bool `json:"violatesPDB,omitempty"`
}

// Why preemption cannot help.
const (
	notPossibleDisabled = "the plugin's preemption is Disabled"
	notPossibleNever    = "the pod's preemptionPolicy is Never"
	notPossibleNoPods   = "no pods bound to nodes were given (read from a cluster, or add `kubectl get pods -A -o yaml` to --from)"
	notPossibleNoRoom   = "no node would have room for the pod's claims even with every pod of lower priority evicted"
)

// preemption answers for pod, whose claims q asks about, where it fits
// on no node now; empty are the nodes where it fits with nothing
// allocated (no other node can help).
func (c *Cluster) preemption(ctx context.Context, pod *v1.Pod, q question, empty []string) (*Preemption, error) {
	switch {
	case c.settings.PreemptionDisabled:
		return &Preemption{NotPossible: notPossibleDisabled}, nil
	case pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == v1.PreemptNever:
		return &Preemption{NotPossible: notPossibleNever}, nil
	case len(c.bound) == 0:
		return &Preemption{NotPossible: notPossibleNoPods}, nil
	}
	base := q.cross.on(c.allocator(c.state))
	var best *nodePreemption
	out := &Preemption{}
	for _, name := range empty {
		node := c.node(name)
		if node == nil || q.nodeCheck.Reject(node) != "" {
			continue
		}
		np, err := c.preemptOn(ctx, base, pod, q, node)
		if err != nil {
			return nil, err
		}
		if np == nil {
			continue
		}
		out.Nodes++
		if best == nil || np.better(best) {
			best = np
		}
	}
	if best == nil {
		out.NotPossible = notPossibleNoRoom
		return out, nil
	}
	out.Node = best.node
	out.Devices = q.devices(best.results)
	for _, p := range best.victims {
		out.Victims = append(out.Victims, Victim{
			Pod: p.Namespace + "/" + p.Name, Priority: corev1helpers.PodPriority(p),
			Claims: eviction.ClaimNames(p), ViolatesPDB: best.violating[p.UID],
		})
	}
	return out, nil
}

// nodePreemption is the smallest set of evictions that makes room on one
// node, chosen as DefaultPreemption's SelectVictimsOnNode chooses.
type nodePreemption struct {
	node      string
	victims   []*v1.Pod // most important first
	violating map[types.UID]bool
	results   []resourceapi.AllocationResult
}

// preemptOn evicts every pod of lower priority than pod on node; if the
// claims then fit, it reprieves the evicted pods one at a time, those
// whose eviction would violate a PodDisruptionBudget first, each in
// order of importance, as long as the claims still fit. nil: no room.
func (c *Cluster) preemptOn(ctx context.Context, base *allocator.Allocator, pod *v1.Pod, q question, node *v1.Node) (*nodePreemption, error) {
	var lower []*v1.Pod
	for _, p := range c.bound[node.Name] {
		if corev1helpers.PodPriority(p) < corev1helpers.PodPriority(pod) {
			lower = append(lower, p)
		}
	}
	if len(lower) == 0 {
		return nil, nil
	}
	sort.SliceStable(lower, func(i, j int) bool { return moreImportant(lower[i], lower[j]) })
	evicted := map[types.UID]bool{}
	for _, p := range lower {
		evicted[p.UID] = true
	}
	fits := func() ([]resourceapi.AllocationResult, error) {
		d, err := base.WhatIf(allocator.WhatIf{Node: node.Name, Release: c.released(node.Name, evicted)}).Diagnose(ctx, node, q.claims)
		if err != nil {
			return nil, fmt.Errorf("node %s with the pods of lower priority evicted: %w", node.Name, err)
		}
		return d.Results, nil
	}
	results, err := fits()
	if err != nil || results == nil {
		return nil, err
	}
	violating, nonViolating := c.splitByPDB(lower)
	np := &nodePreemption{node: node.Name, violating: map[types.UID]bool{}, results: results}
	for _, group := range [][]*v1.Pod{violating, nonViolating} {
		for _, p := range group {
			delete(evicted, p.UID)
			r, err := fits()
			if err != nil {
				return nil, err
			}
			if r != nil {
				np.results = r
				continue
			}
			evicted[p.UID] = true
			np.victims = append(np.victims, p)
		}
	}
	for _, p := range violating {
		if evicted[p.UID] {
			np.violating[p.UID] = true
		}
	}
	if len(np.victims) == 0 {
		return nil, nil // it fits without evictions: not a preemption
	}
	sort.SliceStable(np.victims, func(i, j int) bool { return moreImportant(np.victims[i], np.victims[j]) })
	return np, nil
}

// released are the allocations of the claims on node that the evicted
// pods free, by the scheduler plugin's own rule (eviction.Released).
func (c *Cluster) released(node string, evicted map[types.UID]bool) []*resourceapi.AllocationResult {
	gone := map[types.UID]*v1.Pod{}
	for _, p := range c.bound[node] {
		if evicted[p.UID] {
			gone[p.UID] = p
		}
	}
	staying := func() []*v1.Pod {
		var pods []*v1.Pod
		for _, p := range c.bound[node] {
			if !evicted[p.UID] {
				pods = append(pods, p)
			}
		}
		return pods
	}
	return eviction.Released(node, gone, staying, clusterClaims{c})
}

// clusterClaims is eviction.Claims over the cluster's claims, with their
// recorded allocations.
type clusterClaims struct{ c *Cluster }

// Get returns the claim, nil if the cluster has none.
func (cc clusterClaims) Get(namespace, name string) *resourceapi.ResourceClaim {
	return cc.c.claim(namespace, name)
}

// Allocation returns the claim's recorded allocation.
func (clusterClaims) Allocation(claim *resourceapi.ResourceClaim) *resourceapi.AllocationResult {
	return claim.Status.Allocation
}

// splitByPDB splits pods (most important first) into those whose eviction
// would violate a PodDisruptionBudget and the others (splitUnitsByPDB,
// each pod a unit).
func (c *Cluster) splitByPDB(pods []*v1.Pod) (violating, nonViolating []*v1.Pod) {
	units := make([]eviction.Unit, len(pods))
	for i, p := range pods {
		units[i] = eviction.Unit{Pods: []*v1.Pod{p}}
	}
	v, n := c.splitUnitsByPDB(units)
	for _, uv := range v {
		violating = append(violating, uv.unit.Pods[0])
	}
	for _, uv := range n {
		nonViolating = append(nonViolating, uv.unit.Pods[0])
	}
	return violating, nonViolating
}

// unitViolations is a unit of eviction and those of its pods whose
// eviction violates a PodDisruptionBudget.
type unitViolations struct {
	unit eviction.Unit
	pods []types.UID
}

// splitUnitsByPDB splits units (most important first) into those whose
// eviction would violate a PodDisruptionBudget, a unit violating when any
// of its pods does, and the others, counting the disruptions each budget
// allows down as DefaultPreemption does: a pod's eviction takes one from
// each budget that selects it, up to the first one that goes below zero.
func (c *Cluster) splitUnitsByPDB(units []eviction.Unit) (violating, nonViolating []unitViolations) {
	allowed := make([]int32, len(c.objs.PDBs))
	for i, pdb := range c.objs.PDBs {
		allowed[i] = pdb.Status.DisruptionsAllowed
	}
	violates := func(p *v1.Pod) bool {
		if len(p.Labels) == 0 {
			return false
		}
		for i, pdb := range c.objs.PDBs {
			if pdb.Namespace != p.Namespace || !selects(pdb, p) {
				continue
			}
			if _, disrupted := pdb.Status.DisruptedPods[p.Name]; disrupted {
				continue
			}
			allowed[i]--
			if allowed[i] < 0 {
				return true
			}
		}
		return false
	}
	for _, u := range units {
		uv := unitViolations{unit: u}
		for _, p := range u.Pods {
			if violates(p) {
				uv.pods = append(uv.pods, p.UID)
			}
		}
		if len(uv.pods) > 0 {
			violating = append(violating, uv)
		} else {
			nonViolating = append(nonViolating, uv)
		}
	}
	return violating, nonViolating
}

// selects reports whether pdb's selector picks pod; an empty or broken
// selector picks nothing, as in DefaultPreemption.
func selects(pdb *policyv1.PodDisruptionBudget, pod *v1.Pod) bool {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	return err == nil && !sel.Empty() && sel.Matches(labels.Set(pod.Labels))
}

// moreImportant orders pods as kube-scheduler's MoreImportantPod: higher
// priority first, then the one that started earlier.
func moreImportant(a, b *v1.Pod) bool {
	pa, pb := corev1helpers.PodPriority(a), corev1helpers.PodPriority(b)
	if pa != pb {
		return pa > pb
	}
	return startTime(a).Before(startTime(b))
}

func startTime(p *v1.Pod) *metav1.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime
	}
	return &metav1.Time{}
}

// better reports whether n is a better node to preempt on than o, as
// DefaultPreemption's pickOneNodeForPreemption ranks them
// (eviction.CompareCost); o (found first) wins ties.
func (n *nodePreemption) better(o *nodePreemption) bool {
	return eviction.CompareCost(n.cost(), o.cost()) < 0
}

// cost is what evicting the node's victims costs.
func (n *nodePreemption) cost() eviction.Cost { return podsCost(n.victims, len(n.violating)) }

// podsCost is what evicting victims costs, each pod a unit, violations
// of them violating a PodDisruptionBudget.
func podsCost(victims []*v1.Pod, violations int) eviction.Cost {
	c := eviction.Cost{PDBViolations: violations, Victims: make([]eviction.Victim, len(victims))}
	for i, p := range victims {
		c.Victims[i] = eviction.Victim{Priority: corev1helpers.PodPriority(p), Pods: 1, Start: startTime(p).Time}
	}
	return c
}
