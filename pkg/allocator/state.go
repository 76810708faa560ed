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
	"sync"

	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/cowbits"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// State is structured.AllocatedState translated to device indexes of one
// inventory. Devices the inventory does not know are irrelevant: they
// cannot be candidates. A long-lived caller builds it once per change of
// the allocated devices (NewState, or a Tracker), not per pod; it must not
// change while allocators use it. Its device sets are copy-on-write
// (pkg/cowbits): a what-if (whatif.go) or a Tracker update copies a State
// to change the devices of a node or two, and a copy shares every chunk
// of bits it does not change.
type State struct {
	// dedicated holds devices in AllocatedDevices, by device index.
	dedicated *cowbits.Set
	// shared holds devices with persisted shares: an AggregatedCapacity
	// entry or an AllocatedSharedDeviceIDs entry.
	shared *cowbits.Set
	// aggregated is AggregatedCapacity by index.
	aggregated map[int]structured.ConsumedCapacity
	// shares counts a device's AllocatedSharedDeviceIDs entries, by
	// index, so that a what-if change (whatif.go) knows when the last
	// share goes.
	shares map[int]int
	// outside holds the devices outside the domain an allocator keeps to
	// (KeptTo, domain.go), free or allocated: all are in dedicated,
	// so that nothing takes them, and no what-if frees them. held are
	// those of them that were free: they consume no counters. Both nil
	// without a domain.
	outside, held *cowbits.Set

	// counters caches each pool's available counters (§5.5). Upstream
	// computes them once per allocator; a State outlives many allocators,
	// so the cache also remembers the inventory generation it is for.
	countersMu  sync.Mutex
	counters    map[inventory.PoolID]poolCounters
	countersGen uint64
}

// NewState translates st for inv.
func NewState(inv *inventory.Inventory, st structured.AllocatedState) *State {
	n := inv.NumIndexes()
	s := &State{dedicated: cowbits.New(n), shared: cowbits.New(n), aggregated: map[int]structured.ConsumedCapacity{},
		shares: map[int]int{}, counters: map[inventory.PoolID]poolCounters{}}
	for id := range st.AllocatedDevices {
		for _, d := range inv.LookupID(id) {
			s.dedicated.Set(d.Index)
		}
	}
	for id := range st.AllocatedSharedDeviceIDs {
		for _, d := range inv.LookupID(id.GetDeviceID()) {
			s.shared.Set(d.Index)
			s.shares[d.Index]++
		}
	}
	for id, c := range st.AggregatedCapacity {
		for _, d := range inv.LookupID(id) {
			s.shared.Set(d.Index)
			s.aggregated[d.Index] = c
		}
	}
	return s
}

// isOutside reports a device outside the allocator's domain.
func (s *State) isOutside(i int) bool { return s.outside != nil && s.outside.Has(i) }

// outsideWord returns the w-th word of the devices outside the domain.
func (s *State) outsideWord(w int) uint64 {
	if s.outside == nil {
		return 0
	}
	return s.outside.Word(w)
}

// isHeld reports a device outside the allocator's domain that is taken
// only for being outside it.
func (s *State) isHeld(i int) bool { return s.held != nil && s.held.Has(i) }

// isAllocated is upstream's IsDeviceAllocated: allocated in any way.
func (s *State) isAllocated(i int) bool { return s.dedicated.Has(i) || s.shared.Has(i) }

// copyForChange copies s's allocated devices, without its cached
// counters, for a change that leaves s alone.
func (s *State) copyForChange() *State {
	return &State{
		dedicated:   s.dedicated.Clone(),
		shared:      s.shared.Clone(),
		aggregated:  cloneNonEmpty(s.aggregated),
		shares:      cloneNonEmpty(s.shares),
		outside:     s.outside,
		held:        s.held,
		counters:    map[inventory.PoolID]poolCounters{},
		countersGen: s.countersGen,
	}
}

// cloneNonEmpty is maps.Clone, nil for an empty map: a dry run's copy of
// a State with no shares stays without until take adds one.
func cloneNonEmpty[M ~map[K]V, K comparable, V any](m M) M {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
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
	if s.isOutside(i) {
		return
	}
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
	if s.shares == nil {
		s.shares = map[int]int{}
	}
	s.shares[i]++
	s.shared.Set(i)
	if u.capacity != nil {
		if s.aggregated == nil {
			s.aggregated = map[int]structured.ConsumedCapacity{}
		}
		c := structured.ConsumedCapacity{}
		if prev, ok := s.aggregated[i]; ok {
			c = prev.Clone()
		}
		c.Add(u.capacity.ConsumedCapacity)
		s.aggregated[i] = c
	}
}
