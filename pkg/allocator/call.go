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
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// call is the state of one Allocate call: the search's mutable state lives
// here, never in the Allocator.
type call struct {
	ctx    context.Context
	a      *Allocator
	node   *v1.Node
	claims []*resourceapi.ResourceClaim
	view   *inventory.NodeView
	// deadline, if set, ends the search with context.DeadlineExceeded;
	// steps counts the search's steps.
	deadline time.Time
	steps    int

	// claimStates holds this call's claim states; entries between its
	// length and its capacity are emptied ones of earlier calls, reused in
	// place (moving pointers between lists costs write barriers while the
	// GC marks).
	claimStates []*claimState
	// twins marks the claims that are twins of the claim before them
	// (twins.go).
	twins []bool
	// cross tracks the allocator's constraints across claims
	// (crossclaim.go), in their order; crossSubjects, crossMatch and
	// crossDistinct are their storage, reused across calls.
	cross         []constraint
	crossSubjects []crossSubjects
	crossMatch    []matchConstraint
	crossDistinct []distinctConstraint

	// allocating maps devices taken by this call (dedicated) to the
	// indexes of the claims taking them.
	allocating map[int][]int
	// spareLists keeps emptied allocating entries for reuse, so that
	// marking a device allocates nothing in steady state.
	spareLists [][]int
	// shares tracks in-progress shares of multi-allocatable devices.
	shares map[int]*shareState
	// spareShares keeps emptied share states for reuse.
	spareShares []*shareState
	// consumed counts counters taken by this call, per pool.
	consumed map[inventory.PoolID]counterSets
	// sels memoizes selection per request for this call.
	sels map[*request]*selection
	// derived memoizes derived attribute values for this call.
	derived map[derivedKey]derivedValue
	// groups stacks the compatibility-group intersections of the counter
	// sets this call's devices consume from, last on top.
	groups map[groupKey][]groupIntersection
	// picked is storage for takeFirstFit's positions.
	picked []int32
	// orders memoizes the policy's candidate order per selector chain.
	orders map[int][]int
	// touched lists the pools whose counters this call consumed.
	touched []inventory.PoolID
	// spareSets are emptied counter maps of pools no longer kept; zero
	// values read like absent ones.
	spareSets []counterSets
}

// maxSpareLists bounds the spare allocating entries a pooled call keeps.
const maxSpareLists = 256

// takeList returns an empty list for an allocating entry.
func (c *call) takeList() []int {
	if n := len(c.spareLists); n > 0 {
		list := c.spareLists[n-1]
		c.spareLists = c.spareLists[:n-1]
		return list
	}
	return make([]int, 0, 1)
}

// maxKeptPools bounds how many pools' counter maps a pooled call keeps,
// and how many spare ones.
const maxKeptPools = 16

// maxSpareSetNames bounds the counter set names a spare map may have
// collected from earlier pools.
const maxSpareSetNames = 64

// newCall takes a call from the allocator's pool and resets it; the
// search's bookkeeping maps keep their storage across calls.
func (a *Allocator) newCall(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, view *inventory.NodeView) *call {
	c, _ := a.calls.Get().(*call)
	if c == nil {
		c = &call{
			allocating: map[int][]int{},
			shares:     map[int]*shareState{},
			consumed:   map[inventory.PoolID]counterSets{},
			sels:       map[*request]*selection{},
		}
	}
	c.ctx, c.a, c.node, c.claims, c.view = ctx, a, node, claims, view
	return c
}

// done returns the call to the pool. Nothing the caller keeps may refer to
// it: results are built as fresh objects.
func (a *Allocator) done(c *call) {
	if len(c.allocating) > 0 {
		for _, list := range c.allocating {
			if len(c.spareLists) < maxSpareLists {
				c.spareLists = append(c.spareLists, list[:0])
			}
		}
		clear(c.allocating)
	}
	if len(c.shares) > 0 {
		for _, s := range c.shares {
			c.spareShare(s)
		}
		clear(c.shares)
	}
	// Counter bookkeeping keeps the maps of the pools this call touched:
	// zero values read like absent ones, and reusing the storage keeps the
	// search allocation-free. Bounded, so that the pools of a large cluster
	// do not pile up here.
	// Beyond maxKeptPools pools, the touched pools' maps become spares for
	// the next pools, so that a call per node of a large cluster reuses
	// storage instead of allocating it.
	for _, id := range c.touched {
		sets := c.consumed[id]
		for _, set := range sets {
			for name := range set {
				set[name] = resource.Quantity{}
			}
		}
		if len(c.consumed) > maxKeptPools {
			delete(c.consumed, id)
			if len(c.spareSets) < maxKeptPools && len(sets) <= maxSpareSetNames {
				c.spareSets = append(c.spareSets, sets)
			}
		}
	}
	c.touched = c.touched[:0]
	if len(c.sels) > 0 {
		clear(c.sels)
	}
	if len(c.derived) > 0 {
		clear(c.derived)
	}
	if len(c.groups) > 0 {
		clear(c.groups)
	}
	if len(c.orders) > 0 {
		clear(c.orders)
	}
	for _, cs := range c.claimStates {
		cs.reset()
	}
	c.claimStates = c.claimStates[:0]
	c.twins = nil
	c.ctx, c.a, c.node, c.claims, c.view, c.deadline, c.steps = nil, nil, nil, nil, nil, time.Time{}, 0
	a.calls.Put(c)
}

// newClaimState returns an empty claim state, reusing a spare one.
func (c *call) newClaimState(obj *resourceapi.ResourceClaim) *claimState {
	n := len(c.claimStates)
	if n < cap(c.claimStates) {
		c.claimStates = c.claimStates[:n+1]
	} else {
		c.claimStates = append(c.claimStates, nil)
	}
	cs := c.claimStates[n]
	if cs == nil {
		cs = &claimState{}
		c.claimStates[n] = cs
	}
	cs.obj = obj
	return cs
}

// cand returns the node's i-th candidate device.
func (c *call) cand(i int) candidate { return candAt(c.view, i) }

// candAt returns view's i-th candidate device.
func candAt(view *inventory.NodeView, i int) candidate {
	return candidate{dev: view.Devices[i], pool: view.Pools[view.PoolOf[i]]}
}
