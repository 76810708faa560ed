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
	"context"
	"math"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/bitset"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// How full devices are, for the scoring strategies that fill or spread
// (MostAllocated, LeastAllocated): of a node's, and of a topology
// domain's, by one rule.

// Occupancy reports, over the devices nodes reach (a node, or the nodes
// of a topology domain; a device several of them reach counts once), how
// many there are and how many would be in use once results are applied.
// Only the drivers results allocate from count (a GPU pod's node, or a
// GPU gang's domain, is ranked by its GPUs, not its NICs); every driver
// where results name no device, as before any is chosen. An allocator
// kept to a domain (KeptTo) counts the domain's devices only.
func (a *Allocator) Occupancy(nodes []*v1.Node, results []resourceapi.AllocationResult) (used, total int) {
	drivers := map[string]bool{}
	taken := map[inventory.DeviceKey]bool{}
	for _, res := range results {
		for _, d := range res.Devices.Results {
			drivers[d.Driver] = true
			taken[inventory.DeviceKey{Driver: d.Driver, Pool: d.Pool, Device: d.Device}] = true
		}
	}
	var seen map[int]bool
	if len(nodes) > 1 {
		seen = map[int]bool{}
	}
	for _, node := range nodes {
		view, err := a.inv.View(node, a.viewOptions())
		if err != nil {
			continue
		}
		for _, d := range view.Devices {
			if seen != nil {
				if seen[d.Index] {
					continue
				}
				seen[d.Index] = true
			}
			if len(drivers) > 0 && !drivers[d.Driver] || a.domain.outside(d) {
				continue
			}
			total++
			if a.state.isAllocated(d.Index) || taken[d.Key()] {
				used++
			}
		}
	}
	return used, total
}

// DomainFree bounds from above how many devices of the nodes (each
// counted once) claims could still be given: the free devices that some
// request of claims selects (any of its firstAvailable alternatives) and
// whose counters fit what their pool has left now, math.MaxInt when one of
// them may be allocated many times (it may serve any number of claims);
// when key is set, only those whose attribute key is value or absent (the
// domain of KeptTo). Without claims, or with claims that fail to
// prepare (their own PreFilter says why), every device counts. It is
// cheap, as no search runs: the selections are the view memos' that
// Filter shares, and partitions of one device that all match still count
// beside each other.
func (a *Allocator) DomainFree(ctx context.Context, nodes []*v1.Node, claims []*resourceapi.ResourceClaim, key, value string) int {
	restriction := &domainRestriction{key: key, value: value}
	if key == "" {
		restriction = nil
	}
	var p *prepared
	if len(claims) > 0 {
		if p = a.preparedFor(claims); p.err != nil {
			p = nil
		}
	}
	seen := map[int]bool{}
	free := 0
	for _, node := range nodes {
		view, err := a.inv.View(node, a.viewOptions())
		if err != nil {
			continue
		}
		selected := a.selectedByAny(ctx, node, claims, view, p)
		for i, d := range view.Devices {
			if seen[d.Index] || selected != nil && !selected.Has(i) {
				continue
			}
			seen[d.Index] = true
			if restriction.outside(d) {
				continue
			}
			if ptr.Deref(d.Spec.AllowMultipleAllocations, false) {
				// One device may serve any number of claims.
				return math.MaxInt
			}
			if !a.state.isAllocated(d.Index) && a.countersMayFit(view.Pools[view.PoolOf[i]], d) {
				free++
			}
		}
	}
	return free
}

// selectedByAny returns the view positions of the devices that some
// request of the prepared claims selects, nil (every device) when p is
// nil or the context ended before every selector was evaluated. Each
// selector chain is asked once.
func (a *Allocator) selectedByAny(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, view *inventory.NodeView, p *prepared) *bitset.Set {
	if p == nil {
		return nil
	}
	c := a.newCall(ctx, node, claims, view)
	defer a.done(c)
	union := bitset.New(len(view.Devices))
	asked := map[int]bool{}
	for _, reqs := range p.requests {
		for _, alts := range reqs {
			for _, r := range alts {
				if asked[r.chain] {
					continue
				}
				asked[r.chain] = true
				sel := c.selection(r)
				if sel.interrupted {
					// Cut off: what was not evaluated may match.
					return nil
				}
				union.Or(union, sel.match)
			}
		}
	}
	return union
}

// countersMayFit reports whether the device's own consumption fits what
// its pool's counter sets have left after the allocated devices: false
// for the partitions of a device in use, or for the whole device when one
// of its partitions is.
func (a *Allocator) countersMayFit(pool *inventory.Pool, d *inventory.Device) bool {
	if len(d.Spec.ConsumesCounters) == 0 {
		return true
	}
	pc := a.available(pool)
	if pc.overConsumed {
		return false
	}
	return !pc.blockedKnown || !pc.blocked.has(d.Index)
}
