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
	"slices"

	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
)

// checkIndexes adds a drift.Index difference for every index entry that
// disagrees with the slices the inventory keeps: each slice must be in
// the node or shared index and the pool index under its key; each of its
// devices must point back at it and at its spec, hold its dense index,
// and be found by driver/pool/name in both lookups. Entries the other way
// round — in an index, not among the slices — are differences too.
func (inv *Inventory) checkIndexes(l *drift.List) {
	live := make(map[*Device]bool, inv.NumDevices())
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
			live[d] = true
			inv.checkDevice(l, obj, s, i, d)
		}
	}
	if n := inv.NumDevices(); n != len(live) {
		l.Add(drift.Index, "inventory", "%d devices counted by index, %d in the slices", n, len(live))
	}
	inv.checkReverse(l, live)
}

// checkDevice checks the entries of device d, the i-th of slice s.
func (inv *Inventory) checkDevice(l *drift.List, obj string, s *Slice, i int, d *Device) {
	spec := &s.Obj.Spec.Devices[i]
	if d.Slice != s || d.Spec != spec || d.Driver != s.Obj.Spec.Driver || d.Pool != s.Obj.Spec.Pool.Name {
		l.Add(drift.Index, obj, "device %s of slice %s points at another slice or device", spec.Name, s.key)
		return
	}
	if inv.Device(d.Index) != d {
		l.Add(drift.Index, obj, "device %s of slice %s: index %d holds another device", spec.Name, s.key, d.Index)
	}
	if !slices.Contains(inv.byID[d.Key()], d) {
		l.Add(drift.Index, obj, "device %s of slice %s missing from the lookup by name", spec.Name, s.key)
	}
	if !slices.Contains(inv.byHandle[structured.MakeDeviceID(d.Driver, d.Pool, spec.Name)], d) {
		l.Add(drift.Index, obj, "device %s of slice %s missing from the lookup by device ID", spec.Name, s.key)
	}
}

// checkReverse finds index entries for slices or devices the inventory
// no longer keeps; live holds the devices of the slices it keeps.
func (inv *Inventory) checkReverse(l *drift.List, live map[*Device]bool) {
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
			if !live[d] || d.Key() != key {
				l.Add(drift.Index, poolObject(PoolID{key.Driver, key.Pool}), "device %s in the lookup by name, of no slice kept", key.Device)
			}
		}
	}
	for _, ds := range inv.byHandle {
		for _, d := range ds {
			if !live[d] {
				l.Add(drift.Index, poolObject(PoolID{d.Driver, d.Pool}), "device %s in the lookup by device ID, of no slice kept", d.Name())
			}
		}
	}
	for i, d := range inv.devices {
		if d != nil && (d.Index != i || !live[d]) {
			l.Add(drift.Index, poolObject(PoolID{d.Driver, d.Pool}), "device %s at index %d, of no slice kept there", d.Name(), i)
		}
	}
}
