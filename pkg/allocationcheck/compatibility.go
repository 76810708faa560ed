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
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
)

// checkCompatibilityGroups verifies, with CompatibilityGroups
// (DRADeviceCompatibilityGroups, alpha), part of rule 7: per (pool,
// counter set) the devices consuming from it — previously allocated ones,
// groups as their slices now say, then the newly allocated ones — either
// all name no compatibility group, or all name groups with at least one
// group common to all. A new device is judged against what the devices
// before it have in common. Where earlier allocations already disagree
// among themselves (the allocator's running intersection then depends on
// the order it meets them in), new devices on that counter set are not
// judged: that is not the results' to answer for.
func checkCompatibilityGroups(c *checker, p *pool, users map[deviceID]counterUser, old sets.Set[deviceID]) []error {
	type common struct {
		members, allEmpty bool
		// inconsistent: previously allocated devices disagree.
		inconsistent bool
		groups       sets.Set[string]
		who          []string
	}
	state := map[string]*common{}
	join := func(set string, groups []string, who string) (ok bool, before common) {
		cur := state[set]
		if cur == nil {
			cur = &common{}
			state[set] = cur
		}
		before = *cur
		switch {
		case !cur.members:
			cur.members, cur.allEmpty, cur.groups = true, len(groups) == 0, sets.New(groups...)
		case len(groups) == 0:
			ok = cur.allEmpty
		case cur.allEmpty:
			ok = false
		default:
			next := cur.groups.Intersection(sets.New(groups...))
			if ok = next.Len() > 0; ok {
				cur.groups = next
			}
		}
		if !before.members {
			ok = true
		}
		cur.who = append(cur.who, who)
		return ok, before
	}
	var oldIDs []deviceID
	for id := range old {
		if id.poolID() == p.id {
			oldIDs = append(oldIDs, id)
		}
	}
	sort.Slice(oldIDs, func(i, j int) bool { return oldIDs[i].String() < oldIDs[j].String() })
	for _, id := range oldIDs {
		if _, isNew := users[id]; isNew {
			continue
		}
		for _, d := range c.inv.devices[id] {
			if !d.inView {
				continue
			}
			for _, cc := range d.spec.ConsumesCounters {
				if ok, _ := join(cc.CounterSet, cc.CompatibilityGroups, id.String()+" (allocated)"); !ok {
					state[cc.CounterSet].inconsistent = true
				}
			}
			break
		}
	}
	var errs []error
	for _, id := range sortedDevices(users) {
		u := users[id]
		if old.Has(id) {
			continue // another share: checked when first allocated
		}
		for _, cc := range u.e.dev.spec.ConsumesCounters {
			if cur := state[cc.CounterSet]; cur != nil && cur.inconsistent {
				continue
			}
			if ok, before := join(cc.CounterSet, cc.CompatibilityGroups, id.String()); !ok {
				have := "no group"
				if !before.allEmpty {
					have = fmt.Sprintf("only %q in common", sets.List(before.groups))
				}
				errs = append(errs, u.cv.entryViolation(CheckCounters, u.e,
					"device's compatibility groups %q on counter set %s of pool %s are incompatible with its other consumers (%s), which have %s",
					cc.CompatibilityGroups, cc.CounterSet, p.id, strings.Join(before.who, ", "), have))
			}
		}
	}
	return errs
}
