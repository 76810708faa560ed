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
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// Pool is one resource pool as seen from one node.
type Pool struct {
	ID PoolID
	// Incomplete pools lack slices of their current generation.
	Incomplete bool
	// Invalid pools are inconsistent; InvalidReason says how.
	Invalid       bool
	InvalidReason string
	// Targeting are the node-relevant device slices, sorted by name; their
	// devices, in this order, are the pool's candidates.
	Targeting []*Slice
	// NotTargeting are the pool's other device slices of the same
	// generation; their allocated devices consume shared counters.
	NotTargeting []*Slice
	// CounterSets maps counter set names to their definitions.
	CounterSets map[string]*resourceapi.CounterSet
	// HasBindingConditions is set when a candidate device has binding
	// conditions; such pools are searched last.
	HasBindingConditions bool
	// CompatibilityGroups is set when a device of the pool consumes
	// counters with compatibility groups (only with the option).
	CompatibilityGroups bool
}

// Devices calls f for every candidate device in search order until f
// returns false.
func (p *Pool) Devices(f func(*Device) bool) {
	for _, s := range p.Targeting {
		for _, d := range s.Devices {
			if !f(d) {
				return
			}
		}
	}
}

// Options select the semantics of Pools.
type Options struct {
	// PartitionableDevices enables counter sets and per-device node
	// selection; without it, slices using them are ignored.
	PartitionableDevices bool
	// CompatibilityGroups keeps slices whose devices consume counters
	// with compatibility groups (DRADeviceCompatibilityGroups); without
	// it they are ignored, which leaves their pools incomplete.
	CompatibilityGroups bool
}

type poolCacheKey struct {
	node string
	opts Options
}

// slot numbers the option sets, for per-option tables; it must cover every
// field of Options.
func (o Options) slot() int {
	if o.PartitionableDevices {
		return 1
	}
	return 0
}

// table returns the per-object table of the options: byObject's slots
// without CompatibilityGroups, groupsByObject's with it (kept apart, so
// that the common tables and their lookup stay as small as they were).
func (c *poolCache) table(o Options) map[*v1.Node]objectRef {
	if o.CompatibilityGroups {
		return c.groupsByObject[o.slot()]
	}
	return c.byObject[o.slot()]
}

type poolCacheEntry struct {
	generation uint64
	node       *v1.Node          // the node object the entry was built for
	labels     map[string]string // and its labels
	view       *NodeView
	err        error
	slot       int32 // the ViewID.Slot of the key's views
}

// NodeView is what one node may allocate from, in search order.
type NodeView struct {
	// Pools in search order, including incomplete and invalid ones.
	Pools []*Pool
	// Devices are the candidate devices of the usable pools, in search
	// order, and PoolOf[i] is the index in Pools of Devices[i]'s pool.
	Devices []*Device
	PoolOf  []int
	// InvalidPools is set when some pool is invalid.
	InvalidPools bool
	// MultiTermSelectors is set when the node selection of some candidate
	// (its slice's, or its own with per-device node selection) has more
	// than one NodeSelector term, which an allocation result cannot
	// express: allocating such a device may be an error that only
	// building the result finds.
	MultiTermSelectors bool
	// ID identifies the view cheaply; see ViewID.
	ID ViewID

	// memo holds what a dependent computes per view (the allocator's
	// selector results over Devices); it lives and dies with the view.
	// See Memo and UpdateMemo.
	memo   atomic.Value
	memoMu sync.Mutex
}

// Memo returns what the view's last UpdateMemo stored, or nil. It never
// waits: the stored value is immutable, replaced as a whole.
func (v *NodeView) Memo() any { return v.memo.Load() }

// UpdateMemo calls update with the current memo (nil at first) while no
// other UpdateMemo of the view runs, and stores what it returns unless
// that is nil or the current value itself. update must not modify the
// value it is given (Memo's readers may hold it) and must always return
// values of one concrete type.
func (v *NodeView) UpdateMemo(update func(current any) any) {
	v.memoMu.Lock()
	defer v.memoMu.Unlock()
	cur := v.memo.Load()
	if next := update(cur); next != nil && next != cur {
		v.memo.Store(next)
	}
}

func newNodeView(pools []*Pool) *NodeView {
	v := &NodeView{Pools: pools}
	for pi, p := range pools {
		if p.Invalid {
			v.InvalidPools = true
		}
		if p.Incomplete || p.Invalid {
			continue
		}
		p.Devices(func(d *Device) bool {
			v.Devices = append(v.Devices, d)
			v.PoolOf = append(v.PoolOf, pi)
			if _, sel := d.NodeSelection(); sel != nil && len(sel.NodeSelectorTerms) > 1 {
				v.MultiTermSelectors = true
			}
			return true
		})
	}
	return v
}

// ViewID identifies a NodeView without touching it: Slot is a small
// number of the (node, options) pair the view is for, stable while the
// node is known (dependents index dense tables by it), and Serial is unique
// to the view among all views of all inventories of the process.
type ViewID struct {
	Slot   int32
	Serial uint64
}

// viewSerial numbers the views of all inventories, so that a dependent
// shared by several inventories never confuses their views.
var viewSerial atomic.Uint64

// poolCache memoizes Pools per node until the inventory or the node's
// labels change.
type poolCache struct {
	mu      sync.RWMutex
	entries map[poolCacheKey]*poolCacheEntry
	// byObject[opts.slot()] finds the view by the node object it was built
	// for: the scheduler passes the same object for a node until the node
	// changes, a pointer hashes faster than the node's name, and the map
	// slot holds all a hit needs.
	byObject [2]map[*v1.Node]objectRef
	// slots counts the slots handed out; freeSlots are slots of forgotten
	// nodes.
	slots     int32
	freeSlots []int32
	// groupsByObject is byObject for options with CompatibilityGroups.
	groupsByObject [2]map[*v1.Node]objectRef
}

// objectRef is what a hit by node object returns.
type objectRef struct {
	generation uint64
	view       *NodeView
	id         ViewID
	err        error
}

func (e *poolCacheEntry) ref() objectRef {
	r := objectRef{generation: e.generation, view: e.view, err: e.err}
	if e.view != nil {
		r.id = e.view.ID
	}
	return r
}

// Pools returns the pools that node may allocate from, in search order. The
// error reports an unparseable node selector.
func (inv *Inventory) Pools(node *v1.Node, opts Options) ([]*Pool, error) {
	v, err := inv.View(node, opts)
	if err != nil {
		return nil, err
	}
	return v.Pools, nil
}

// View returns the node's pools and candidate devices, cached until a
// slice or the node's labels change. The error reports an unparseable node
// selector.
func (inv *Inventory) View(node *v1.Node, opts Options) (*NodeView, error) {
	v, _, err := inv.ViewAndID(node, opts)
	return v, err
}

// ViewAndID is View that also returns the view's ID (the zero ID with an
// error), so that callers can find what they keep per view without
// reading the view.
func (inv *Inventory) ViewAndID(node *v1.Node, opts Options) (*NodeView, ViewID, error) {
	inv.cache.mu.RLock()
	table := inv.cache.table(opts)
	if r, ok := table[node]; ok && r.generation == inv.generation {
		inv.cache.mu.RUnlock()
		return r.view, r.id, r.err
	}
	key := poolCacheKey{node: node.Name, opts: opts}
	if e := inv.cache.entries[key]; e != nil && e.generation == inv.generation && sameLabels(e.labels, node.Labels) {
		inv.cache.mu.RUnlock()
		// A new object for the node with the same labels: find the entry
		// by this object from now on.
		inv.cache.mu.Lock()
		if inv.cache.entries[key] == e {
			delete(table, e.node)
			e.node = node
			table[node] = e.ref()
		}
		inv.cache.mu.Unlock()
		r := e.ref()
		return r.view, r.id, r.err
	}
	inv.cache.mu.RUnlock()

	pools, err := inv.gather(node, opts)
	var view *NodeView
	if err == nil {
		view = newNodeView(pools)
	}

	inv.cache.mu.Lock()
	defer inv.cache.mu.Unlock()
	if inv.cache.entries == nil {
		inv.cache.entries = map[poolCacheKey]*poolCacheEntry{}
		for i := range inv.cache.byObject {
			inv.cache.byObject[i] = map[*v1.Node]objectRef{}
			inv.cache.groupsByObject[i] = map[*v1.Node]objectRef{}
		}
	}
	// Read under the lock: the tables may have been created meanwhile.
	table = inv.cache.table(opts)
	var id ViewID
	if old := inv.cache.entries[key]; old != nil {
		delete(table, old.node)
		id.Slot = old.slot
	} else if n := len(inv.cache.freeSlots); n > 0 {
		id.Slot = inv.cache.freeSlots[n-1]
		inv.cache.freeSlots = inv.cache.freeSlots[:n-1]
	} else {
		id.Slot = inv.cache.slots
		inv.cache.slots++
	}
	id.Serial = viewSerial.Add(1)
	if view != nil {
		view.ID = id
	} else {
		id = ViewID{}
	}
	e := &poolCacheEntry{generation: inv.generation, node: node, labels: node.Labels, view: view, err: err, slot: id.Slot}
	inv.cache.entries[key] = e
	r := e.ref()
	table[node] = r
	return r.view, r.id, r.err
}

// ForgetNode drops cached state of a node that is gone.
func (inv *Inventory) ForgetNode(name string) {
	inv.cache.mu.Lock()
	defer inv.cache.mu.Unlock()
	for key, e := range inv.cache.entries {
		if key.node == name {
			delete(inv.cache.entries, key)
			delete(inv.cache.table(key.opts), e.node)
			inv.cache.freeSlots = append(inv.cache.freeSlots, e.slot)
		}
	}
}

func sameLabels(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
