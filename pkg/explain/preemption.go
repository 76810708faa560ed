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
	case len(c.snap.BoundPods()) == 0:
		return &Preemption{NotPossible: notPossibleNoPods}, nil
	}
	base := q.cross.on(c.allocator(c.snap.State()))
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
	out.Victims = best.victims()
	return out, nil
}

// nodePreemption is the smallest set of evictions that makes room on one
// node, chosen as DefaultPreemption's SelectVictimsOnNode chooses.
type nodePreemption struct {
	node string
	victimSet
	results []resourceapi.AllocationResult
}

// preemptOn evicts every unit of lower priority than pod with a pod on
// node (a group's unit goes whole, its pods elsewhere too); if the claims
// then fit, it gives them back (reprieve) as long as the claims still
// fit. nil: no room.
func (c *Cluster) preemptOn(ctx context.Context, base *allocator.Allocator, pod *v1.Pod, q question, node *v1.Node) (*nodePreemption, error) {
	lower := c.lowerUnits(c.snap.BoundPods()[node.Name], corev1helpers.PodPriority(pod))
	if len(lower) == 0 {
		return nil, nil
	}
	evicted := map[types.UID]*v1.Pod{}
	for _, u := range lower {
		for _, p := range u.Pods {
			evicted[p.UID] = p
		}
	}
	var results []resourceapi.AllocationResult
	fits := func() (bool, error) {
		d, err := base.WhatIf(allocator.WhatIf{Node: node.Name, Release: c.released(node.Name, evicted)}).Diagnose(ctx, node, q.claims)
		if err != nil {
			return false, fmt.Errorf("node %s with the pods of lower priority evicted: %w", node.Name, err)
		}
		if d.Results != nil {
			results = d.Results
		}
		return d.Results != nil, nil
	}
	if ok, err := fits(); err != nil || !ok {
		return nil, err
	}
	victims, err := c.reprieve(lower, evicted, fits)
	if err != nil || len(victims.units) == 0 {
		return nil, err // with none: it fits without evictions, not a preemption
	}
	return &nodePreemption{node: node.Name, victimSet: victims, results: results}, nil
}

// released are the allocations of the claims on node that the evicted
// pods free, by the scheduler plugin's own rule (eviction.Released).
func (c *Cluster) released(node string, evicted map[types.UID]*v1.Pod) []*resourceapi.AllocationResult {
	gone := map[types.UID]*v1.Pod{}
	for _, p := range c.snap.BoundPods()[node] {
		if evicted[p.UID] != nil {
			gone[p.UID] = p
		}
	}
	staying := func() []*v1.Pod {
		var pods []*v1.Pod
		for _, p := range c.snap.BoundPods()[node] {
			if evicted[p.UID] == nil {
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

// better reports whether n is a better node to preempt on than o, as
// DefaultPreemption's pickOneNodeForPreemption ranks them
// (eviction.CompareCost); o (found first) wins ties.
func (n *nodePreemption) better(o *nodePreemption) bool {
	return eviction.CompareCost(n.cost(), o.cost()) < 0
}
