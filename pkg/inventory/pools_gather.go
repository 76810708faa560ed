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
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"
)

// Upstream's pool gathering for one node: which slices are relevant for
// the node, which generation of each pool counts, and how a pool's slices
// are classified, validated and ordered.

// bySeq returns the slices of m in input order.
func bySeq(m map[string]*Slice) []*Slice {
	out := make([]*Slice, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Slice) int { return cmp.Compare(a.seq, b.seq) })
	return out
}

// gather implements upstream's pool gathering for one node.
func (inv *Inventory) gather(node *v1.Node, opts Options) ([]*Pool, error) {
	candidates := append(bySeq(inv.onNode[node.Name]), bySeq(inv.shared)...)
	byPool := map[PoolID][]*Slice{}
	var order []PoolID
	for _, s := range candidates {
		spec := &s.Obj.Spec
		if !opts.PartitionableDevices && (spec.PerDeviceNodeSelection != nil || len(spec.SharedCounters) > 0) {
			continue
		}
		if !opts.CompatibilityGroups && usesCompatibilityGroups(s) {
			continue
		}
		relevant := false
		switch {
		case s.nodeSel.set():
			match, err := s.nodeSel.matches(node)
			if err != nil {
				return nil, fmt.Errorf("failed to perform node selection for slice %s: %w", s.Name(), err)
			}
			relevant = match
		case ptr.Deref(spec.PerDeviceNodeSelection, false):
			for _, d := range s.Devices {
				match, err := d.nodeSel.matches(node)
				if err != nil {
					return nil, fmt.Errorf("failed to perform node selection for device %s in slice %s: %w", d.Spec.String(), s.Name(), err)
				}
				if match {
					relevant = true
					break
				}
			}
		default:
			// Nothing known selects nodes: a future extension.
			continue
		}
		if !relevant {
			continue
		}
		id := s.Pool()
		have, ok := byPool[id]
		if !ok {
			order = append(order, id)
		}
		switch {
		case len(have) == 0:
			byPool[id] = []*Slice{s}
		case spec.Pool.Generation < have[0].Obj.Spec.Pool.Generation:
			// Older than what we have: ignore.
		case spec.Pool.Generation > have[0].Obj.Spec.Pool.Generation:
			byPool[id] = []*Slice{s}
		default:
			byPool[id] = append(have, s)
		}
	}

	var normal, withBinding []*Pool
	for _, id := range order {
		nodeSlices := byPool[id]
		want := nodeSlices[0].Obj.Spec.Pool.ResourceSliceCount
		var pool *Pool
		if int64(len(nodeSlices)) == want {
			pool = buildPool(id, nodeSlices, nil, opts)
		} else {
			obsolete, all := inv.slicesOfGeneration(id, nodeSlices[0].Obj.Spec.Pool.Generation)
			if obsolete {
				continue
			}
			if !opts.CompatibilityGroups {
				all = slices.DeleteFunc(all, usesCompatibilityGroups)
			}
			if int64(len(all)) == want {
				pool = buildPool(id, nodeSlices, all, opts)
			} else {
				pool = &Pool{ID: id, Incomplete: true}
			}
		}
		if pool.HasBindingConditions {
			withBinding = append(withBinding, pool)
		} else {
			normal = append(normal, pool)
		}
	}
	sortPools(normal)
	sortPools(withBinding)
	return append(normal, withBinding...), nil
}

func sortPools(pools []*Pool) {
	slices.SortFunc(pools, func(a, b *Pool) int {
		return cmp.Or(cmp.Compare(a.ID.Driver, b.ID.Driver), cmp.Compare(a.ID.Pool, b.ID.Pool))
	})
}

// slicesOfGeneration returns all slices of the pool with that generation,
// in input order, or obsolete if some slice has a newer one.
func (inv *Inventory) slicesOfGeneration(id PoolID, generation int64) (obsolete bool, out []*Slice) {
	for _, s := range bySeq(inv.byPool[id]) {
		switch g := s.Obj.Spec.Pool.Generation; {
		case g == generation:
			out = append(out, s)
		case g > generation:
			return true, nil
		}
	}
	return false, out
}

func usesCompatibilityGroups(s *Slice) bool {
	for i := range s.Obj.Spec.Devices {
		for _, c := range s.Obj.Spec.Devices[i].ConsumesCounters {
			if len(c.CompatibilityGroups) > 0 {
				return true
			}
		}
	}
	return false
}

// buildPool sorts and classifies a pool's slices and validates it.
// allOfGeneration is nil when the node-relevant slices are complete.
func buildPool(id PoolID, nodeSlices, allOfGeneration []*Slice, opts Options) *Pool {
	nodeSlices = slices.Clone(nodeSlices)
	slices.SortFunc(nodeSlices, func(a, b *Slice) int { return cmp.Compare(a.Name(), b.Name()) })
	pool := &Pool{ID: id}
	var counterSlices []*Slice
	isCounterSlice := func(s *Slice) bool { return opts.PartitionableDevices && len(s.Obj.Spec.SharedCounters) > 0 }
	for _, s := range nodeSlices {
		if isCounterSlice(s) {
			counterSlices = append(counterSlices, s)
		} else {
			pool.Targeting = append(pool.Targeting, s)
		}
	}
	if len(nodeSlices) < len(allOfGeneration) {
		for _, s := range allOfGeneration {
			// By name, as upstream: a slice sharing its name with a
			// node-relevant one is not counted twice.
			if slices.ContainsFunc(nodeSlices, func(n *Slice) bool { return n.Name() == s.Name() }) {
				continue
			}
			if isCounterSlice(s) {
				counterSlices = append(counterSlices, s)
			} else {
				pool.NotTargeting = append(pool.NotTargeting, s)
			}
		}
	}

	invalid := func(reason string) *Pool { return &Pool{ID: id, Invalid: true, InvalidReason: reason} }
	names := map[string]bool{}
	for _, s := range pool.Targeting {
		for _, d := range s.Devices {
			if names[d.Name()] {
				return invalid(fmt.Sprintf("duplicate device name %s", d.Name()))
			}
			names[d.Name()] = true
		}
	}
	if opts.PartitionableDevices {
		pool.CounterSets = map[string]*resourceapi.CounterSet{}
		for _, s := range counterSlices {
			for i := range s.Obj.Spec.SharedCounters {
				cs := &s.Obj.Spec.SharedCounters[i]
				if _, dup := pool.CounterSets[cs.Name]; dup {
					return invalid(fmt.Sprintf("duplicate counter set name %s", cs.Name))
				}
				pool.CounterSets[cs.Name] = cs
			}
		}
		for _, group := range [][]*Slice{pool.Targeting, pool.NotTargeting} {
			for _, s := range group {
				for _, d := range s.Devices {
					for _, c := range d.Spec.ConsumesCounters {
						cs := pool.CounterSets[c.CounterSet]
						if cs == nil {
							return invalid(fmt.Sprintf("counter set %s not found", c.CounterSet))
						}
						for name := range c.Counters {
							if _, ok := cs.Counters[name]; !ok {
								return invalid(fmt.Sprintf("counter %s not found in counter set %s", name, cs.Name))
							}
						}
					}
				}
			}
		}
	}
	for _, s := range pool.Targeting {
		for _, d := range s.Devices {
			if d.Spec.BindingConditions != nil {
				pool.HasBindingConditions = true
			}
		}
	}
	pool.CompatibilityGroups = opts.CompatibilityGroups &&
		(slices.ContainsFunc(pool.Targeting, usesCompatibilityGroups) || slices.ContainsFunc(pool.NotTargeting, usesCompatibilityGroups))
	return pool
}
