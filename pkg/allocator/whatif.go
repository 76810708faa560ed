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
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"

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
	// Node limits Release to devices local to that node (Device.LocalTo):
	// a device that other nodes reach too stays allocated.
	Node string
	// Release are allocations whose devices become free.
	Release []*resourceapi.AllocationResult
	// Take are allocations whose devices become allocated.
	Take []*resourceapi.AllocationResult
}

// Empty reports whether the change changes nothing.
func (w WhatIf) Empty() bool { return w.Vacate == "" && len(w.Release) == 0 && len(w.Take) == 0 }

// WhatIf returns an allocator like a (see WithState) whose allocated
// devices are a's changed by w; a is unchanged, so dry runs on many nodes
// can share it.
func (a *Allocator) WhatIf(w WhatIf) *Allocator {
	if w.Empty() {
		return a
	}
	return a.WithState(a.state.apply(a.inv, a.features, w))
}

// apply returns s changed by w, for inv (the inventory s is for). Devices
// the inventory does not know are irrelevant, as in NewState. A released
// device is free once its dedicated use is gone, or its last share with
// the consumed capacity given back; a vacated node comes first, then
// releases, then takes, so a device that one allocation gives back and
// another takes stays taken.
func (s *State) apply(inv *inventory.Inventory, features structured.Features, w WhatIf) *State {
	if w.Empty() {
		return s
	}
	next := s.copyForChange()
	touched := map[inventory.PoolID]bool{}
	if w.Vacate != "" {
		next.vacate(inv, w.Vacate, touched)
	}
	for _, alloc := range w.Release {
		for _, u := range usesOf(alloc, features.ConsumableCapacity) {
			for _, d := range inv.LookupID(u.id) {
				if d.LocalTo(w.Node) {
					next.release(d.Index, u)
					touched[inventory.PoolID{Driver: d.Driver, Pool: d.Pool}] = true
				}
			}
		}
	}
	for _, alloc := range w.Take {
		for _, u := range usesOf(alloc, features.ConsumableCapacity) {
			for _, d := range inv.LookupID(u.id) {
				next.take(d.Index, u)
				touched[inventory.PoolID{Driver: d.Driver, Pool: d.Pool}] = true
			}
		}
	}
	// Counters of untouched pools stay valid.
	next.keepCounters(s, touched)
	return next
}

// vacate frees every device of the node's own slices in s, which is a
// copy being changed, and marks their pools touched.
func (s *State) vacate(inv *inventory.Inventory, node string, touched map[inventory.PoolID]bool) {
	for _, slice := range inv.SlicesOn(node) {
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
}
