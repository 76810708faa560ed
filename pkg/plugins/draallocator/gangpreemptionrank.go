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

package draallocator

import (
	"context"
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// Placements of a pod group preemption's re-run ranked by their victims
// (issue 55, docs/design/preemption.md "Groups"). DefaultPreemption's
// PodGroupPostFilter takes the whole cluster as its domain: it re-runs
// the group with every lower-priority pod removed, commits the placement
// the placement scorers rank first, and then gives victims back, most
// important first and those whose eviction would violate a
// PodDisruptionBudget before the others, for as long as the group still
// fits where that placement put it. So the placement committed decides
// the victims, and a reprieve over the whole cluster cannot undo a bad
// choice: a rack of three young victims chosen over one of two old ones
// keeps the old ones and evicts the three.
//
// ScorePlacement therefore estimates, per placement, the victims that
// reprieve would leave (victimsOf: upstream's order, each victim given
// back if the pods whose devices it holds find others on their nodes),
// and NormalizePlacementScore gives MaxScore to the placements whose
// victims are cheapest by upstream's order of preemption candidates
// (cheaperVictims, lifted from nodes to placements), 0 to the others.

// placementVictims are the victims a placement of the re-run is estimated
// to need, most important first.
type placementVictims struct {
	victims []preemption.Victim
	// pdbViolations counts the victims whose eviction violates a
	// PodDisruptionBudget.
	pdbViolations int
}

// cheaperVictims orders victim sets as DefaultPreemption orders its
// candidates (eviction.CompareCost). Negative when a is cheaper.
func cheaperVictims(a, b placementVictims) int {
	return eviction.CompareCost(a.cost(), b.cost())
}

// cost is what evicting the victims costs.
func (p placementVictims) cost() eviction.Cost {
	c := eviction.Cost{PDBViolations: p.pdbViolations, Victims: make([]eviction.Victim, len(p.victims))}
	for i, v := range p.victims {
		c.Victims[i] = eviction.Victim{Priority: v.Priority(), Pods: len(v.Pods())}
		if t := v.EarliestStartTime(); t != nil {
			c.Victims[i].Start = t.Time
		}
	}
	return c
}

// pods counts the victims' pods.
func (p placementVictims) pods() int {
	n := 0
	for _, v := range p.victims {
		n += len(v.Pods())
	}
	return n
}

// podNames names the victims' pods, for logs and events.
func (p placementVictims) podNames() []string {
	var out []string
	for _, v := range p.victims {
		for _, pi := range v.Pods() {
			out = append(out, klog.KObj(pi.GetPod()).String())
		}
	}
	return out
}

// reprieveOrder is the order DefaultPreemption gives the removed pods
// back in: those whose eviction would violate a PodDisruptionBudget
// first, each part most important first.
type reprieveOrder struct {
	victims []preemption.Victim
	// violates are the victims of the first part, and how many
	// violations each counts.
	violates map[preemption.Victim]int
}

// placementRanks are the victims estimated for the re-run's placements,
// for NormalizePlacementScore; ScorePlacement runs for placements in
// parallel.
type placementRanks struct {
	once  sync.Once
	order reprieveOrder

	mu      sync.Mutex
	victims map[*fwk.Placement]placementVictims
}

// reprieveOrderOf returns the order the removed pods are given back in,
// computed once per re-run.
func (pl *DRAAllocator) reprieveOrderOf(ctx context.Context, g *gangPreemption) reprieveOrder {
	g.ranks.once.Do(func() {
		victims := pl.victimUnits(g.removedInfos)
		sortByImportance(victims)
		violating, others := preemption.FilterVictimsWithPDBViolation(victims, pl.podDisruptionBudgets(ctx))
		order := reprieveOrder{violates: make(map[preemption.Victim]int, len(violating))}
		for _, v := range violating {
			order.victims = append(order.victims, v.Victim)
			order.violates[v.Victim] = v.ViolateCount
		}
		g.ranks.order = reprieveOrder{victims: append(order.victims, others...), violates: order.violates}
	})
	return g.ranks.order
}

// podDisruptionBudgets lists the budgets DefaultPreemption honours; none
// when they cannot be listed.
func (pl *DRAAllocator) podDisruptionBudgets(ctx context.Context) []*policyv1.PodDisruptionBudget {
	if pl.pdbLister == nil {
		return nil
	}
	pdbs, err := pl.pdbLister.List(labels.Everything())
	if err != nil {
		klog.FromContext(ctx).V(4).Info("Cannot list PodDisruptionBudgets: a pod group preemption's placements are ranked without them", "err", err)
		return nil
	}
	return pdbs
}

// placementMember is a pod of the placement with devices to allocate, and
// the devices the re-run chose for it on its node.
type placementMember struct {
	cs      fwk.CycleState
	node    *v1.Node
	claims  []*resourceapi.ResourceClaim
	results []resourceapi.AllocationResult
	// devices are results' devices, named once (setResults): the
	// estimate asks of every member for every victim.
	devices []structured.DeviceID
}

// setResults gives the member its devices.
func (m *placementMember) setResults(results []resourceapi.AllocationResult) {
	m.results, m.devices = results, m.devices[:0]
	for _, r := range results {
		for _, d := range r.Devices.Results {
			m.devices = append(m.devices, structured.MakeDeviceID(d.Driver, d.Pool, d.Device))
		}
	}
}

// usesAny reports whether the member holds a device of set.
func (m *placementMember) usesAny(set map[structured.DeviceID]bool) bool {
	for _, id := range m.devices {
		if set[id] {
			return true
		}
	}
	return false
}

// membersOf returns the placement's pods with devices, with the devices
// the cycle chose for them and the group's allocations in flight before
// the cycle (groupState.pendingAllocations).
func (pl *DRAAllocator) membersOf(placement *fwk.PodGroupAssignments) (members []*placementMember, held []*resourceapi.AllocationResult) {
	nodes := make(map[string]fwk.NodeInfo, len(placement.Nodes))
	for _, n := range placement.Nodes {
		nodes[n.Node().Name] = n
	}
	for _, a := range placement.ProposedAssignments {
		s, err := getState(a.GetCycleState())
		if err != nil || s.alloc == nil {
			continue
		}
		ni := nodes[a.GetNodeName()]
		found, ok := s.cachedResults(a.GetNodeName())
		if ni == nil || !ok {
			continue
		}
		claims, st := s.nodeClaims(a.GetPod(), ni)
		if st != nil || len(claims) == 0 {
			continue
		}
		if len(members) == 0 {
			if group, err := getGroupState(a.GetCycleState()); err == nil {
				held = group.pendingAllocations(pl.draManager.ResourceClaims())
			}
		}
		m := &placementMember{cs: a.GetCycleState(), node: ni.Node(), claims: claims}
		m.setResults(found.all())
		members = append(members, m)
	}
	return members, held
}

// victimsOf estimates the victims DefaultPreemption's reprieve leaves if
// the re-run commits placement: in reprieveOrder, a removed pod is given
// back when no member's devices are among those it takes back, or when
// the members whose devices are find others on their nodes beside
// everything taken then; otherwise it stays a victim.
func (pl *DRAAllocator) victimsOf(ctx context.Context, g *gangPreemption, placement *fwk.PodGroupAssignments) placementVictims {
	members, held := pl.membersOf(placement)
	var out placementVictims
	if len(members) == 0 {
		return out
	}
	order := pl.reprieveOrderOf(ctx, g)
	evicted := make(map[types.UID]*v1.Pod, len(g.removed))
	for uid, pod := range g.removed {
		evicted[uid] = pod
	}
	for _, v := range order.victims {
		var retaken map[structured.DeviceID]bool
		for _, pi := range v.Pods() {
			for _, i := range g.releasesOf[pi.GetPod().UID] {
				if r := g.releases[i]; r.FreedBy(evicted) {
					retaken = addDevices(retaken, r.Allocation)
				}
			}
		}
		uids := victimUIDs(v)
		for uid := range uids {
			delete(evicted, uid)
		}
		if pl.refit(ctx, g, evicted, held, members, retaken) {
			continue
		}
		for _, pi := range v.Pods() {
			evicted[pi.GetPod().UID] = pi.GetPod()
		}
		out.victims = append(out.victims, v)
		out.pdbViolations += order.violates[v]
	}
	sortByImportance(out.victims)
	return out
}

// sortByImportance sorts victims most important first, as
// DefaultPreemption does.
func sortByImportance(victims []preemption.Victim) {
	slices.SortStableFunc(victims, func(a, b preemption.Victim) int {
		switch {
		case preemption.MoreImportantVictim(a, b):
			return -1
		case preemption.MoreImportantVictim(b, a):
			return 1
		}
		return 0
	})
}

// refit reports whether the members holding a device of retaken find
// devices elsewhere on their nodes, one after the other beside the others'
// devices, with only evicted's devices freed; it gives them those devices
// if so and leaves them as they were if not.
func (pl *DRAAllocator) refit(ctx context.Context, g *gangPreemption, evicted map[types.UID]*v1.Pod, held []*resourceapi.AllocationResult, members []*placementMember, retaken map[structured.DeviceID]bool) bool {
	var conflicting []*placementMember
	for _, m := range members {
		if m.usesAny(retaken) {
			conflicting = append(conflicting, m)
		}
	}
	if len(conflicting) == 0 {
		return true
	}
	givenBack := func(uid types.UID) bool { _, ok := evicted[uid]; return !ok }
	now := pl.newAllocator()
	before := make([][]resourceapi.AllocationResult, len(conflicting))
	for i, m := range conflicting {
		before[i] = m.results
		m.setResults(nil)
	}
	for i, m := range conflicting {
		var take []*resourceapi.AllocationResult
		for _, o := range members {
			for j := range o.results {
				take = append(take, &o.results[j])
			}
		}
		alloc := pl.keptToAttributeDomain(m.cs, g.allocOn(now, m.node.Name, givenBack, held)).WhatIf(allocator.WhatIf{Take: take})
		results, err := alloc.AllocateWithin(ctx, m.node, m.claims, pl.filterTimeout())
		if err != nil || results == nil {
			for k, m := range conflicting {
				m.setResults(before[k])
			}
			return false
		}
		conflicting[i].setResults(results)
	}
	return true
}

// victimUIDs are the UIDs of a victim's pods.
func victimUIDs(v preemption.Victim) map[types.UID]bool {
	out := make(map[types.UID]bool, len(v.Pods()))
	for _, pi := range v.Pods() {
		out[pi.GetPod().UID] = true
	}
	return out
}

// addDevices adds an allocation's devices to set, making it if nil.
func addDevices(set map[structured.DeviceID]bool, a *resourceapi.AllocationResult) map[structured.DeviceID]bool {
	if set == nil {
		set = map[structured.DeviceID]bool{}
	}
	for _, d := range a.Devices.Results {
		set[structured.MakeDeviceID(d.Driver, d.Pool, d.Device)] = true
	}
	return set
}

// keepVictims files a placement's estimated victims for
// NormalizePlacementScore.
func (g *gangPreemption) keepVictims(p *fwk.Placement, v placementVictims) {
	g.ranks.mu.Lock()
	defer g.ranks.mu.Unlock()
	if g.ranks.victims == nil {
		g.ranks.victims = map[*fwk.Placement]placementVictims{}
	}
	g.ranks.victims[p] = v
}

// rankedPlacement is a placement of the re-run with its victims, and
// whether they are the cheapest.
type rankedPlacement struct {
	placement *fwk.Placement
	victims   placementVictims
	cheapest  bool
}

// rankByVictims gives MaxScore to the placements whose victims are the
// cheapest (cheaperVictims) and 0 to the others, and returns them so
// ranked, the cheapest first; it returns nil, leaving scores as they are,
// unless the re-run estimated every one.
func (g *gangPreemption) rankByVictims(scores []fwk.PlacementScore) []rankedPlacement {
	g.ranks.mu.Lock()
	defer g.ranks.mu.Unlock()
	ranked := make([]rankedPlacement, 0, len(scores))
	for _, s := range scores {
		v, ok := g.ranks.victims[s.Placement]
		if !ok {
			return nil
		}
		ranked = append(ranked, rankedPlacement{placement: s.Placement, victims: v})
	}
	if len(ranked) == 0 {
		return nil
	}
	slices.SortStableFunc(ranked, func(a, b rankedPlacement) int { return cheaperVictims(a.victims, b.victims) })
	for i := range ranked {
		ranked[i].cheapest = cheaperVictims(ranked[i].victims, ranked[0].victims) == 0
	}
	for i, s := range scores {
		scores[i].Score = 0
		if cheaperVictims(g.ranks.victims[s.Placement], ranked[0].victims) == 0 {
			scores[i].Score = fwk.MaxScore
		}
	}
	return ranked
}
