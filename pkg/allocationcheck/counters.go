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

package allocationcheck

import (
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
)

// checkCounters verifies rule 7 (partitionable devices).
//
// Without PartitionableDevices, a device that consumes counters cannot be
// allocated at all. With it, every counter set a newly allocated device
// consumes from must exist (once) in its pool as the node sees it (the
// slices of the generation that counts for the node, see buildInventory), and
// per (pool, counter set, counter) the consumption of
//
//   - every device the AllocatedState knows as allocated (dedicated, shared
//     or with aggregated capacity), plus
//   - every newly allocated device (dedicated, admin access or a share of a
//     multi-allocatable device),
//
// each device counted once however often it is allocated or shared, must not
// exceed the counter's value. Only counters that a newly allocated device
// consumes are judged: over-consumption that exists without these results is
// not theirs to answer for. (Upstream is stricter there — it refuses every
// counter-consuming device of a pool that is already over-consumed — and
// also charges an admin allocation of an already allocated device a second
// time; the checker counts physical consumption.)
func checkCounters(c *checker) []error {
	var errs []error
	newDevices := map[poolID]map[deviceID]counterUser{}
	for _, cv := range c.claims {
		for _, e := range cv.usable() {
			if len(e.dev.spec.ConsumesCounters) == 0 {
				continue
			}
			if !c.features.PartitionableDevices {
				errs = append(errs, cv.entryViolation(CheckCounters, e, "device consumes counters, but the PartitionableDevices feature is disabled"))
				continue
			}
			p := e.dev.pool.id
			if newDevices[p] == nil {
				newDevices[p] = map[deviceID]counterUser{}
			}
			if _, ok := newDevices[p][e.id]; !ok {
				newDevices[p][e.id] = counterUser{cv, e}
			}
		}
	}
	old := c.previouslyAllocated()
	for _, pid := range sortedPools(newDevices) {
		errs = append(errs, checkPoolCounters(c, c.inv.pools[pid], newDevices[pid], old)...)
		if c.features.CompatibilityGroups {
			errs = append(errs, checkCompatibilityGroups(c, c.inv.pools[pid], newDevices[pid], old)...)
		}
	}
	return errs
}

// counterUser is the first result entry that allocates a device.
type counterUser struct {
	cv *claimView
	e  *entry
}

// counterKey is (counter set, counter).
type counterKey struct{ set, counter string }

// checkPoolCounters judges one pool's counters, given the newly allocated
// devices of the pool that consume counters.
func checkPoolCounters(c *checker, p *pool, users map[deviceID]counterUser, old sets.Set[deviceID]) []error {
	var errs []error
	// The counters the new devices consume; their references must resolve.
	touched := map[counterKey][]deviceID{}
	for _, id := range sortedDevices(users) {
		u := users[id]
		for _, cc := range u.e.dev.spec.ConsumesCounters {
			set := p.counterSets[cc.CounterSet]
			switch {
			case set == nil:
				errs = append(errs, u.cv.entryViolation(CheckCounters, u.e, "device consumes from counter set %s, which pool %s does not define", cc.CounterSet, p.id))
				continue
			case slices.Contains(p.duplicateCounterSets, cc.CounterSet):
				errs = append(errs, u.cv.entryViolation(CheckCounters, u.e, "device consumes from counter set %s, which pool %s defines more than once", cc.CounterSet, p.id))
				continue
			}
			for name := range cc.Counters {
				if _, ok := set.Counters[name]; !ok {
					errs = append(errs, u.cv.entryViolation(CheckCounters, u.e, "device consumes counter %s, which counter set %s of pool %s does not have", name, cc.CounterSet, p.id))
					continue
				}
				if old.Has(id) {
					// Another share of a device that already consumes
					// its counters adds nothing.
					continue
				}
				key := counterKey{cc.CounterSet, name}
				touched[key] = append(touched[key], id)
			}
		}
	}
	// The consumption of old and new devices, each device once.
	consumers := map[deviceID]*device{}
	for id := range old {
		if id.poolID() != p.id {
			continue
		}
		for _, d := range c.inv.devices[id] {
			if d.inView {
				consumers[id] = d
				break
			}
		}
	}
	for id, u := range users {
		consumers[id] = u.e.dev
	}
	total := map[counterKey]*resource.Quantity{}
	for _, d := range consumers {
		for _, cc := range d.spec.ConsumesCounters {
			for name, counter := range cc.Counters {
				key := counterKey{cc.CounterSet, name}
				if total[key] == nil {
					total[key] = resource.NewQuantity(0, resource.DecimalSI)
				}
				total[key].Add(counter.Value)
			}
		}
	}
	keys := make([]counterKey, 0, len(touched))
	for key := range touched {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].set < keys[j].set || (keys[i].set == keys[j].set && keys[i].counter < keys[j].counter)
	})
	for _, key := range keys {
		available := p.counterSets[key.set].Counters[key.counter].Value
		if total[key].Cmp(available) <= 0 {
			continue
		}
		var names []string
		for _, id := range touched[key] {
			names = append(names, id.String())
		}
		first := users[touched[key][0]]
		errs = append(errs, first.cv.entryViolation(CheckCounters, first.e,
			"counter %s of counter set %s in pool %s is over-consumed: %s in use (previous allocations included), %s available; newly allocated consumers: %s",
			key.counter, key.set, p.id, total[key], &available, strings.Join(names, ", ")))
	}
	return errs
}

// previouslyAllocated returns every device that the AllocatedState lists in
// any of its three forms.
func (c *checker) previouslyAllocated() sets.Set[deviceID] {
	out := sets.New[deviceID]()
	state := c.in.Allocated
	for id := range state.AllocatedDevices {
		out.Insert(deviceID{id.Driver.String(), id.Pool.String(), id.Device.String()})
	}
	for id := range state.AllocatedSharedDeviceIDs {
		out.Insert(deviceID{id.Driver.String(), id.Pool.String(), id.Device.String()})
	}
	for id := range state.AggregatedCapacity {
		out.Insert(deviceID{id.Driver.String(), id.Pool.String(), id.Device.String()})
	}
	return out
}

func sortedPools[T any](m map[poolID]T) []poolID {
	out := make([]poolID, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func sortedDevices[T any](m map[deviceID]T) []deviceID {
	out := make([]deviceID, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
