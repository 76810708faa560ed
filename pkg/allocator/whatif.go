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
	"maps"

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
	// Node limits Release to devices local to that node (Device.LocalTo):
	// a device that other nodes reach too stays allocated.
	Node string
	// Release are allocations whose devices become free.
	Release []*resourceapi.AllocationResult
	// Take are allocations whose devices become allocated.
	Take []*resourceapi.AllocationResult
}

// Empty reports whether the change changes nothing.
func (w WhatIf) Empty() bool { return len(w.Release) == 0 && len(w.Take) == 0 }

// Apply returns s changed by w, for inv (the inventory s is for). Devices
// the inventory does not know are irrelevant, as in NewState. A released
// device is free once its dedicated use is gone, or its last share with
// the consumed capacity given back; releases come before takes, so a
// device that one allocation gives back and another takes stays taken.
func (s *State) Apply(inv *inventory.Inventory, features structured.Features, w WhatIf) *State {
	if w.Empty() {
		return s
	}
	next := s.copyForChange()
	touched := map[inventory.PoolID]bool{}
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

// Vacate returns s with every device of the node's own slices free, as
// on the node once every claim there is released; s is unchanged. A
// caller takes back what stays (Apply with Take): a nominated pod's
// devices are predicted over the node as its victims will leave it.
func (s *State) Vacate(inv *inventory.Inventory, node string) *State {
	next := s.copyForChange()
	touched := map[inventory.PoolID]bool{}
	for _, slice := range inv.SlicesOn(node) {
		touched[slice.Pool()] = true
		for _, d := range slice.Devices {
			next.dedicated.Clear(d.Index)
			next.shared.Clear(d.Index)
			delete(next.aggregated, d.Index)
			delete(next.shares, d.Index)
		}
	}
	next.keepCounters(s, touched)
	return next
}

// copyForChange copies s's allocated devices, without its cached
// counters, for a change that leaves s alone.
func (s *State) copyForChange() *State {
	return &State{
		dedicated:   s.dedicated.Clone(),
		shared:      s.shared.Clone(),
		aggregated:  maps.Clone(s.aggregated),
		shares:      maps.Clone(s.shares),
		counters:    map[inventory.PoolID]poolCounters{},
		countersGen: s.countersGen,
	}
}

// keepCounters copies prev's cached counters of the pools not touched.
func (s *State) keepCounters(prev *State, touched map[inventory.PoolID]bool) {
	prev.countersMu.Lock()
	defer prev.countersMu.Unlock()
	for id, pc := range prev.counters {
		if !touched[id] {
			s.counters[id] = pc
		}
	}
}

// release gives device i's use u back.
func (s *State) release(i int, u deviceUse) {
	if u.share == nil {
		s.dedicated.Clear(i)
		return
	}
	if n := s.shares[i] - 1; n > 0 {
		s.shares[i] = n
	} else {
		delete(s.shares, i)
	}
	if u.capacity != nil {
		if c, ok := s.aggregated[i]; ok {
			c = c.Clone()
			c.Sub(u.capacity.ConsumedCapacity)
			if c.Empty() {
				delete(s.aggregated, i)
			} else {
				s.aggregated[i] = c
			}
		}
	}
	if _, consumed := s.aggregated[i]; s.shares[i] == 0 && !consumed {
		s.shared.Clear(i)
	}
}

// take adds device i's use u.
func (s *State) take(i int, u deviceUse) {
	if u.share == nil {
		s.dedicated.Set(i)
		return
	}
	s.shares[i]++
	s.shared.Set(i)
	if u.capacity != nil {
		c := structured.ConsumedCapacity{}
		if prev, ok := s.aggregated[i]; ok {
			c = prev.Clone()
		}
		c.Add(u.capacity.ConsumedCapacity)
		s.aggregated[i] = c
	}
}

// State returns the allocated devices the allocator excludes.
func (a *Allocator) State() *State { return a.state }

// WithState returns an allocator like a (features, classes, inventory,
// matcher, policy, and the claims it prepared) whose allocated devices are
// st: a dry run's allocator over a State changed by a WhatIf.
func (a *Allocator) WithState(st *State) *Allocator {
	b := NewWithState(a.features, st, a.classes, a.inv, a.matcher, a.policy)
	b.prepared.Store(a.prepared.Load())
	return b
}
