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

package inventory

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
)

// Compare reports how the inventory differs from want, what it should
// hold: the ResourceSlices as the API has them, with DeviceTaintRules
// applied by the caller as they were when the slices were Set. Slices are
// matched by name, so the inventory must keep them by name (Set).
//
// Slices whose change is queued, not applied yet (queued)
// are left out on both sides, and so are their pools' summaries. Every
// other slice must be the same: its pool, generation and slice count,
// node selection and shared counters, and its devices by name with their
// attributes, capacity, counters consumed, taints and other fields. For
// each pool without such a difference, the generation, slice count and
// completeness the pool index gives must be the API's. Last, the
// inventory's own indexes must agree with its slices (checkIndexes).
//
// Like Pools, Compare only reads: it may run beside Pools, not beside Set
// or Remove.
func (inv *Inventory) Compare(want []*resourceapi.ResourceSlice, queued func(name string) bool) []drift.Difference {
	var l drift.List
	// unsettled are pools whose summary slice differences or queued
	// slices already explain.
	unsettled := map[PoolID]bool{}
	wanted := make(map[string]*resourceapi.ResourceSlice, len(want))
	for _, w := range want {
		id := poolOf(w)
		if queued(w.Name) {
			unsettled[id] = true
			continue
		}
		wanted[w.Name] = w
		s := inv.slices[w.Name]
		if s == nil {
			l.Add(drift.Slice, poolObject(id), "slice %s (generation %d) missing in the inventory", w.Name, w.Spec.Pool.Generation)
			unsettled[id] = true
			continue
		}
		before := l.Len()
		compareSlice(&l, s, w)
		if l.Len() > before {
			unsettled[id], unsettled[s.Pool()] = true, true
		}
	}
	for key, s := range inv.slices {
		if _, ok := wanted[key]; ok {
			continue
		}
		unsettled[s.Pool()] = true
		if !queued(key) {
			l.Add(drift.Slice, poolObject(s.Pool()), "slice %s (generation %d) in the inventory, deleted in the API", key, s.Obj.Spec.Pool.Generation)
		}
	}
	inv.comparePools(&l, wanted, unsettled)
	inv.checkIndexes(&l)
	return l.Sorted()
}

func poolOf(s *resourceapi.ResourceSlice) PoolID {
	return PoolID{Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name}
}

func poolObject(id PoolID) string { return "pool " + id.String() }

// compareSlice adds the differences between the inventory's slice s and
// the API's w, of the same name.
func compareSlice(l *drift.List, s *Slice, w *resourceapi.ResourceSlice) {
	got := s.Obj
	if got == w {
		return // the very object: the indexes' check covers the devices
	}
	id, obj := s.Pool(), poolObject(s.Pool())
	if want := poolOf(w); want != id {
		l.Add(drift.Slice, poolObject(want), "slice %s is in pool %s in the inventory", w.Name, id)
		return
	}
	if g, w := got.Spec.Pool.Generation, w.Spec.Pool.Generation; g != w {
		l.Add(drift.Pool, obj, "slice %s of generation %d in the API, %d in the inventory", s.Key(), w, g)
	}
	if g, w := got.Spec.Pool.ResourceSliceCount, w.Spec.Pool.ResourceSliceCount; g != w {
		l.Add(drift.Pool, obj, "slice %s counts %d slices in the pool in the API, %d in the inventory", s.Key(), w, g)
	}
	if !apiequality.Semantic.DeepEqual(nodeSelectionOf(&got.Spec), nodeSelectionOf(&w.Spec)) {
		l.Add(drift.Slice, obj, "slice %s selects nodes by %s in the API, by %s in the inventory", s.Key(), toJSON(nodeSelectionOf(&w.Spec)), toJSON(nodeSelectionOf(&got.Spec)))
	}
	if !apiequality.Semantic.DeepEqual(got.Spec.SharedCounters, w.Spec.SharedCounters) {
		l.Add(drift.Slice, obj, "slice %s shares counters %s in the API, %s in the inventory", s.Key(), toJSON(w.Spec.SharedCounters), toJSON(got.Spec.SharedCounters))
	}
	have := map[string]*resourceapi.Device{}
	for i := range got.Spec.Devices {
		have[got.Spec.Devices[i].Name] = &got.Spec.Devices[i]
	}
	for i := range w.Spec.Devices {
		wd := &w.Spec.Devices[i]
		gd := have[wd.Name]
		if gd == nil {
			l.Add(drift.Device, obj, "device %s of slice %s missing in the inventory", wd.Name, s.Key())
			continue
		}
		delete(have, wd.Name)
		compareDevice(l, obj, s.Key(), gd, wd)
	}
	for _, name := range slices.Sorted(maps.Keys(have)) {
		l.Add(drift.Device, obj, "device %s of slice %s in the inventory, not in the API", name, s.Key())
	}
}

// sliceNodes is what of a slice says where its devices are.
type sliceNodes struct {
	NodeName               *string          `json:"nodeName,omitempty"`
	NodeSelector           *v1.NodeSelector `json:"nodeSelector,omitempty"`
	AllNodes               *bool            `json:"allNodes,omitempty"`
	PerDeviceNodeSelection *bool            `json:"perDeviceNodeSelection,omitempty"`
}

func nodeSelectionOf(spec *resourceapi.ResourceSliceSpec) sliceNodes {
	return sliceNodes{NodeName: spec.NodeName, NodeSelector: spec.NodeSelector, AllNodes: spec.AllNodes, PerDeviceNodeSelection: spec.PerDeviceNodeSelection}
}

// compareDevice adds a difference per part of the device that differs:
// attributes, capacity, counters consumed, taints, the rest.
func compareDevice(l *drift.List, obj, slice string, got, want *resourceapi.Device) {
	if attrs := differentKeys(got.Attributes, want.Attributes); len(attrs) > 0 {
		l.Add(drift.Device, obj, "device %s of slice %s: attributes %s in the API, %s in the inventory",
			want.Name, slice, renderEntries(want.Attributes, attrs), renderEntries(got.Attributes, attrs))
	}
	if caps := differentKeys(got.Capacity, want.Capacity); len(caps) > 0 {
		l.Add(drift.Device, obj, "device %s of slice %s: capacity %s in the API, %s in the inventory",
			want.Name, slice, renderEntries(want.Capacity, caps), renderEntries(got.Capacity, caps))
	}
	if !apiequality.Semantic.DeepEqual(got.ConsumesCounters, want.ConsumesCounters) {
		l.Add(drift.Device, obj, "device %s of slice %s: consumes counters %s in the API, %s in the inventory",
			want.Name, slice, toJSON(want.ConsumesCounters), toJSON(got.ConsumesCounters))
	}
	if !apiequality.Semantic.DeepEqual(got.Taints, want.Taints) {
		l.Add(drift.Device, obj, "device %s of slice %s: taints %s in the API (DeviceTaintRules applied), %s in the inventory",
			want.Name, slice, renderTaints(want.Taints), renderTaints(got.Taints))
	}
	g, w := *got, *want
	g.Attributes, g.Capacity, g.ConsumesCounters, g.Taints = nil, nil, nil, nil
	w.Attributes, w.Capacity, w.ConsumesCounters, w.Taints = nil, nil, nil, nil
	if !apiequality.Semantic.DeepEqual(g, w) {
		l.Add(drift.Device, obj, "device %s of slice %s: other fields %s in the API, %s in the inventory",
			want.Name, slice, toJSON(w), toJSON(g))
	}
}

// differentKeys returns the keys whose values differ between a and b, or
// that only one has, sorted.
func differentKeys[K ~string, V any](a, b map[K]V) []K {
	var out []K
	for k, va := range a {
		if vb, ok := b[k]; !ok || !apiequality.Semantic.DeepEqual(va, vb) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// renderEntries renders m's entries for keys as {key=value, ...}, a key m
// lacks as key=<none>.
func renderEntries[K ~string, V any](m map[K]V, keys []K) string {
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			parts = append(parts, string(k)+"=<none>")
			continue
		}
		parts = append(parts, string(k)+"="+toJSON(v))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func renderTaints(taints []resourceapi.DeviceTaint) string {
	parts := make([]string, 0, len(taints))
	for _, t := range taints {
		parts = append(parts, fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// toJSON renders v compactly, as the API would.
func toJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(data)
}

// poolSummary is what decides whether a pool is usable: its newest
// generation and how many slices of it there are out of how many there
// should be.
type poolSummary struct {
	generation int64
	slices     int
	want       int64
}

func (p poolSummary) complete() bool { return int64(p.slices) == p.want }

func (p poolSummary) String() string {
	state := "complete"
	if !p.complete() {
		state = "incomplete"
	}
	return fmt.Sprintf("%s (%d of %d slices of generation %d)", state, p.slices, p.want, p.generation)
}

// summarize adds a slice of the pool to its summary.
func (p poolSummary) add(s *resourceapi.ResourceSlice) poolSummary {
	switch g := s.Spec.Pool.Generation; {
	case p.slices == 0 || g > p.generation:
		return poolSummary{generation: g, slices: 1, want: s.Spec.Pool.ResourceSliceCount}
	case g == p.generation:
		p.slices++
		p.want = max(p.want, s.Spec.Pool.ResourceSliceCount)
	}
	return p
}

// comparePools compares, for every pool not unsettled, the summary of the
// API's slices with the one the inventory's pool index gives.
func (inv *Inventory) comparePools(l *drift.List, want map[string]*resourceapi.ResourceSlice, unsettled map[PoolID]bool) {
	api := map[PoolID]poolSummary{}
	for _, w := range want {
		if id := poolOf(w); !unsettled[id] {
			api[id] = api[id].add(w)
		}
	}
	for id, m := range inv.byPool {
		if unsettled[id] {
			continue
		}
		var got poolSummary
		for _, s := range m {
			got = got.add(s.Obj)
		}
		w, ok := api[id]
		delete(api, id)
		switch {
		case !ok:
			l.Add(drift.Pool, poolObject(id), "in the inventory's pool index, not in the API")
		case got.generation != w.generation:
			l.Add(drift.Pool, poolObject(id), "generation %d in the API, %d in the inventory", w.generation, got.generation)
		case got != w:
			l.Add(drift.Pool, poolObject(id), "%s in the API, %s in the inventory", w, got)
		}
	}
	for _, id := range slices.SortedFunc(maps.Keys(api), func(a, b PoolID) int {
		return cmp.Or(cmp.Compare(a.Driver, b.Driver), cmp.Compare(a.Pool, b.Pool))
	}) {
		l.Add(drift.Pool, poolObject(id), "%s in the API, not in the inventory's pool index", api[id])
	}
}
