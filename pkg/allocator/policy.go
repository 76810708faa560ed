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
	"math"
	"slices"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Policy chooses among valid allocations. It never changes whether a
// claim fits: the search stays exhaustive and only its order changes.
type Policy string

const (
	// FirstFit takes the first valid allocation in upstream's search
	// order: exactly what upstream's allocator returns.
	FirstFit Policy = "FirstFit"
	// Packing prefers devices that leave the least capacity unused: a
	// partition on a partly used GPU before one on a fresh GPU, then the
	// smallest device that matches (a 4Gi ask takes a 40Gi GPU, not a
	// 141Gi one), then upstream's order.
	Packing Policy = "Packing"
)

// Policies lists the valid policies.
var Policies = []Policy{FirstFit, Packing}

// order returns the request's candidate positions in the policy's order,
// memoized per call and selector chain: it depends on nothing else of the
// request, and requests of one chain (twins', twins.go) walk alike.
func (c *call) order(r *request, sel *selection) []int {
	if o, ok := c.orders[r.chain]; ok {
		return o
	}
	type scored struct {
		pos        int
		used, size float64
	}
	var list []scored
	for i, more := sel.candidates.NextSet(0); more; i, more = sel.candidates.NextSet(i + 1) {
		cand := c.cand(i)
		list = append(list, scored{pos: i, used: c.counterUse(cand), size: deviceSize(cand.dev)})
	}
	slices.SortStableFunc(list, func(a, b scored) int {
		switch {
		case a.used != b.used:
			if a.used > b.used {
				return -1
			}
			return 1
		case a.size != b.size:
			if a.size < b.size {
				return -1
			}
			return 1
		}
		return a.pos - b.pos
	})
	out := make([]int, len(list))
	for k, s := range list {
		out[k] = s.pos
	}
	if c.orders == nil {
		c.orders = map[int][]int{}
	}
	c.orders[r.chain] = out
	return out
}

// deviceSize summarizes a device's capacities on a log scale, so that
// capacities of different units weigh alike: smaller devices first.
//
// The terms are summed in fixed point: capacities are a map, and adding
// floats in its random iteration order gives sums that differ in the last
// bit, which made devices of equal capacities (the same profile on two
// GPUs) compare unequal, so that two calls with the same inputs picked
// different devices instead of keeping upstream's order between them.
func deviceSize(d *inventory.Device) float64 {
	var size int64
	for _, c := range d.Spec.Capacity {
		if v := c.Value.AsApproximateFloat64(); v > 0 {
			size += int64(math.Round(min(math.Log2(1+v), maxSizeTerm) * sizeUnit))
		}
	}
	return float64(size) / sizeUnit
}

// Fixed point for deviceSize: a term is at most maxSizeTerm (log2 of the
// largest float64; an infinite value counts as that), in units of
// 1/sizeUnit, so that sums of thousands of terms fit in an int64.
const (
	maxSizeTerm = 1024
	sizeUnit    = 1 << 40
)

// counterUse is the largest fraction already used (by allocated devices)
// of any counter set the device draws from: partitions of a partly used
// GPU score higher than those of an untouched one.
func (c *call) counterUse(cand candidate) float64 {
	if len(cand.dev.Spec.ConsumesCounters) == 0 {
		return 0
	}
	avail := c.a.available(cand.pool)
	best := 0.0
	for _, use := range cand.dev.Spec.ConsumesCounters {
		set := cand.pool.CounterSets[use.CounterSet]
		if set == nil {
			continue
		}
		for name, total := range set.Counters {
			t := total.Value.AsApproximateFloat64()
			if t <= 0 {
				continue
			}
			left := avail.sets[use.CounterSet][name]
			if f := 1 - left.AsApproximateFloat64()/t; f > best {
				best = f
			}
		}
	}
	return best
}
