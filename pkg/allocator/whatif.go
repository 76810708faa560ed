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

package allocator

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// WhatIf is a change to the allocated devices that a caller simulates
// without making it: a scheduler's preemption dry run gives back the
// devices of victims' claims and takes those of pods nominated to the
// node. Applied to a State it yields another State; the original is
// untouched, so dry runs on many nodes can share it.
type WhatIf struct {
	// Vacate, a node's name, frees every device of that node's own slices
	// before Release and Take apply, as on the node once every claim there
	// is released; Take then puts back what stays (a nominated pod's
	// devices are predicted over the node as its victims will leave it).
	Vacate string
	// VacateNodes frees every device of every node's own slices, as Vacate
	// does for one node. What fits on a node does not depend on other
	// nodes' own devices, so one such State answers for every node what
	// Vacate answers for one (a scheduler's "would the pod fit had the
	// node's pods left", asked node after node), without a copy per node.
	// Only a pool whose slices name several nodes differs: its counters
	// count the other nodes' devices as free too.
	VacateNodes bool
	// Node limits Release to devices local to that node (Device.LocalTo):
	// a device that other nodes reach too stays allocated.
	Node string
	// Release are allocations whose devices become free.
	Release []*resourceapi.AllocationResult
	// ReleaseAnywhere are allocations whose devices become free on every
	// node, Node or not: claims whose every consumer leaves the cluster
	// (a pod group's preemption removes victims from every node at once),
	// network-attached devices included.
	ReleaseAnywhere []*resourceapi.AllocationResult
	// Take are allocations whose devices become allocated.
	Take []*resourceapi.AllocationResult
}

// Empty reports whether the change changes nothing.
func (w WhatIf) Empty() bool {
	return w.Vacate == "" && !w.VacateNodes && len(w.Release) == 0 && len(w.ReleaseAnywhere) == 0 && len(w.Take) == 0
}

// WhatIf returns an allocator like a (see WithState) whose allocated
// devices are a's changed by w; a is unchanged, so dry runs on many nodes
// can share it.
func (a *Allocator) WhatIf(w WhatIf) *Allocator {
	if w.Empty() {
		return a
	}
	return a.WithState(a.state.apply(a.inv, w, a.placedOn))
}

// placedUse is one device use of an allocation with the inventory's device
// it lands on.
type placedUse struct {
	d *inventory.Device
	u deviceUse
}

// Placements memoizes each allocation's placed uses, by the allocation's
// address: a preemption dry run releases and takes the same allocations on
// node after node and step after step, and the next preemptor's dry runs
// release them again. Allocations are the informers' and the plugin's
// objects, never changed once made. Placed uses name the inventory's
// devices by index, so a Placements holds for one generation of one
// inventory (For); a caller that keeps one across allocators
// (WithPlacements) replaces it when the inventory changes, and bounds its
// size (Len), since it holds every allocation it saw.
type Placements struct {
	inv        *inventory.Inventory
	generation uint64
	m          sync.Map
	size       atomic.Int64
}

// NewPlacements returns an empty memo for inv as it is now.
func NewPlacements(inv *inventory.Inventory) *Placements {
	p := &Placements{inv: inv}
	if inv != nil {
		p.generation = inv.Generation()
	}
	return p
}

// For reports whether p holds for inv as it is now.
func (p *Placements) For(inv *inventory.Inventory) bool {
	return inv != nil && p.inv == inv && p.generation == inv.Generation()
}

// Len returns how many allocations p holds.
func (p *Placements) Len() int { return int(p.size.Load()) }

// WithPlacements returns an allocator like a that memoizes placements in p
// instead of its own memo, when p holds for a's inventory; otherwise a.
// Allocators derived from the result share p.
func (a *Allocator) WithPlacements(p *Placements) *Allocator {
	if p == nil || !p.For(a.inv) {
		return a
	}
	b := a.WithState(a.state)
	b.domain = a.domain
	b.placed = p
	return b
}

// placedOn returns alloc's device uses with the inventory's devices they
// land on; devices the inventory does not know are left out.
func (a *Allocator) placedOn(alloc *resourceapi.AllocationResult) []placedUse {
	if v, ok := a.placed.m.Load(alloc); ok {
		return v.([]placedUse)
	}
	var out []placedUse
	for _, u := range usesOf(alloc, a.features.ConsumableCapacity) {
		for _, d := range a.inv.LookupID(u.id) {
			out = append(out, placedUse{d: d, u: u})
		}
	}
	if _, loaded := a.placed.m.LoadOrStore(alloc, out); !loaded {
		a.placed.size.Add(1)
	}
	return out
}

// apply returns s changed by w, for inv (the inventory s is for). Devices
// the inventory does not know are irrelevant, as in NewState. A released
// device is free once its dedicated use is gone, or its last share with
// the consumed capacity given back; a vacated node comes first, then
// releases, then takes, so a device that one allocation gives back and
// another takes stays taken.
func (s *State) apply(inv *inventory.Inventory, w WhatIf, placedOn func(*resourceapi.AllocationResult) []placedUse) *State {
	if w.Empty() {
		return s
	}
	next := s.copyForChange()
	touched := map[inventory.PoolID]bool{}
	if w.VacateNodes {
		next.vacateNodes(inv)
	} else if w.Vacate != "" {
		for _, slice := range inv.SlicesOn(w.Vacate) {
			next.vacateSlice(slice, touched)
		}
	}
	for _, alloc := range w.Release {
		for _, p := range placedOn(alloc) {
			if p.d.LocalTo(w.Node) {
				next.release(p.d.Index, p.u)
				touched[inventory.PoolID{Driver: p.d.Driver, Pool: p.d.Pool}] = true
			}
		}
	}
	for _, alloc := range w.ReleaseAnywhere {
		for _, p := range placedOn(alloc) {
			next.release(p.d.Index, p.u)
			touched[inventory.PoolID{Driver: p.d.Driver, Pool: p.d.Pool}] = true
		}
	}
	for _, alloc := range w.Take {
		for _, p := range placedOn(alloc) {
			next.take(p.d.Index, p.u)
			touched[inventory.PoolID{Driver: p.d.Driver, Pool: p.d.Pool}] = true
		}
	}
	// Counters of untouched pools stay valid; with every node vacated,
	// each is computed again when asked for.
	if !w.VacateNodes {
		next.keepCounters(s, touched)
	}
	return next
}

// vacateNodes frees every node's own device in s, which is a copy being
// changed, a word of bits at a time.
func (s *State) vacateNodes(inv *inventory.Inventory) {
	local := inv.NodeLocal()
	mask := func(w int) uint64 { return local.Word(w) &^ s.outsideWord(w) }
	s.dedicated.ClearWords(mask)
	s.shared.ClearWords(mask)
	for i := range s.aggregated {
		if local.Has(i) && !s.isOutside(i) {
			delete(s.aggregated, i)
		}
	}
	for i := range s.shares {
		if local.Has(i) && !s.isOutside(i) {
			delete(s.shares, i)
		}
	}
}

// vacateSlice frees every device of the slice in s, which is a copy being
// changed, and marks its pool touched.
func (s *State) vacateSlice(slice *inventory.Slice, touched map[inventory.PoolID]bool) {
	touched[slice.Pool()] = true
	for _, d := range slice.Devices {
		if s.isOutside(d.Index) {
			continue
		}
		s.dedicated.Clear(d.Index)
		s.shared.Clear(d.Index)
		delete(s.aggregated, d.Index)
		delete(s.shares, d.Index)
	}
}

// FitsWithinWhatIf answers what a.WhatIf(w).FitsWithin would, without
// building the changed State where it need not: a preemption dry run asks
// once per node and step whether the claims fit once some victims'
// devices are released, and for claims answered from counts (count.go)
// the devices the change frees only count as free. Other changes, and
// claims or nodes the counts do not answer for, get the changed State.
func (a *Allocator) FitsWithinWhatIf(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, w WhatIf, timeout time.Duration) (bool, error) {
	if w.Empty() {
		return a.FitsWithin(ctx, node, claims, timeout)
	}
	if fits, err, ok := a.fitsReleasingFromCounts(ctx, node, claims, w); ok {
		return fits, err
	}
	return a.WhatIf(w).FitsWithin(ctx, node, claims, timeout)
}

// fitsReleasingFromCounts is run's answer from counts on a.WhatIf(w),
// read off a's State and the devices w releases; ok is false where that
// answer would not be given there (a summary not kept yet, or not plain;
// a constraint; results to build for the node's selector) or where w does
// more than release dedicated uses.
func (a *Allocator) fitsReleasingFromCounts(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, w WhatIf) (fits bool, err error, ok bool) {
	if w.Vacate != "" || w.VacateNodes || len(w.Take) > 0 || a.cross != nil || ctx.Err() != nil {
		return false, nil, false
	}
	view, id, err := a.inv.ViewAndID(node, a.viewOptions())
	if err != nil || view.MultiTermSelectors {
		return false, nil, false
	}
	q := a.preparedFor(claims).counts
	if q == nil || q.covered > 0 {
		return false, nil, false
	}
	s := q.sums.lookup(id)
	if s == nil || !s.plain {
		return false, nil, false
	}
	// What apply would clear: dedicated uses local to w.Node, outside the
	// allocator's domain.
	var freed []int
	for _, alloc := range w.Release {
		for _, p := range a.placedOn(alloc) {
			switch {
			case !p.d.LocalTo(w.Node) || a.state.isOutside(p.d.Index):
			case p.u.share != nil:
				return false, nil, false
			default:
				freed = append(freed, p.d.Index)
			}
		}
	}
	need := q.total
	if need == 0 {
		return true, nil, true
	}
	st := a.state
	capacity := a.features.ConsumableCapacity
	for _, i := range s.idx {
		if st.dedicated.Has(int(i)) && !slices.Contains(freed, int(i)) {
			continue
		}
		if capacity && st.shared.Has(int(i)) {
			return false, nil, false
		}
		if need--; need == 0 {
			return true, nil, true
		}
	}
	if s.invalidPools {
		return false, errInvalidPools, true
	}
	return false, a.doesNotFit(ctx, node), true
}
