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

package allocator

import (
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/cowbits"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Topology domains given by a device attribute: DRA drivers publish the
// NVLink domain or fabric partition of a GPU as an attribute of the
// device, not as a node label. A scheduler that keeps a pod group in one
// such domain asks which domains a node is in (DomainValues) and, while it
// tries one, allocates only within it (KeptTo).

// DomainValues returns the values, sorted and distinct, that the devices
// node can use give their attribute key (fully qualified, "domain/name"):
// the domains of key the node is in.
func (a *Allocator) DomainValues(node *v1.Node, key string) []string {
	view, err := a.inv.View(node, a.viewOptions())
	if err != nil {
		return nil
	}
	var values []string
	for _, d := range view.Devices {
		if v, ok := d.Attribute(key); ok && !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	slices.Sort(values)
	return values
}

// KeptTo returns an allocator like a (see WithState) that takes no
// device whose attribute key has a value other than value: the devices of
// other domains are held as taken (shared ones too), and no what-if frees
// them; those that were free consume no counters (a GPU's partitions in
// another domain leave its counters to this one). Devices without the
// attribute (a NIC beside NVLink-connected GPUs) stay usable. Requests
// with admin access, which may use allocated devices, are not kept to the
// domain. Devices with a list of values for the attribute
// (DRAListTypeAttributes) count as without it.
//
// Only the devices the nodes can use are looked at (the domain's nodes:
// the allocator is asked about no other), so that keeping a pod to its
// domain costs the domain's devices, not the cluster's.
func (a *Allocator) KeptTo(key, value string, nodes []*v1.Node) *Allocator {
	next := a.state.copyForChange()
	n := a.inv.NumIndexes()
	next.outside, next.held = cloneOrNew(next.outside, n), cloneOrNew(next.held, n)
	touched := map[inventory.PoolID]bool{}
	for _, d := range a.devicesOf(nodes) {
		if v, ok := d.Attribute(key); ok && v != value {
			if !next.isAllocated(d.Index) {
				next.held.Set(d.Index)
			}
			next.outside.Set(d.Index)
			next.dedicated.Set(d.Index)
			touched[inventory.PoolID{Driver: d.Driver, Pool: d.Pool}] = true
		}
	}
	next.keepCounters(a.state, touched)
	b := a.WithState(next)
	b.domain = &domainRestriction{key: key, value: value}
	return b
}

// devicesOf returns the devices the nodes can use, each once.
func (a *Allocator) devicesOf(nodes []*v1.Node) []*inventory.Device {
	seen := map[int]bool{}
	var out []*inventory.Device
	for _, node := range nodes {
		view, err := a.inv.View(node, a.viewOptions())
		if err != nil {
			continue
		}
		for _, d := range view.Devices {
			if !seen[d.Index] {
				seen[d.Index] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// cloneOrNew returns a copy of s, or an empty set of n bits when s is nil.
func cloneOrNew(s *cowbits.Set, n int) *cowbits.Set {
	if s == nil {
		return cowbits.New(n)
	}
	return s.Clone()
}

// domainRestriction is the domain an allocator keeps to.
type domainRestriction struct {
	key, value string
}

// outside reports whether d belongs to another domain.
func (r *domainRestriction) outside(d *inventory.Device) bool {
	if r == nil {
		return false
	}
	v, ok := d.Attribute(r.key)
	return ok && v != r.value
}
