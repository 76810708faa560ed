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
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/bitset"
)

// PoolID names a resource pool.
type PoolID struct{ Driver, Pool string }

func (p PoolID) String() string { return p.Driver + "/" + p.Pool }

// Device is one device of one slice.
type Device struct {
	// Index is the device's dense index, unique among current devices.
	Index int
	// Version changes whenever the device, its driver or its pool change;
	// it is never reused.
	Version uint64
	// Driver and Pool come from the slice.
	Driver, Pool string
	// Spec is the device as published, owned by the slice object.
	Spec *resourceapi.Device
	// Slice is the slice the device belongs to.
	Slice *Slice

	// PlainCapacity is set when no capacity of the device has a request
	// policy and none is negative: a share that requests nothing then
	// consumes exactly the whole capacity.
	PlainCapacity bool

	// nodeSel is the device's own node selection (perDeviceNodeSelection).
	nodeSel nodeSelection
}

func plainCapacity(spec *resourceapi.Device) bool {
	for _, c := range spec.Capacity {
		if c.RequestPolicy != nil || c.Value.Sign() < 0 {
			return false
		}
	}
	return true
}

// Name is the device's name within its pool.
func (d *Device) Name() string { return d.Spec.Name }

// ID renders driver/pool/device.
func (d *Device) ID() string { return d.Driver + "/" + d.Pool + "/" + d.Spec.Name }

// Slice is one ResourceSlice.
type Slice struct {
	// Obj is the slice as received; never modified.
	Obj *resourceapi.ResourceSlice
	// Devices are the slice's devices in slice order.
	Devices []*Device
	// key is what the inventory keeps the slice under (its name, for Set).
	key string
	// seq orders slices by first arrival ("input order").
	seq     uint64
	nodeSel nodeSelection
}

// Name is the slice's object name. It need not identify the slice (see
// SetWithKey); pools order and validate slices by name, as upstream does.
func (s *Slice) Name() string { return s.Obj.Name }

// Key is what the inventory keeps the slice under: its name if it was
// added by Set.
func (s *Slice) Key() string { return s.key }

// Pool returns the slice's pool ID.
func (s *Slice) Pool() PoolID { return PoolID{s.Obj.Spec.Driver, s.Obj.Spec.Pool.Name} }

// PerDeviceNodeSelection reports whether devices select their nodes.
func (s *Slice) PerDeviceNodeSelection() bool {
	return ptr.Deref(s.Obj.Spec.PerDeviceNodeSelection, false)
}

// Inventory holds all slices and their devices. Slices are kept by key:
// their names, for slices added by Set, which a cluster keeps unique.
type Inventory struct {
	slices map[string]*Slice            // key -> slice
	onNode map[string]map[string]*Slice // node name -> key -> slice
	shared map[string]*Slice            // slices without spec.nodeName
	byPool map[PoolID]map[string]*Slice // every slice of a pool
	byID   map[DeviceKey][]*Device      // devices by driver/pool/name
	// byHandle is byID keyed by upstream's interned DeviceID: hashing three
	// handles is much cheaper than three strings, and allocated-device sets
	// arrive as DeviceIDs.
	byHandle map[structured.DeviceID][]*Device
	devices  []*Device // by index; nil where free
	free     []int
	seq      uint64
	version  uint64
	// generation changes with every Set or Remove that changes anything.
	generation uint64
	cache      poolCache

	// nodeLocal caches NodeLocal for generation nodeLocalGen.
	nodeLocalMu  sync.Mutex
	nodeLocal    *bitset.Set
	nodeLocalGen uint64
}

// New returns an empty inventory.
func New() *Inventory {
	return &Inventory{
		slices: map[string]*Slice{},
		onNode: map[string]map[string]*Slice{},
		shared: map[string]*Slice{},
		byPool: map[PoolID]map[string]*Slice{},
		byID:   map[DeviceKey][]*Device{},

		byHandle: map[structured.DeviceID][]*Device{},
	}
}

// DeviceKey identifies a device by driver, pool and name, as allocation
// results and upstream's DeviceID do.
type DeviceKey struct{ Driver, Pool, Device string }

// Key returns the device's DeviceKey.
func (d *Device) Key() DeviceKey { return DeviceKey{d.Driver, d.Pool, d.Spec.Name} }

// Lookup returns every current device with that driver, pool and name: one
// normally, more when slices disagree (another generation, duplicates).
func (inv *Inventory) Lookup(key DeviceKey) []*Device { return inv.byID[key] }

// LookupID is Lookup by upstream's DeviceID.
func (inv *Inventory) LookupID(id structured.DeviceID) []*Device { return inv.byHandle[id] }

// Generation changes whenever the inventory changes.
func (inv *Inventory) Generation() uint64 { return inv.generation }

// SlicesOn returns the slices that name the node (spec.nodeName), in no
// particular order: the node's own devices.
func (inv *Inventory) SlicesOn(node string) []*Slice {
	out := make([]*Slice, 0, len(inv.onNode[node]))
	for _, s := range inv.onNode[node] {
		out = append(out, s)
	}
	return out
}

// NodeSlices returns every slice that names a node (spec.nodeName), in no
// particular order: every node's own devices.
func (inv *Inventory) NodeSlices() iter.Seq[*Slice] {
	return func(yield func(*Slice) bool) {
		for _, slices := range inv.onNode {
			for _, s := range slices {
				if !yield(s) {
					return
				}
			}
		}
	}
}

// NodeLocal returns the indexes of every node's own devices (those of the
// slices NodeSlices returns) as a bit set over device indexes, computed
// once per generation. It must not be modified.
func (inv *Inventory) NodeLocal() *bitset.Set {
	inv.nodeLocalMu.Lock()
	defer inv.nodeLocalMu.Unlock()
	if inv.nodeLocal == nil || inv.nodeLocalGen != inv.generation {
		set := bitset.New(inv.NumIndexes())
		for s := range inv.NodeSlices() {
			for _, d := range s.Devices {
				set.Set(d.Index)
			}
		}
		inv.nodeLocal, inv.nodeLocalGen = set, inv.generation
	}
	return inv.nodeLocal
}

// NumIndexes is one more than the largest device index in use: the length
// bit sets over device indexes need.
func (inv *Inventory) NumIndexes() int { return len(inv.devices) }

// Device returns the device with index i, or nil.
func (inv *Inventory) Device(i int) *Device {
	if i < 0 || i >= len(inv.devices) {
		return nil
	}
	return inv.devices[i]
}

// NumDevices counts current devices.
func (inv *Inventory) NumDevices() int { return len(inv.devices) - len(inv.free) }

// NumSlices counts current slices.
func (inv *Inventory) NumSlices() int { return len(inv.slices) }

// NumPools counts pools with at least one slice.
func (inv *Inventory) NumPools() int { return len(inv.byPool) }

// Set adds a slice or replaces the slice with the same name: it is
// SetWithKey(obj.Name, obj), for slices from a cluster, where names are
// unique. The object must not be modified afterwards.
func (inv *Inventory) Set(obj *resourceapi.ResourceSlice) { inv.SetWithKey(obj.Name, obj) }

// SetWithKey adds a slice under key or replaces the slice kept under key,
// whatever the slice's name: slices handed over as a list (upstream's
// NewAllocator) are distinct objects even where they share a name. The
// object must not be modified afterwards.
func (inv *Inventory) SetWithKey(key string, obj *resourceapi.ResourceSlice) {
	old := inv.slices[key]
	if old != nil && old.Obj == obj {
		return
	}
	s := &Slice{Obj: obj, key: key, nodeSel: newNodeSelection(obj.Spec.NodeName, obj.Spec.AllNodes, obj.Spec.NodeSelector)}
	if old != nil {
		s.seq = old.seq
		inv.unlink(old)
	} else {
		inv.seq++
		s.seq = inv.seq
	}

	// Keep index and version of devices whose content is unchanged.
	reuse := map[string]*Device{}
	if old != nil && old.Obj.Spec.Driver == obj.Spec.Driver && old.Obj.Spec.Pool.Name == obj.Spec.Pool.Name {
		for _, d := range old.Devices {
			reuse[d.Spec.Name] = d
		}
	}
	s.Devices = make([]*Device, len(obj.Spec.Devices))
	for i := range obj.Spec.Devices {
		spec := &obj.Spec.Devices[i]
		d := reuse[spec.Name]
		if d != nil && apiequality.Semantic.DeepEqual(d.Spec, spec) {
			delete(reuse, spec.Name) // a duplicate name must not share it
		} else {
			d = &Device{Index: inv.allocIndex()}
			inv.version++
			d.Version = inv.version
			inv.devices[d.Index] = d
		}
		d.Driver, d.Pool, d.Spec, d.Slice = obj.Spec.Driver, obj.Spec.Pool.Name, spec, s
		d.nodeSel = newNodeSelection(spec.NodeName, spec.AllNodes, spec.NodeSelector)
		d.PlainCapacity = plainCapacity(spec)
		s.Devices[i] = d
	}
	if old != nil {
		for _, d := range old.Devices {
			if !slices.Contains(s.Devices, d) {
				inv.freeIndex(d.Index)
			}
		}
	}
	inv.link(s)
	inv.generation++
}

// Remove deletes the slice kept under key (its name, if it was added by
// Set), if present.
func (inv *Inventory) Remove(key string) {
	old := inv.slices[key]
	if old == nil {
		return
	}
	inv.unlink(old)
	for _, d := range old.Devices {
		inv.freeIndex(d.Index)
	}
	inv.generation++
}

func (inv *Inventory) link(s *Slice) {
	inv.slices[s.key] = s
	if node := ptr.Deref(s.Obj.Spec.NodeName, ""); node != "" {
		m := inv.onNode[node]
		if m == nil {
			m = map[string]*Slice{}
			inv.onNode[node] = m
		}
		m[s.key] = s
	} else {
		inv.shared[s.key] = s
	}
	p := inv.byPool[s.Pool()]
	if p == nil {
		p = map[string]*Slice{}
		inv.byPool[s.Pool()] = p
	}
	p[s.key] = s
	for _, d := range s.Devices {
		inv.byID[d.Key()] = append(inv.byID[d.Key()], d)
		id := structured.MakeDeviceID(d.Driver, d.Pool, d.Spec.Name)
		inv.byHandle[id] = append(inv.byHandle[id], d)
	}
}

func (inv *Inventory) unlink(s *Slice) {
	delete(inv.slices, s.key)
	if node := ptr.Deref(s.Obj.Spec.NodeName, ""); node != "" {
		delete(inv.onNode[node], s.key)
		if len(inv.onNode[node]) == 0 {
			delete(inv.onNode, node)
		}
	} else {
		delete(inv.shared, s.key)
	}
	for _, d := range s.Devices {
		k := d.Key()
		inv.byID[k] = slices.DeleteFunc(inv.byID[k], func(o *Device) bool { return o == d })
		if len(inv.byID[k]) == 0 {
			delete(inv.byID, k)
		}
		id := structured.MakeDeviceID(d.Driver, d.Pool, d.Spec.Name)
		inv.byHandle[id] = slices.DeleteFunc(inv.byHandle[id], func(o *Device) bool { return o == d })
		if len(inv.byHandle[id]) == 0 {
			delete(inv.byHandle, id)
		}
	}
	delete(inv.byPool[s.Pool()], s.key)
	if len(inv.byPool[s.Pool()]) == 0 {
		delete(inv.byPool, s.Pool())
	}
}

func (inv *Inventory) allocIndex() int {
	if n := len(inv.free); n > 0 {
		i := inv.free[n-1]
		inv.free = inv.free[:n-1]
		return i
	}
	inv.devices = append(inv.devices, nil)
	return len(inv.devices) - 1
}

func (inv *Inventory) freeIndex(i int) {
	inv.devices[i] = nil
	inv.free = append(inv.free, i)
}

// Attribute returns the device's attribute name (fully qualified,
// "domain/name"; an unqualified attribute counts under its driver's name
// as domain, as in CEL) as text, and whether the device has it.
func (d *Device) Attribute(name string) (string, bool) {
	attr, ok := d.Spec.Attributes[resourceapi.QualifiedName(name)]
	if !ok {
		domain, id, qualified := strings.Cut(name, "/")
		if !qualified || domain != d.Driver {
			return "", false
		}
		if attr, ok = d.Spec.Attributes[resourceapi.QualifiedName(id)]; !ok {
			return "", false
		}
	}
	switch {
	case attr.StringValue != nil:
		return *attr.StringValue, true
	case attr.IntValue != nil:
		return strconv.FormatInt(*attr.IntValue, 10), true
	case attr.BoolValue != nil:
		return strconv.FormatBool(*attr.BoolValue), true
	case attr.VersionValue != nil:
		return *attr.VersionValue, true
	}
	return "", false
}
