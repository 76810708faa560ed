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

package allocationcheck

import (
	"fmt"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// poolID identifies a resource pool.
type poolID struct{ driver, pool string }

func (p poolID) String() string { return p.driver + "/" + p.pool }

// deviceID identifies a device the way results do.
type deviceID struct{ driver, pool, device string }

func (d deviceID) String() string { return d.driver + "/" + d.pool + "/" + d.device }

func (d deviceID) poolID() poolID { return poolID{d.driver, d.pool} }

// poolState says whether a node can allocate from a pool, decided as in
// upstream's pool gathering (docs/design/upstream-allocator.md §3.1–3.3).
type poolState int

const (
	// poolUsable: the node sees a complete generation of the pool.
	poolUsable poolState = iota
	// poolIncomplete: the node's slices of the pool are incomplete, no
	// newer generation exists, and all slices of the node's generation
	// together are incomplete too.
	poolIncomplete
	// poolObsolete: the node's slices of the pool are incomplete and a newer
	// generation exists; allocators drop the pool for the node.
	poolObsolete
	// poolElsewhere: no slice of the pool is relevant for the node.
	poolElsewhere
)

// pool is what the slices say about one resource pool as seen from the
// checked node.
type pool struct {
	id    poolID
	state poolState
	// why explains poolIncomplete and poolObsolete.
	why string
	// generation is the generation whose devices count: the one the node
	// sees (usable and incomplete pools), else the highest one.
	generation int64
	// latest is the highest generation of any slice of the pool.
	latest int64
	// listed are all slices of generation, in input order; the pool's
	// devices are theirs.
	listed []*resourceapi.ResourceSlice
	// view are the slices an allocator builds the pool from for the node:
	// for a usable pool the node's slices of generation, plus all other
	// slices of it if the node's slices alone are incomplete. Counter sets
	// and the counter consumption of allocated devices come from them. For
	// pools that are not usable it is listed.
	view []*resourceapi.ResourceSlice
	// otherGenerations maps device names that only other generations list
	// to those generations, ascending.
	otherGenerations map[string][]int64
	// counterSets of the view by name; the first one wins.
	counterSets map[string]*resourceapi.CounterSet
	// duplicateCounterSets lists counter set names defined more than once.
	duplicateCounterSets []string
}

// device is one listing of a device in a slice of the generation of its pool
// that counts for the node.
type device struct {
	id    deviceID
	pool  *pool
	slice *resourceapi.ResourceSlice
	spec  *resourceapi.Device
	// inView tells whether the slice is one of pool.view.
	inView bool
}

// inventory indexes the slices as seen from one node.
type inventory struct {
	pools map[poolID]*pool
	// devices maps a device to all its listings (more than one only for
	// duplicate names).
	devices map[deviceID][]*device
	// order lists every device ID once, sorted, for deterministic iteration.
	order []deviceID
}

// buildInventory groups the slices into pools and decides per pool which
// generation counts for the node, following upstream's pool gathering
// (docs/design/upstream-allocator.md §3.1–3.3):
//
//  1. The node-relevant slices of a pool are those that the enabled
//     features do not make allocators ignore and that offer devices on the
//     node (sliceRelevant). Among them only those of their highest
//     generation G count. No relevant slice: the pool is not on the node.
//  2. If their number equals the resourceSliceCount of the first of them
//     (in input order), the pool is usable at generation G — even if a
//     newer generation exists in slices that are not relevant for the node.
//  3. Otherwise all slices of the pool are consulted: if any has a
//     generation above G, the pool is obsolete for the node. Else the slices
//     of generation G (without those using counter compatibility groups,
//     when that feature is off) are counted; if their number equals the same
//     resourceSliceCount the pool is usable at G, otherwise incomplete.
func buildInventory(all []*resourceapi.ResourceSlice, node *v1.Node, features structured.Features) *inventory {
	inv := &inventory{pools: make(map[poolID]*pool), devices: make(map[deviceID][]*device)}
	byPool := map[poolID][]*resourceapi.ResourceSlice{}
	var ids []poolID
	for _, s := range all {
		id := poolID{s.Spec.Driver, s.Spec.Pool.Name}
		if byPool[id] == nil {
			ids = append(ids, id)
		}
		byPool[id] = append(byPool[id], s)
	}
	for _, id := range ids {
		p := judgePool(id, byPool[id], node, features)
		inv.pools[id] = p
		inView := map[*resourceapi.ResourceSlice]bool{}
		for _, s := range p.view {
			inView[s] = true
		}
		p.counterSets = make(map[string]*resourceapi.CounterSet)
		for _, s := range p.view {
			for i := range s.Spec.SharedCounters {
				cs := &s.Spec.SharedCounters[i]
				if p.counterSets[cs.Name] != nil {
					p.duplicateCounterSets = append(p.duplicateCounterSets, cs.Name)
					continue
				}
				p.counterSets[cs.Name] = cs
			}
		}
		listedNames := map[string]bool{}
		for _, s := range p.listed {
			for i := range s.Spec.Devices {
				d := &s.Spec.Devices[i]
				listedNames[d.Name] = true
				did := deviceID{id.driver, id.pool, d.Name}
				if inv.devices[did] == nil {
					inv.order = append(inv.order, did)
				}
				inv.devices[did] = append(inv.devices[did], &device{id: did, pool: p, slice: s, spec: d, inView: inView[s]})
			}
		}
		p.otherGenerations = make(map[string][]int64)
		for _, s := range byPool[id] {
			gen := s.Spec.Pool.Generation
			if gen == p.generation {
				continue
			}
			for _, d := range s.Spec.Devices {
				if !listedNames[d.Name] && !slices.Contains(p.otherGenerations[d.Name], gen) {
					p.otherGenerations[d.Name] = append(p.otherGenerations[d.Name], gen)
				}
			}
		}
		for _, gens := range p.otherGenerations {
			slices.Sort(gens)
		}
	}
	sort.Slice(inv.order, func(i, j int) bool {
		a, b := inv.order[i], inv.order[j]
		if a.driver != b.driver {
			return a.driver < b.driver
		}
		if a.pool != b.pool {
			return a.pool < b.pool
		}
		return a.device < b.device
	})
	return inv
}

// judgePool decides the state and generation of one pool for the node; see
// buildInventory. poolSlices are the pool's slices in input order.
func judgePool(id poolID, poolSlices []*resourceapi.ResourceSlice, node *v1.Node, features structured.Features) *pool {
	p := &pool{id: id, latest: poolSlices[0].Spec.Pool.Generation}
	for _, s := range poolSlices {
		p.latest = max(p.latest, s.Spec.Pool.Generation)
	}
	ofGeneration := func(gen int64) []*resourceapi.ResourceSlice {
		var out []*resourceapi.ResourceSlice
		for _, s := range poolSlices {
			if s.Spec.Pool.Generation == gen {
				out = append(out, s)
			}
		}
		return out
	}
	// The node's slices of their highest generation, in input order.
	var mine []*resourceapi.ResourceSlice
	for _, s := range poolSlices {
		if !sliceRelevant(features, node, s) {
			continue
		}
		switch {
		case len(mine) == 0 || s.Spec.Pool.Generation > mine[0].Spec.Pool.Generation:
			mine = []*resourceapi.ResourceSlice{s}
		case s.Spec.Pool.Generation == mine[0].Spec.Pool.Generation:
			mine = append(mine, s)
		}
	}
	if len(mine) == 0 {
		p.state, p.generation = poolElsewhere, p.latest
		p.listed = ofGeneration(p.latest)
		p.view = p.listed
		return p
	}
	first := mine[0]
	gen, count := first.Spec.Pool.Generation, first.Spec.Pool.ResourceSliceCount
	p.generation = gen
	p.listed = ofGeneration(gen)
	if int64(len(mine)) == count {
		p.state, p.view = poolUsable, mine
		return p
	}
	if p.latest > gen {
		p.state, p.generation = poolObsolete, p.latest
		p.listed = ofGeneration(p.latest)
		p.view = p.listed
		p.why = fmt.Sprintf("pool %s is outdated on node %s: the node's %d slices of generation %d are incomplete (slice %s announces %d), and generation %d exists",
			id, node.Name, len(mine), gen, first.Name, count, p.latest)
		return p
	}
	// All slices of the generation, but not those that allocators ignore
	// for using counter compatibility groups.
	var all []*resourceapi.ResourceSlice
	for _, s := range p.listed {
		if features.CompatibilityGroups || !usesCompatibilityGroups(s) {
			all = append(all, s)
		}
	}
	if int64(len(all)) != count {
		p.state, p.view = poolIncomplete, p.listed
		p.why = fmt.Sprintf("pool %s is incomplete: generation %d has %d slices, slice %s announces %d",
			id, gen, len(all), first.Name, count)
		return p
	}
	// Usable: the node's slices first, then the other slices of the
	// generation (by name, as upstream merges them).
	p.state = poolUsable
	p.view = append([]*resourceapi.ResourceSlice(nil), mine...)
	names := map[string]bool{}
	for _, s := range mine {
		names[s.Name] = true
	}
	for _, s := range all {
		if !names[s.Name] {
			p.view = append(p.view, s)
		}
	}
	return p
}

// resolve returns the listing of the device that a result refers to: the
// only listing available on the node, else the only listing. It returns nil
// for unknown and ambiguous devices; checkDevices reports those.
func (c *checker) resolve(id deviceID) *device {
	listings := c.inv.devices[id]
	var onNode []*device
	for _, d := range listings {
		if c.unavailable(d) == "" {
			onNode = append(onNode, d)
		}
	}
	switch {
	case len(onNode) == 1:
		return onNode[0]
	case len(onNode) == 0 && len(listings) == 1:
		return listings[0]
	}
	return nil
}

// multi reports whether the device may be allocated more than once.
func (c *checker) multi(d *device) bool {
	return c.features.ConsumableCapacity && ptr.Deref(d.spec.AllowMultipleAllocations, false)
}
