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
	"cmp"
	"slices"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// poolView is a pool as the allocator orders it: the slices of the highest
// generation sorted by name, devices in slice order. Used to pick allocated
// devices consistently with counters.
type poolView struct {
	driver, name string
	devices      []poolDevice
	// counters: counter set name -> counter name -> total (the first
	// definition of a set wins).
	counters map[string]map[string]resource.Quantity
}

type poolDevice struct {
	ref    DeviceRef
	device *resourceapi.Device
}

// poolViews groups slices into pools, ordered by (driver, pool) byte-wise.
func poolViews(all []*resourceapi.ResourceSlice) []*poolView {
	type key struct{ driver, pool string }
	latest := map[key]int64{}
	for _, s := range all {
		k := key{s.Spec.Driver, s.Spec.Pool.Name}
		if g, ok := latest[k]; !ok || s.Spec.Pool.Generation > g {
			latest[k] = s.Spec.Pool.Generation
		}
	}
	bySlices := map[key][]*resourceapi.ResourceSlice{}
	var keys []key
	for _, s := range all {
		k := key{s.Spec.Driver, s.Spec.Pool.Name}
		if s.Spec.Pool.Generation != latest[k] {
			continue
		}
		if _, ok := bySlices[k]; !ok {
			keys = append(keys, k)
		}
		bySlices[k] = append(bySlices[k], s)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(strings.Compare(a.driver, b.driver), strings.Compare(a.pool, b.pool))
	})
	views := make([]*poolView, 0, len(keys))
	for _, k := range keys {
		v := &poolView{driver: k.driver, name: k.pool, counters: map[string]map[string]resource.Quantity{}}
		ss := slices.Clone(bySlices[k])
		slices.SortStableFunc(ss, func(a, b *resourceapi.ResourceSlice) int { return strings.Compare(a.Name, b.Name) })
		for _, s := range ss {
			for _, cs := range s.Spec.SharedCounters {
				if _, ok := v.counters[cs.Name]; ok {
					continue
				}
				set := map[string]resource.Quantity{}
				for name, c := range cs.Counters {
					set[name] = c.Value.DeepCopy()
				}
				v.counters[cs.Name] = set
			}
			for i := range s.Spec.Devices {
				d := &s.Spec.Devices[i]
				v.devices = append(v.devices, poolDevice{ref: DeviceRef{Driver: k.driver, Pool: k.pool, Device: d.Name}, device: d})
			}
		}
		views = append(views, v)
	}
	return views
}

// counterBook tracks counter consumption of one pool.
type counterBook struct {
	total map[string]map[string]resource.Quantity
	used  map[string]map[string]resource.Quantity
}

func newCounterBook(v *poolView) *counterBook {
	return &counterBook{total: v.counters, used: map[string]map[string]resource.Quantity{}}
}

// fits reports whether the device's consumption fits into what is left;
// consumption of unknown sets or counters never fits.
func (b *counterBook) fits(d *resourceapi.Device) bool {
	for _, cc := range d.ConsumesCounters {
		set, ok := b.total[cc.CounterSet]
		if !ok {
			return false
		}
		for name, c := range cc.Counters {
			total, ok := set[name]
			if !ok {
				return false
			}
			after := b.used[cc.CounterSet][name].DeepCopy()
			after.Add(c.Value)
			if after.Cmp(total) > 0 {
				return false
			}
		}
	}
	return true
}

// fillAfter is the highest used/total ratio over the counters (with a total
// above 1) of the sets the device consumes from, after charging it.
// Per-slot counters with total 1 (MIG memory slices, OFA engines) are left
// out: they are either free or full and say nothing about the fill level.
func (b *counterBook) fillAfter(d *resourceapi.Device) float64 {
	one := resource.MustParse("1")
	fill := 0.0
	for _, cc := range d.ConsumesCounters {
		for name, total := range b.total[cc.CounterSet] {
			if total.Cmp(one) <= 0 {
				continue
			}
			after := b.used[cc.CounterSet][name].DeepCopy()
			if c, ok := cc.Counters[name]; ok {
				after.Add(c.Value)
			}
			fill = max(fill, after.AsApproximateFloat64()/total.AsApproximateFloat64())
		}
	}
	return fill
}

// charge adds the device's consumption.
func (b *counterBook) charge(d *resourceapi.Device) {
	for _, cc := range d.ConsumesCounters {
		if b.used[cc.CounterSet] == nil {
			b.used[cc.CounterSet] = map[string]resource.Quantity{}
		}
		for name, c := range cc.Counters {
			q := b.used[cc.CounterSet][name].DeepCopy()
			q.Add(c.Value)
			b.used[cc.CounterSet][name] = q
		}
	}
}
