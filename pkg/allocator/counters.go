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
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// counterSets maps counter set name -> counter name -> value.
type counterSets map[string]map[string]resource.Quantity

// poolCounters is a pool's available counters, and whether any of them is
// already over-consumed.
type poolCounters struct {
	sets         counterSets
	overConsumed bool
	// blocked holds the devices (by index) whose own consumption exceeds
	// an available counter: no reservation of them can fit, whatever else
	// the call holds, as long as no consumption in the pool is negative
	// (blockedKnown is false then, and blocked empty). On a full node,
	// most partitions are.
	blocked      indexSet
	blockedKnown bool
	// groups are the compatibility groups the allocated devices have in
	// common per counter set (pools that use groups only), gathered in the
	// same pass as their consumption.
	groups map[string]groupIntersection
	// pool is the pool they were computed for, so that the consistency
	// check can compute them again (statecheck.go).
	pool *inventory.Pool
}

// indexSet is a sorted set of device indexes: compact, and a lookup reads
// a few adjacent words where a map probes scattered groups (checking the
// partitions of node after node made those probes the main cost).
type indexSet []int32

// has reports whether device index i is in the set.
func (s indexSet) has(i int) bool {
	_, found := slices.BinarySearch(s, int32(i))
	return found
}

// available returns what the pool's counter sets offer after subtracting
// the consumption of already allocated devices. Like upstream it is
// computed once per pool and allocator (§5.5).
func (a *Allocator) available(pool *inventory.Pool) poolCounters {
	st := a.state
	st.countersMu.Lock()
	defer st.countersMu.Unlock()
	if gen := a.inv.Generation(); gen != st.countersGen {
		clear(st.counters)
		st.countersGen = gen
	}
	if pc, ok := st.counters[pool.ID]; ok {
		return pc
	}
	pc := availableIn(st, pool)
	st.counters[pool.ID] = pc
	return pc
}

// availableIn computes what the pool's counter sets offer with st's
// allocated devices: available's work, uncached.
func availableIn(st *State, pool *inventory.Pool) poolCounters {
	cs := counterSets{}
	for name, set := range pool.CounterSets {
		counters := make(map[string]resource.Quantity, len(set.Counters))
		for cn, c := range set.Counters {
			counters[cn] = c.Value.DeepCopy()
		}
		cs[name] = counters
	}
	var groups map[string]groupIntersection
	if pool.CompatibilityGroups {
		groups = map[string]groupIntersection{}
	}
	for _, group := range [][]*inventory.Slice{pool.Targeting, pool.NotTargeting} {
		for _, s := range group {
			for _, d := range s.Devices {
				if !st.isAllocated(d.Index) || st.isHeld(d.Index) {
					continue
				}
				for _, use := range d.Spec.ConsumesCounters {
					if groups != nil {
						groups[use.CounterSet] = groups[use.CounterSet].add(use.CompatibilityGroups)
					}
					set := cs[use.CounterSet]
					for cn, c := range use.Counters {
						if v, ok := set[cn]; ok {
							v.Sub(c.Value)
							set[cn] = v
						}
					}
				}
			}
		}
	}
	pc := poolCounters{sets: cs, groups: groups, pool: pool}
	for _, set := range cs {
		for _, v := range set {
			if v.Sign() < 0 {
				pc.overConsumed = true
			}
		}
	}
	pc.blocked, pc.blockedKnown = blockedDevices(pool, cs)
	return pc
}

// blockedDevices finds the pool's devices whose own consumption exceeds an
// available counter; ok is false if some consumption in the pool is
// negative, so that adding a device could lower a sum.
func blockedDevices(pool *inventory.Pool, avail counterSets) (_ indexSet, ok bool) {
	var blocked indexSet
	for _, group := range [][]*inventory.Slice{pool.Targeting, pool.NotTargeting} {
		for _, s := range group {
			for _, d := range s.Devices {
				for _, use := range d.Spec.ConsumesCounters {
					have := avail[use.CounterSet]
					for cn, q := range use.Counters {
						if q.Value.Sign() < 0 {
							return nil, false
						}
						if a, ok := have[cn]; ok && a.Cmp(q.Value) < 0 {
							blocked = append(blocked, int32(d.Index))
						}
					}
				}
			}
		}
	}
	slices.Sort(blocked)
	return slices.Clip(slices.Compact(blocked)), true
}

// reserveCounters adds the device's counter consumption to this call's and
// keeps it if the pool's counters still fit; it reports whether it did.
//
// Upstream compares every counter of the pool after adding (§5.5). The
// same answer comes from less work: if some counter is already
// over-consumed by earlier allocations, every reservation fails; otherwise
// every counter fitted after the last successful reservation (releases
// only lower consumption), so only the device's own counters can stop
// fitting.
func (c *call) reserveCounters(cand candidate) bool {
	avail := c.a.available(cand.pool)
	if avail.overConsumed {
		return false
	}
	if avail.blocked.has(cand.dev.Index) {
		return false
	}
	consumed := c.consumed[cand.pool.ID]
	if consumed == nil {
		if n := len(c.spareSets); n > 0 {
			consumed, c.spareSets = c.spareSets[n-1], c.spareSets[:n-1]
		} else {
			consumed = counterSets{}
		}
		c.consumed[cand.pool.ID] = consumed
	}
	if !slices.Contains(c.touched, cand.pool.ID) {
		c.touched = append(c.touched, cand.pool.ID)
	}
	fits := true
	for _, use := range cand.dev.Spec.ConsumesCounters {
		set := consumed[use.CounterSet]
		if set == nil {
			set = map[string]resource.Quantity{}
			consumed[use.CounterSet] = set
		}
		have := avail.sets[use.CounterSet]
		for cn, q := range use.Counters {
			v, ok := set[cn]
			if !ok {
				v = q.Value.DeepCopy()
			} else {
				v.Add(q.Value)
			}
			set[cn] = v
			if a, ok := have[cn]; ok && a.Cmp(v) < 0 {
				fits = false
			}
		}
	}
	if !fits {
		c.releaseCounters(cand)
	}
	return fits
}

// releaseCounters undoes reserveCounters.
func (c *call) releaseCounters(cand candidate) {
	consumed := c.consumed[cand.pool.ID]
	for _, use := range cand.dev.Spec.ConsumesCounters {
		set := consumed[use.CounterSet]
		for cn, q := range use.Counters {
			v := set[cn]
			v.Sub(q.Value)
			set[cn] = v
		}
	}
}
