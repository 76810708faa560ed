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
	"cmp"
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
)

// How a pod group preemption's re-run plans the group so that it costs
// the fewest victims: nodes with free devices first, the group over free
// devices before victims' ones, and scores that prefer free devices.

// victimScore ranks a node or a placement of the re-run by the devices the
// pod or the group gets there (results): the fewer of them a victim holds,
// the higher, MaxScore when none. DefaultPreemption evicts only the
// victims the re-run's choices need, so the pods go where they cost the
// fewest: a node's free devices before a victim's, the domain with the
// most free devices.
func (g *gangPreemption) victimScore(results []resourceapi.AllocationResult) int64 {
	taken, total := 0, 0
	for _, r := range results {
		for _, d := range r.Devices.Results {
			total++
			if g.victimDevices[structured.MakeDeviceID(d.Driver, d.Pool, d.Device)] {
				taken++
			}
		}
	}
	if total == 0 {
		return fwk.MaxScore
	}
	return fwk.MaxScore - int64(taken)*fwk.MaxScore/int64(total)
}

// orderForFewestVictims sorts nodes (in name order) so that those with the
// most devices free without evicting anybody come first (a counts them, an
// allocator over the devices as they are): a pod group preemption's
// re-run then plans the group where it needs the fewest victims, and
// DefaultPreemption gives back the pods of the nodes the plan did not
// use. Which devices a pod takes on its node matters less: each reprieve
// searches them again (fitGangReprieve).
func orderForFewestVictims(a *allocator.Allocator, nodes []*v1.Node) {
	free := make(map[string]int, len(nodes))
	for _, n := range nodes {
		used, total := a.Occupancy([]*v1.Node{n}, nil)
		free[n.Name] = total - used
	}
	slices.SortStableFunc(nodes, func(x, y *v1.Node) int { return cmp.Compare(free[y.Name], free[x.Name]) })
}

// planFreeFirst plans the members of a pod group preemption's re-run so
// that they take victims' devices only where free ones cannot hold them:
// a plan over the devices free now (free) places what those hold, and the
// plan over the devices the removed pods free as well (freed) keeps those
// members on their nodes. A plain plan over freed packs the group on the
// nodes it tries first, victims' devices and all, while free devices on
// the domain's other nodes stay unused (16 pods on four nodes of four
// GPUs: 12 victims, where eleven nodes with a GPU free each needed 5).
// Where keeping them there leaves the group short, the plain plan is
// taken if it places more.
func planFreeFirst(ctx context.Context, free, freed *allocator.Allocator, members []allocator.GangMember) (allocator.GangPlan, error) {
	first, err := free.PlanGang(ctx, members, 0)
	if err != nil {
		return allocator.GangPlan{}, err
	}
	if len(first.Nodes) == 0 {
		return freed.PlanGang(ctx, members, 0)
	}
	kept := make([]allocator.GangMember, len(members))
	for i, m := range members {
		if node, ok := first.Nodes[m.Name]; ok {
			if at := slices.IndexFunc(m.Nodes, func(n *v1.Node) bool { return n.Name == node }); at >= 0 {
				// Interchangeable only with its class kept on that
				// node; placed first (classes of equal demand go in
				// name order), so that the others fill the room left.
				m.Nodes, m.Class = m.Nodes[at:at+1], "\x00kept on "+node+"\x00"+m.Class
			}
		}
		kept[i] = m
	}
	plan, err := freed.PlanGang(ctx, kept, 0)
	if err != nil || plan.Complete {
		return plan, err
	}
	plain, err := freed.PlanGang(ctx, members, 0)
	if err != nil {
		return allocator.GangPlan{}, err
	}
	if len(plain.Nodes) > len(plan.Nodes) {
		return plain, nil
	}
	return plan, nil
}

// freeNow is the pod's allocator in a pod group preemption's re-run
// without what the removed pods free: the devices allocated and in flight
// now, with the group's own in flight, kept to the placement's
// device-attribute domain if it has one.
func (pl *DRAAllocator) freeNow(cs fwk.CycleState) *allocator.Allocator {
	var held []*resourceapi.AllocationResult
	if group, err := getGroupState(cs); err == nil {
		held = group.pendingAllocations(pl.draManager.ResourceClaims())
	}
	return pl.keptToAttributeDomain(cs, pl.newAllocator().WhatIf(allocator.WhatIf{Take: held}))
}
