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
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Compatibility groups (DRADeviceCompatibilityGroups, alpha): a device's
// counter consumption may name groups; devices consuming from one counter
// set may be allocated together only if all of them share a group — the
// running intersection of their groups stays non-empty — and devices
// without groups only go with others without. Allocated devices of the pool
// count (their groups read from the slices as they are now), and so do the
// devices this call takes for any claim. Devices on different counter sets
// are never compared. A device that breaks the rule is passed over, not an
// error. Without the feature the inventory ignores slices that use groups,
// which leaves their pools incomplete. This is upstream's experimental
// allocator's rule.

// groupIntersection is what the devices on one counter set have in
// common. Values are immutable: add returns a new one.
type groupIntersection struct {
	// members is false until a device is on the counter set.
	members bool
	// allEmpty: every member so far has no groups.
	allEmpty bool
	// groups is the members' common groups (members && !allEmpty).
	groups sets.Set[string]
}

// admits reports whether a device with groups g may join.
func (gi groupIntersection) admits(g []string) bool {
	switch {
	case !gi.members:
		return true
	case len(g) == 0:
		return gi.allEmpty
	case gi.allEmpty:
		return false
	}
	for _, name := range g {
		if gi.groups.Has(name) {
			return true
		}
	}
	return false
}

// add returns the intersection with a device with groups g joined.
func (gi groupIntersection) add(g []string) groupIntersection {
	if !gi.members {
		return groupIntersection{members: true, allEmpty: len(g) == 0, groups: sets.New(g...)}
	}
	if gi.allEmpty || len(g) == 0 {
		return gi
	}
	return groupIntersection{members: true, groups: gi.groups.Intersection(sets.New(g...))}
}

// groupKey names one counter set of one pool.
type groupKey struct {
	pool inventory.PoolID
	set  string
}

// admitGroups checks a device against the intersections of the counter
// sets it consumes from and, if it fits all, records it (releaseGroups
// undoes that).
func (c *call) admitGroups(cand candidate) bool {
	uses := cand.dev.Spec.ConsumesCounters
	for _, use := range uses {
		if !c.groupsOf(cand.pool, use.CounterSet).admits(use.CompatibilityGroups) {
			return false
		}
	}
	if c.groups == nil {
		c.groups = map[groupKey][]groupIntersection{}
	}
	for _, use := range uses {
		key := groupKey{cand.pool.ID, use.CounterSet}
		cur := c.groupsOf(cand.pool, use.CounterSet)
		c.groups[key] = append(c.groups[key], cur.add(use.CompatibilityGroups))
	}
	return true
}

// releaseGroups undoes the device's admitGroups.
func (c *call) releaseGroups(cand candidate) {
	for _, use := range cand.dev.Spec.ConsumesCounters {
		key := groupKey{cand.pool.ID, use.CounterSet}
		stack := c.groups[key]
		c.groups[key] = stack[:len(stack)-1]
	}
}

// groupsOf is the counter set's current intersection: the last one this
// call recorded, else the allocated devices'.
func (c *call) groupsOf(pool *inventory.Pool, set string) groupIntersection {
	if stack := c.groups[groupKey{pool.ID, set}]; len(stack) > 0 {
		return stack[len(stack)-1]
	}
	return c.a.available(pool).groups[set]
}
