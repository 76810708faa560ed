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
	"fmt"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// makeAllocated picks devices that other claims already use: single-allocation
// devices become dedicated allocations, multi-allocatable devices get shares
// (or dedicated allocations when ConsumableCapacity is off, as the scheduler
// records them then). Counters are respected unless OverConsumption hits,
// share capacity never exceeds the device's value.
func (g *generator) makeAllocated() {
	over := g.chance(g.o.OverConsumption)
	if over {
		g.note("allocated devices may over-consume counters")
	}
	for _, pool := range poolViews(g.c.Slices) {
		book := newCounterBook(pool)
		for _, pd := range pool.devices {
			d := pd.device
			if g.c.Allocated.Contains(pd.ref) {
				continue // duplicate device name in an invalid pool
			}
			multi := d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations && g.c.Features.ConsumableCapacity
			p := g.o.AllocatedDevice
			if multi {
				p = g.o.ExistingShare
			}
			if !g.chance(p) {
				continue
			}
			if len(d.ConsumesCounters) > 0 {
				if !over && !book.fits(d) {
					continue
				}
				book.charge(d)
			}
			if !multi {
				g.c.Allocated.Devices = append(g.c.Allocated.Devices, pd.ref)
				continue
			}
			used := map[resourceapi.QualifiedName]int64{}
			for k := range 1 + g.r.IntN(2) {
				g.c.Allocated.Shares = append(g.c.Allocated.Shares, Share{
					Device:   pd.ref,
					ShareID:  types.UID(hashUUID("share", fmt.Sprint(g.seed), pd.ref.String(), fmt.Sprint(k))),
					Consumed: g.shareConsumption(d, used),
				})
			}
		}
	}
}

// shareConsumption returns the consumed capacity of one share (nil for some
// shares): per capacity a policy-valid amount that keeps the sum of all
// shares (tracked in used) within the capacity's value.
func (g *generator) shareConsumption(d *resourceapi.Device, used map[resourceapi.QualifiedName]int64) map[resourceapi.QualifiedName]resource.Quantity {
	if g.chance(0.2) {
		return nil
	}
	names := make([]resourceapi.QualifiedName, 0, len(d.Capacity))
	for name := range d.Capacity {
		names = append(names, name)
	}
	slices.Sort(names)
	out := map[resourceapi.QualifiedName]resource.Quantity{}
	for _, name := range names {
		c := d.Capacity[name]
		value := c.Value.Value()
		var amount int64
		if c.RequestPolicy != nil && c.RequestPolicy.Default != nil && g.chance(0.5) {
			amount = c.RequestPolicy.Default.Value()
		} else {
			amount = policyFloor(c, value*pick(g, []int64{1, 2, 4})/10)
		}
		if amount <= 0 || used[name]+amount > value {
			continue
		}
		used[name] += amount
		out[name] = *resource.NewQuantity(amount, c.Value.Format)
	}
	return out
}
