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

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/cowbits"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// What the tracker (tracker.go) hands allocators: its devices as a State
// over an inventory, rebuilt when the inventory changes and otherwise
// updated, on a copy, for the devices that changed since the last one.

// AllocatedState returns the tracked devices in upstream's form.
func (t *Tracker) AllocatedState() structured.AllocatedState {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       t.capacity.Clone(),
	}
	for id := range t.dedicated {
		st.AllocatedDevices.Insert(id)
	}
	for id := range t.shares {
		st.AllocatedSharedDeviceIDs.Insert(id)
	}
	return st
}

// State returns the tracked devices as a State over inv. It reuses the
// previous State's work: when inv did not change, only the devices that
// changed since are updated, on a copy.
func (t *Tracker) State(inv *inventory.Inventory) *State {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stateLocked(inv)
}

// stateLocked is State; t.mu must be held.
func (t *Tracker) stateLocked(inv *inventory.Inventory) *State {
	if t.last == nil || t.lastInv != inv || t.lastGen != inv.Generation() {
		t.last = t.rebuild(inv)
		t.lastInv, t.lastGen = inv, inv.Generation()
		t.dirty.Clear()
		return t.last
	}
	if t.dirty.Len() == 0 {
		return t.last
	}
	prev := t.last
	next := &State{
		dedicated:   prev.dedicated.Clone(),
		shared:      prev.shared.Clone(),
		aggregated:  maps.Clone(prev.aggregated),
		shares:      maps.Clone(prev.shares),
		counters:    map[inventory.PoolID]poolCounters{},
		countersGen: prev.countersGen,
	}
	// Counters of pools without changed devices stay valid.
	prev.countersMu.Lock()
	maps.Copy(next.counters, prev.counters)
	prev.countersMu.Unlock()
	for id := range t.dirty {
		for _, d := range inv.LookupID(id) {
			delete(next.counters, inventory.PoolID{Driver: d.Driver, Pool: d.Pool})
			t.setBits(next, d, id)
		}
	}
	t.dirty.Clear()
	t.last = next
	return next
}

// rebuild translates everything tracked for inv.
func (t *Tracker) rebuild(inv *inventory.Inventory) *State {
	n := inv.NumIndexes()
	s := &State{dedicated: cowbits.New(n), shared: cowbits.New(n), aggregated: map[int]structured.ConsumedCapacity{},
		shares: map[int]int{}, counters: map[inventory.PoolID]poolCounters{}, countersGen: inv.Generation()}
	seen := sets.New[structured.DeviceID]()
	for _, ids := range []func(func(structured.DeviceID)){
		func(f func(structured.DeviceID)) {
			for id := range t.dedicated {
				f(id)
			}
		},
		func(f func(structured.DeviceID)) {
			for id := range t.sharesOf {
				f(id)
			}
		},
		func(f func(structured.DeviceID)) {
			for id := range t.capacity {
				f(id)
			}
		},
	} {
		ids(func(id structured.DeviceID) {
			if seen.Has(id) {
				return
			}
			seen.Insert(id)
			for _, d := range inv.LookupID(id) {
				t.setBits(s, d, id)
			}
		})
	}
	return s
}

// setBits sets device d's entries in s from the tracked counts for id.
func (t *Tracker) setBits(s *State, d *inventory.Device, id structured.DeviceID) {
	if t.dedicated[id] > 0 {
		s.dedicated.Set(d.Index)
	} else {
		s.dedicated.Clear(d.Index)
	}
	c, hasCapacity := t.capacity[id]
	if n := t.sharesOf[id]; n > 0 {
		s.shares[d.Index] = n
	} else {
		delete(s.shares, d.Index)
	}
	if t.sharesOf[id] > 0 || hasCapacity {
		s.shared.Set(d.Index)
	} else {
		s.shared.Clear(d.Index)
	}
	if hasCapacity {
		s.aggregated[d.Index] = c.Clone()
	} else {
		delete(s.aggregated, d.Index)
	}
}
