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

package allocator_test

// The rules of the brute-force property test (bruteforce_test.go), read
// from the API (k8s.io/api/resource/v1) and upstream's documented
// behaviour (docs/design/upstream-allocator.md), never from either
// allocator's code: what makes an assignment of devices to requests
// valid.

import (
	"fmt"
	"slices"
	"strconv"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// allSet is what an All spec must take: every device it selects whose
// capacity could hold the request on its own.
func (c *bfCase) allSet(s bfSpec) []int {
	var out []int
	for i, d := range c.devices {
		if (s.kind == "" || d.kind == s.kind) && (s.capacity == 0 || d.capacity >= s.capacity) {
			out = append(out, i)
		}
	}
	return out
}

// unusable says why spec s may not take device i whatever else is taken,
// "" if it may.
func (c *bfCase) unusable(s bfSpec, i int) string {
	d := &c.devices[i]
	switch {
	case s.kind != "" && d.kind != s.kind:
		return d.name + " is not selected"
	case (d.taint == resourceapi.DeviceTaintEffectNoSchedule || d.taint == resourceapi.DeviceTaintEffectNoExecute) && !s.tolerate:
		return d.name + " has an untolerated taint"
	case d.dedicated:
		return d.name + " is allocated"
	case s.capacity > 0 && d.capacity < s.capacity:
		return d.name + " lacks the capacity asked for"
	}
	return ""
}

// violation says which rule the assignment picks breaks, "" if none: one
// alternative and the right devices per request (for a complete
// assignment, each request has them), usable devices, a dedicated device
// once, capacity and shared counters not exceeded (a device's counters
// charged once, never again for a persisted share; a pool already
// over-consumed admits no new consumer), and the claims' constraints.
func (c *bfCase) violation(picks []bfPick, complete bool) string {
	type reqKey struct{ claim, req int }
	byReq := map[reqKey][]bfPick{}
	uses := map[int]int{}
	for _, p := range picks {
		byReq[reqKey{p.claim, p.req}] = append(byReq[reqKey{p.claim, p.req}], p)
		uses[p.dev]++
		if why := c.unusable(c.specOf(p), p.dev); why != "" {
			return fmt.Sprintf("c%d/r%d: %s", p.claim, p.req, why)
		}
	}
	for ci, cl := range c.claims {
		for q := range cl.requests {
			ps := byReq[reqKey{ci, q}]
			if len(ps) == 0 && !complete {
				continue
			}
			if len(ps) == 0 {
				return fmt.Sprintf("c%d/r%d has no device", ci, q)
			}
			devs := sets.New[int]()
			for _, p := range ps {
				if p.sub != ps[0].sub || devs.Has(p.dev) {
					return fmt.Sprintf("c%d/r%d takes two alternatives or a device twice", ci, q)
				}
				devs.Insert(p.dev)
			}
			if s := c.specOf(ps[0]); (s.all && !devs.Equal(sets.New(c.allSet(s)...))) || (!s.all && len(ps) != s.count) {
				return fmt.Sprintf("c%d/r%d takes %v, not what it asks for", ci, q, sets.List(devs))
			}
		}
	}
	for i, d := range c.devices {
		if !d.multi && uses[i] > 1 {
			return d.name + " is taken twice"
		}
		total := d.allocated
		for _, p := range picks {
			if p.dev == i {
				if s := c.specOf(p); s.capacity > 0 {
					total += s.capacity
				} else {
					total += d.capacity
				}
			}
		}
		if total > d.capacity {
			return d.name + "'s capacity is exceeded"
		}
	}
	if why := c.counterViolation(uses); why != "" {
		return why
	}
	for ci, cl := range c.claims {
		for _, con := range cl.constraints {
			var covered []bfValue
			for _, p := range picks {
				if p.claim != ci || (con.requests != nil && !slices.Contains(con.requests, "r"+strconv.Itoa(p.req))) {
					continue
				}
				d := &c.devices[p.dev]
				if d.numa == nil {
					return fmt.Sprintf("c%d: %s lacks the constrained attribute", ci, d.name)
				}
				covered = append(covered, bfValue{d.str, d.numa})
			}
			if why := bfConstraintViolation(con.distinct, covered); why != "" {
				return fmt.Sprintf("c%d: %s", ci, why)
			}
		}
	}
	return c.crossViolation(picks)
}

// counterViolation checks the pools' shared counters for the devices
// used (device index -> times taken).
func (c *bfCase) counterViolation(uses map[int]int) string {
	for p, pool := range c.pools {
		charged := false
		consumed := map[string]map[string]int64{}
		for i, d := range c.devices {
			if d.pool != p || d.set == "" {
				continue
			}
			held := d.dedicated || d.persisted()
			newly := uses[i] > 0 && !(d.multi && d.persisted())
			if !held && !newly {
				continue
			}
			charged = charged || newly
			if consumed[d.set] == nil {
				consumed[d.set] = map[string]int64{}
			}
			for cn, v := range d.counters {
				consumed[d.set][cn] += v
			}
		}
		if !charged {
			continue
		}
		for set, counters := range pool {
			for cn, v := range counters {
				if consumed[set][cn] > v {
					return fmt.Sprintf("counter %s/%s of pool %s: %d consumed, %d available", set, cn, bfPoolName(p), consumed[set][cn], v)
				}
			}
		}
	}
	return ""
}

// bfValue is a device's constrained attribute as a set: a list, or a
// scalar as a set of one; str marks a string scalar, never equal to an
// int.
type bfValue struct {
	str  bool
	vals []int64
}

// bfConstraintViolation judges the covered devices' values:
// matchAttribute needs an element common to all (of one kind),
// distinctAttribute pairwise disjoint sets.
func bfConstraintViolation(distinct bool, covered []bfValue) string {
	if !distinct {
		if len(covered) == 0 {
			return ""
		}
		common := sets.New(covered[0].vals...)
		for _, v := range covered[1:] {
			if v.str != covered[0].str {
				common = nil
				break
			}
			common = common.Intersection(sets.New(v.vals...))
		}
		if common.Len() == 0 {
			return fmt.Sprintf("matchAttribute: %v have no value in common", covered)
		}
		return ""
	}
	for i := range covered {
		for j := range i {
			if covered[i].str == covered[j].str && sets.New(covered[i].vals...).HasAny(covered[j].vals...) {
				return fmt.Sprintf("distinctAttribute: %v and %v overlap", covered[i], covered[j])
			}
		}
	}
	return ""
}
