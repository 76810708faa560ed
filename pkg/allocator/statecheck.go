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
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/dra-scheduler/dra-scheduler/pkg/cowbits"
	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// compareState brings the last State up to date as State does and
// compares it with one rebuilt from the counts, device by device, and
// the pool counters cached in it with fresh ones. A State rebuilt just
// now has nothing to compare.
func (t *Tracker) compareState(l *drift.List, inv *inventory.Inventory) {
	if t.last == nil || t.lastInv != inv || t.lastGen != inv.Generation() {
		return
	}
	live := t.stateLocked(inv)
	if t.stateAgrees(inv, live) {
		// The rebuild would have live's entries: its counters too.
		compareCounters(l, inv, live, live)
		return
	}
	fresh := t.rebuild(inv)
	describe := func(i int) string {
		if d := inv.Device(i); d != nil {
			return fmt.Sprintf("device %s (index %d)", d.Name(), i)
		}
		return fmt.Sprintf("index %d, no device", i)
	}
	object := func(i int) string {
		if d := inv.Device(i); d != nil {
			return "pool " + d.Driver + "/" + d.Pool
		}
		return "inventory"
	}
	compareBits(l, "allocated", live.dedicated, fresh.dedicated, describe, object)
	compareBits(l, "shared", live.shared, fresh.shared, describe, object)
	eachKey(live.shares, fresh.shares, func(i int) {
		if got, want := live.shares[i], fresh.shares[i]; got != want {
			l.Add(drift.State, object(i), "%s: %d shares in the State handed to allocators, %d rebuilt from the tracker's counts", describe(i), got, want)
		}
	})
	eachKey(live.aggregated, fresh.aggregated, func(i int) {
		if got, want := live.aggregated[i], fresh.aggregated[i]; !sameCapacity(got, want) {
			l.Add(drift.State, object(i), "%s: consumed capacity %s in the State handed to allocators, %s rebuilt from the tracker's counts", describe(i), renderCapacity(got), renderCapacity(want))
		}
	})
	compareCounters(l, inv, live, fresh)
}

// stateAgrees reports whether live has exactly the entries a rebuild from
// the counts would give it (setBits), without building one: every device
// of a counted ID has its entries, and live has no others.
func (t *Tracker) stateAgrees(inv *inventory.Inventory, live *State) bool {
	dedicated := 0
	for id := range t.dedicated {
		for _, d := range inv.LookupID(id) {
			if !live.dedicated.Has(d.Index) {
				return false
			}
			dedicated++
		}
	}
	shared, shares, aggregated := 0, 0, 0
	for id, n := range t.sharesOf {
		for _, d := range inv.LookupID(id) {
			if !live.shared.Has(d.Index) || live.shares[d.Index] != n {
				return false
			}
			shared++
			shares++
		}
	}
	for id, c := range t.capacity {
		for _, d := range inv.LookupID(id) {
			if !live.shared.Has(d.Index) || !sameCapacity(live.aggregated[d.Index], c) {
				return false
			}
			if t.sharesOf[id] == 0 {
				shared++
			}
			aggregated++
		}
	}
	return count(live.dedicated) == dedicated && count(live.shared) == shared &&
		len(live.shares) == shares && len(live.aggregated) == aggregated
}

func count(s *cowbits.Set) int {
	n := 0
	for range s.All() {
		n++
	}
	return n
}

// compareBits reports the devices one set has and the other lacks.
func compareBits(l *drift.List, what string, live, fresh *cowbits.Set, describe, object func(int) string) {
	if live.Equal(fresh) {
		return
	}
	for i := range live.All() {
		if !fresh.Has(i) {
			l.Add(drift.State, object(i), "%s: %s in the State handed to allocators, free in one rebuilt from the tracker's counts", describe(i), what)
		}
	}
	for i := range fresh.All() {
		if !live.Has(i) {
			l.Add(drift.State, object(i), "%s: free in the State handed to allocators, %s in one rebuilt from the tracker's counts", describe(i), what)
		}
	}
}

// compareCounters compares the pool counters cached in the live State for
// the inventory's generation with counters computed again, for the same
// pools, over the rebuilt State: what the allocators read as available.
func compareCounters(l *drift.List, inv *inventory.Inventory, live, fresh *State) {
	live.countersMu.Lock()
	cached := maps.Clone(live.counters)
	current := live.countersGen == inv.Generation()
	live.countersMu.Unlock()
	if !current {
		return // cleared at the next use
	}
	for id, pc := range cached {
		if pc.pool == nil {
			continue
		}
		want := availableIn(fresh, pc.pool)
		object := "pool " + id.String()
		eachKey(pc.sets, want.sets, func(set string) {
			eachKey(pc.sets[set], want.sets[set], func(counter string) {
				got, ok := pc.sets[set][counter]
				w, wok := want.sets[set][counter]
				if ok != wok || got.Cmp(w) != 0 {
					l.Add(drift.Counters, object, "counter set %s, counter %s: %s available in the cached counters, %s computed again from the tracker's counts",
						set, counter, renderQuantity(got, ok), renderQuantity(w, wok))
				}
			})
		})
		if pc.overConsumed != want.overConsumed {
			l.Add(drift.Counters, object, "over-consumed %t in the cached counters, %t computed again", pc.overConsumed, want.overConsumed)
		}
		if pc.blockedKnown != want.blockedKnown || !slices.Equal(pc.blocked, want.blocked) {
			l.Add(drift.Counters, object, "devices their counters block: %s cached, %s computed again",
				renderBlocked(inv, pc.blocked, pc.blockedKnown), renderBlocked(inv, want.blocked, want.blockedKnown))
		}
	}
}

func renderQuantity(q resource.Quantity, ok bool) string {
	if !ok {
		return "none"
	}
	return q.String()
}

func renderBlocked(inv *inventory.Inventory, blocked indexSet, known bool) string {
	if !known {
		return "unknown"
	}
	names := make([]string, 0, len(blocked))
	for _, i := range blocked {
		if d := inv.Device(int(i)); d != nil {
			names = append(names, d.Name())
		} else {
			names = append(names, fmt.Sprintf("index %d", i))
		}
	}
	return "[" + strings.Join(names, ", ") + "]"
}
