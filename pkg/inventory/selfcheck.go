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
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
)

// Marks checkIndexes keeps per device index: the device at the index
// belongs to a slice kept, and which lookups found it.
const (
	inSlices uint8 = 1 << iota
	inLookupByName
	inLookupByID
)

// checkIndexes adds a drift.Index difference for every index entry that
// disagrees with the slices the inventory keeps: each slice must be in
// the node or shared index and the pool index under its key; each of its
// devices must point back at it and at its spec, hold its dense index,
// and be found by driver/pool/name in both lookups. Entries the other way
// round — in an index, not among the slices — are differences too. It
// allocates one byte per device index.
func (inv *Inventory) checkIndexes(l *drift.List) {
	marks := make([]uint8, len(inv.devices))
	// misplaced are devices of kept slices whose index holds another.
	misplaced := map[*Device]bool{}
	for key, s := range inv.slices {
		obj := poolObject(s.Pool())
		if s.key != key {
			l.Add(drift.Index, obj, "slice %s kept under key %s", s.key, key)
		}
		if node := ptr.Deref(s.Obj.Spec.NodeName, ""); node != "" {
			if inv.onNode[node][key] != s {
				l.Add(drift.Index, obj, "slice %s missing from the index of node %s", key, node)
			}
		} else if inv.shared[key] != s {
			l.Add(drift.Index, obj, "slice %s missing from the index of slices without a node name", key)
		}
		if inv.byPool[s.Pool()][key] != s {
			l.Add(drift.Index, obj, "slice %s missing from the pool index", key)
		}
		if len(s.Devices) != len(s.Obj.Spec.Devices) {
			l.Add(drift.Index, obj, "slice %s has %d devices in the inventory, %d in its object", key, len(s.Devices), len(s.Obj.Spec.Devices))
			continue
		}
		for i, d := range s.Devices {
			spec := &s.Obj.Spec.Devices[i]
			switch {
			case d.Slice != s || d.Spec != spec || d.Driver != s.Obj.Spec.Driver || d.Pool != s.Obj.Spec.Pool.Name:
				l.Add(drift.Index, obj, "device %s of slice %s points at another slice or device", spec.Name, key)
			case inv.Device(d.Index) != d:
				l.Add(drift.Index, obj, "device %s of slice %s: index %d holds another device", spec.Name, key, d.Index)
				misplaced[d] = true
			default:
				marks[d.Index] |= inSlices
			}
		}
	}
	inv.checkReverse(l, marks, misplaced)
	for i, m := range marks {
		if m&inSlices == 0 {
			continue
		}
		d := inv.devices[i]
		if m&inLookupByName == 0 {
			l.Add(drift.Index, poolObject(PoolID{d.Driver, d.Pool}), "device %s of slice %s missing from the lookup by name", d.Name(), d.Slice.key)
		}
		if m&inLookupByID == 0 {
			l.Add(drift.Index, poolObject(PoolID{d.Driver, d.Pool}), "device %s of slice %s missing from the lookup by device ID", d.Name(), d.Slice.key)
		}
	}
}

// checkReverse finds index entries for slices or devices the inventory
// no longer keeps, and marks the devices each lookup finds.
func (inv *Inventory) checkReverse(l *drift.List, marks []uint8, misplaced map[*Device]bool) {
	// kept reports whether d is the device of a kept slice at its index
	// (to be marked), or one of a kept slice at a wrong index.
	kept := func(d *Device) (ok, mark bool) {
		if d != nil && inv.Device(d.Index) == d && marks[d.Index]&inSlices != 0 {
			return true, true
		}
		return misplaced[d], false
	}
	for node, m := range inv.onNode {
		for key, s := range m {
			if inv.slices[key] != s || ptr.Deref(s.Obj.Spec.NodeName, "") != node {
				l.Add(drift.Index, poolObject(s.Pool()), "slice %s in the index of node %s, not kept for it", key, node)
			}
		}
	}
	for key, s := range inv.shared {
		if inv.slices[key] != s {
			l.Add(drift.Index, poolObject(s.Pool()), "slice %s in the index of slices without a node name, not kept", key)
		}
	}
	for id, m := range inv.byPool {
		for key, s := range m {
			if inv.slices[key] != s || s.Pool() != id {
				l.Add(drift.Index, poolObject(id), "slice %s in the pool index, not kept for the pool", key)
			}
		}
	}
	for key, ds := range inv.byID {
		for _, d := range ds {
			ok, mark := kept(d)
			if !ok || d.Key() != key {
				l.Add(drift.Index, poolObject(PoolID{key.Driver, key.Pool}), "device %s in the lookup by name, of no slice kept", key.Device)
			} else if mark {
				marks[d.Index] |= inLookupByName
			}
		}
	}
	for id, ds := range inv.byHandle {
		for _, d := range ds {
			ok, mark := kept(d)
			if !ok || id.Driver.String() != d.Driver || id.Pool.String() != d.Pool || id.Device.String() != d.Name() {
				l.Add(drift.Index, poolObject(PoolID{id.Driver.String(), id.Pool.String()}), "device %s in the lookup by device ID, of no slice kept", id.Device.String())
			} else if mark {
				marks[d.Index] |= inLookupByID
			}
		}
	}
	for i, d := range inv.devices {
		if d != nil && (d.Index != i || marks[i]&inSlices == 0) && !misplaced[d] {
			l.Add(drift.Index, poolObject(PoolID{d.Driver, d.Pool}), "device %s at index %d, of no slice kept there", d.Name(), i)
		}
	}
	if n, kept := inv.NumDevices(), countMarked(marks)+len(misplaced); n != kept {
		l.Add(drift.Index, "inventory", "%d devices counted by index, %d in the slices", n, kept)
	}
}

func countMarked(marks []uint8) int {
	n := 0
	for _, m := range marks {
		if m&inSlices != 0 {
			n++
		}
	}
	return n
}
