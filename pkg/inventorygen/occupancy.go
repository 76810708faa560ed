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

package inventorygen

import (
	"math"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// Occupancy marks about fraction (0..1) of every pool of the cluster as
// already allocated, deterministically, as a first-fit scheduler filling
// the cluster would leave it. Per pool (driver, pool name; highest
// generation; slices by name):
//
//   - plain devices (no counters, single allocation): device i of the pool's
//     plain devices is allocated iff floor((i+1)·f) > floor(i·f), i.e. evenly
//     spread (f = 0.5: every second device, starting with the second; f = 1:
//     all);
//   - devices consuming counters (partitionable devices such as dynamic MIG):
//     taken in pool order while they fit into the remaining counters and the
//     fill level of their counter sets (highest used/total over counters with
//     a total above 1) stays <= f. With f = 1 the first device of each
//     counter set is the full GPU, which takes everything; with 0 < f < 1
//     small MIG devices are allocated. Counters are never over-consumed;
//   - multi-allocatable devices get one share consuming, per capacity, the
//     largest amount allowed by its request policy that is <= f·value
//     (nothing if that is zero for every capacity); counters they consume are
//     charged once, as upstream does.
//
// f <= 0 returns an empty Allocated; f >= 1 is treated as 1.
func Occupancy(c Cluster, fraction float64) Allocated {
	var out Allocated
	if fraction <= 0 {
		return out
	}
	fraction = min(fraction, 1)
	for _, pool := range poolViews(c.Slices) {
		book := newCounterBook(pool)
		plain := 0
		for _, pd := range pool.devices {
			d := pd.device
			switch {
			case d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations:
				consumed := consumeFraction(d, fraction)
				if len(consumed) == 0 {
					continue
				}
				if len(d.ConsumesCounters) > 0 {
					if !book.fits(d) || book.fillAfter(d) > fraction+1e-9 {
						continue
					}
					book.charge(d)
				}
				out.Shares = append(out.Shares, Share{
					Device:   pd.ref,
					ShareID:  types.UID(hashUUID("share", pd.ref.String(), "0")),
					Consumed: consumed,
				})
			case len(d.ConsumesCounters) > 0:
				if book.fits(d) && book.fillAfter(d) <= fraction+1e-9 {
					book.charge(d)
					out.Devices = append(out.Devices, pd.ref)
				}
			default:
				if math.Floor(float64(plain+1)*fraction+1e-9) > math.Floor(float64(plain)*fraction+1e-9) {
					out.Devices = append(out.Devices, pd.ref)
				}
				plain++
			}
		}
	}
	return out
}

// consumeFraction returns, per capacity of a multi-allocatable device, the
// largest policy-valid amount <= fraction·value, leaving out zero amounts.
func consumeFraction(d *resourceapi.Device, fraction float64) map[resourceapi.QualifiedName]resource.Quantity {
	names := make([]resourceapi.QualifiedName, 0, len(d.Capacity))
	for name := range d.Capacity {
		names = append(names, name)
	}
	slices.Sort(names)
	out := map[resourceapi.QualifiedName]resource.Quantity{}
	for _, name := range names {
		c := d.Capacity[name]
		target := int64(math.Floor(float64(c.Value.Value()) * fraction))
		amount := policyFloor(c, target)
		if amount > 0 {
			out[name] = *resource.NewQuantity(amount, c.Value.Format)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// policyFloor is the largest amount <= target that the capacity's request
// policy accepts (0 if none), using integer values.
func policyFloor(c resourceapi.DeviceCapacity, target int64) int64 {
	p := c.RequestPolicy
	switch {
	case p == nil:
		return target
	case p.ValidRange != nil && p.ValidRange.Min != nil:
		lo := p.ValidRange.Min.Value()
		if target < lo {
			return 0
		}
		if p.ValidRange.Max != nil {
			target = min(target, p.ValidRange.Max.Value())
		}
		if p.ValidRange.Step != nil && p.ValidRange.Step.Value() > 0 {
			step := p.ValidRange.Step.Value()
			target = lo + (target-lo)/step*step
		}
		return target
	case len(p.ValidValues) > 0:
		best := int64(0)
		for _, v := range p.ValidValues {
			if v.Value() <= target {
				best = max(best, v.Value())
			}
		}
		return best
	default:
		return target
	}
}
