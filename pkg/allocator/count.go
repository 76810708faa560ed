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
	"slices"
	"strconv"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Answering Fits without a search.
//
// Most pods ask for a few interchangeable devices: every request counts
// devices of one selector chain, with nothing that makes one candidate
// different from another — no counters, shares, capacity requests, taints,
// admin access, subrequests, or constraints other than one matchAttribute.
// The depth-first search is exhaustive, so for such claims it succeeds
// exactly when enough candidates are free: the search only ever rejects a
// plain candidate because it is taken (persisted or in this call) or, for
// requests a matchAttribute constraint covers, because its value differs
// from the first covered device's. Hence, with total devices wanted, of
// which covered are subject to the constraint:
//
//	fits  ⇔  free ≥ total  ∧  (covered = 0  ∨  some value class has ≥ covered free)
//
// (covered devices come from one class; the others from any free device).
// The answer costs one pass over the selection's match list and the
// allocated-device bit set, with no access to device objects. Fits and
// Allocate use it for every node; where the claims fit, Allocate takes the
// devices with takeFirstFit (pick.go) instead of searching for them.
// Whenever a premise fails — a candidate on which the chain failed (its
// error must surface when the search reaches it), a non-plain candidate,
// a persisted share of a candidate — the search runs instead.

// countPlan is the node-independent part of the answer from counts,
// decided once per prepared set of claims; nil when the claims do not
// qualify.
type countPlan struct {
	// req is one of the requests; all share its selector chain.
	req *request
	// total devices all claims take; covered of them by the constraint.
	total, covered int
	// constrained is set when one matchAttribute constraint exists; attr
	// numbers its attribute name in the matcher.
	constrained bool
	attr        int
	attrName    resourceapi.FullyQualifiedName
	// sums are the summaries of the requests' chain.
	sums *chainSummaries
}

// planCounts decides whether the prepared claims qualify for the answer
// from counts.
func (a *Allocator) planCounts(p *prepared) *countPlan {
	if p.err != nil {
		return nil
	}
	q := &countPlan{}
	for ci, reqs := range p.requests {
		claimTotal := 0
		for _, alts := range reqs {
			if len(alts) != 1 {
				return nil
			}
			r := alts[0]
			if r.hasSubs || r.mode != resourceapi.DeviceAllocationModeExactCount || r.adminAccess || r.capacity != nil || r.derived != nil ||
				r.numDevices < 0 || r.numDevices > resourceapi.AllocationResultsMaxSize {
				return nil
			}
			if q.req == nil {
				q.req = r
			} else if r.chain != q.req.chain {
				return nil
			}
			claimTotal += r.numDevices
		}
		// Larger claims fail in prepare, or make the search try
		// alternatives.
		if claimTotal > resourceapi.AllocationResultsMaxSize {
			return nil
		}
		q.total += claimTotal
		for _, con := range p.claims[ci].Spec.Devices.Constraints {
			if con.MatchAttribute == nil || q.constrained {
				return nil
			}
			q.constrained, q.attrName = true, *con.MatchAttribute
			for _, alts := range reqs {
				if subjects(con.Requests).covers(alts[0].base, "") {
					q.covered += alts[0].numDevices
				}
			}
		}
	}
	if q.req == nil {
		return nil
	}
	if q.constrained {
		q.attr = a.matcher.attrID(string(q.attrName))
	}
	q.sums = q.req.cached.sums
	return q
}

// isPlain reports a device that the search accepts whenever it is a free
// candidate of an unconstrained plain request (see tryDevice and
// capacityFits).
func isPlain(d *inventory.Device) bool {
	return len(d.Spec.ConsumesCounters) == 0 && plainButCounters(d)
}

// plainButCounters reports a device that isPlain would accept if it
// consumed no counters.
func plainButCounters(d *inventory.Device) bool {
	return !ptr.Deref(d.Spec.AllowMultipleAllocations, false) && len(d.Spec.Taints) == 0 && d.PlainCapacity &&
		!skipsNodeOperations(d)
}

// countSummary returns the summary of the plan's selection on the view,
// computing the selection on first use; nil when it cannot be kept (the
// context ended while evaluating).
func (a *Allocator) countSummary(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim,
	view *inventory.NodeView, id inventory.ViewID, q *countPlan) *summary {
	if s := q.sums.lookup(id); s != nil {
		return s
	}
	c := a.newCall(ctx, node, claims, view)
	defer a.done(c)
	sel := c.selection(q.req)
	if memoOf(view).selection(q.req.chain) != sel {
		return nil
	}
	s, tableGrowth := q.sums.store(view, sel)
	a.matcher.charge(q.req.cached, id, summarySize(len(s.idx)))
	a.matcher.grewChain(q.req.cached, tableGrowth)
	return s
}

// answerFromCounts answers whether the claims fit on the summarized view; ok is
// false when it cannot tell and the search must run.
func (a *Allocator) answerFromCounts(q *countPlan, s *summary, view *inventory.NodeView) (fits, ok bool) {
	if !s.plain {
		k, ok := a.firstPartition(q, s, view)
		return k >= 0, ok
	}
	st := a.state
	capacity := a.features.ConsumableCapacity
	need := q.total
	if q.covered == 0 {
		if need == 0 {
			return true, true
		}
		for _, i := range s.idx {
			if st.dedicated.Has(int(i)) {
				continue
			}
			if capacity && st.shared.Has(int(i)) {
				// Persisted consumption: capacityFits decides.
				return false, false
			}
			if need--; need == 0 {
				return true, true
			}
		}
		return false, true
	}
	cl := attrClassesOf(view, q)
	if cl.of == nil {
		return false, false
	}
	var counts [maxClasses]int32
	free, ok := a.countFree(s, cl.of, &counts)
	if !ok {
		return false, false
	}
	return free >= need && slices.Max(counts[:]) >= int32(q.covered), true
}

// countFree counts the free matches of the summary, in total and per value
// class of of; ok is false when a match has a persisted share, for which
// capacityFits decides.
func (a *Allocator) countFree(s *summary, of []int8, counts *[maxClasses]int32) (free int, ok bool) {
	st := a.state
	capacity := a.features.ConsumableCapacity
	for k, i := range s.idx {
		if st.dedicated.Has(int(i)) {
			continue
		}
		if capacity && st.shared.Has(int(i)) {
			return 0, false
		}
		free++
		if x := of[s.pos[k]]; x >= 0 {
			counts[x]++
		}
	}
	return free, true
}

// maxClasses bounds the value classes the answer from counts counts; a view
// with more distinct values of the attribute is searched.
const maxClasses = 64

// attrClasses groups a view's devices by the value of one attribute, as
// matchConstraint compares them: devices in one class may all join.
type attrClasses struct {
	// of is the class by view position, -1 for devices without the
	// attribute; nil when the view does not qualify (too many values, or
	// a value that is not exactly one scalar).
	of []int8
}

// attrClassesOf returns the view's classes for the plan's attribute,
// computing them on first use.
func attrClassesOf(v *inventory.NodeView, q *countPlan) *attrClasses {
	if cl := memoOf(v).attrClasses(q.attr); cl != nil {
		return cl
	}
	var cl *attrClasses
	v.UpdateMemo(func(current any) any {
		m := asViewMemo(current)
		if cl = m.attrClasses(q.attr); cl != nil {
			return current
		}
		cl = newAttrClasses(v, q.attrName)
		return m.withClasses(q.attr, cl)
	})
	return cl
}

func newAttrClasses(v *inventory.NodeView, name resourceapi.FullyQualifiedName) *attrClasses {
	of := make([]int8, len(v.Devices))
	ids := map[string]int8{}
	for i, d := range v.Devices {
		attr, found := lookupAttribute(d, name)
		if !found {
			of[i] = -1
			continue
		}
		key, ok := scalarKey(&attr)
		if !ok {
			return &attrClasses{}
		}
		id, seen := ids[key]
		if !seen {
			if len(ids) == maxClasses {
				return &attrClasses{}
			}
			id = int8(len(ids))
			ids[key] = id
		}
		of[i] = id
	}
	return &attrClasses{of: of}
}

// scalarKey renders an attribute holding exactly one scalar so that two
// attributes have the same key exactly when sameScalar reports them the
// same. ok is false for any other attribute (sameScalar is not an
// equivalence on them).
func scalarKey(a *resourceapi.DeviceAttribute) (key string, ok bool) {
	n := 0
	switch {
	case a.StringValue != nil:
		key = "s" + *a.StringValue
	case a.IntValue != nil:
		key = "i" + strconv.FormatInt(*a.IntValue, 10)
	case a.BoolValue != nil:
		key = "b" + strconv.FormatBool(*a.BoolValue)
	case a.VersionValue != nil:
		key = "v" + *a.VersionValue
	}
	for _, set := range []bool{a.StringValue != nil, a.IntValue != nil, a.BoolValue != nil, a.VersionValue != nil} {
		if set {
			n++
		}
	}
	return key, n == 1
}
