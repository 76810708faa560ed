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
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// explanationKind classifies why claims do not fit on a node. The kinds
// are in no particular order: rank orders them from closest to fitting to
// furthest, and Explanation.String renders each.
type explanationKind int

const (
	// kindCannotAllocate: every request has enough usable matching devices on
	// its own, yet no combination satisfies them all (counters or capacity
	// shared by its devices, or several requests competing for the same
	// devices).
	kindCannotAllocate explanationKind = iota
	// kindNoMatchingDevice: no device on the node matches the request's class
	// and selectors.
	kindNoMatchingDevice
	// kindAllMatchingAllocated: devices match, but all of them are allocated.
	kindAllMatchingAllocated
	// kindNotEnoughFree: some matching devices are free, fewer than requested.
	kindNotEnoughFree
	// kindConstraintUnsatisfiable: enough devices are free for each request,
	// but none of their combinations meets the claim's constraints.
	kindConstraintUnsatisfiable
	// kindCutShort: the claims do not fit, but ExplainBefore's deadline ended
	// the search for the cause before it was found.
	kindCutShort
	// kindTooFewMatching: fewer devices on the node match the request than it
	// asks for, allocated or not: the node could not hold it even empty.
	kindTooFewMatching
	// kindUntoleratedTaints: enough matching devices are free, but too many
	// of them have taints the request does not tolerate.
	kindUntoleratedTaints
	// kindCountersExhausted: enough matching devices are free, but too many
	// of them are partitions whose shared counters (a GPU's memory or
	// compute) other allocations have used up.
	kindCountersExhausted
	// kindCapacityExhausted: enough matching devices allow sharing, but too
	// many of them lack the capacity the request consumes.
	kindCapacityExhausted
	// kindNodeOperationsRequired: enough matching devices are free, but too
	// many of them skip node operations (DRAOptionalNodeOperations), which
	// the node does not declare it honours.
	kindNodeOperationsRequired
)

// Explanation says why claims do not fit on a node. Its String is the same
// for every node with the same finding, so that a scheduler can count
// nodes by reason.
type Explanation struct {
	// Kind is the finding; String says it in words, the same for every
	// node with the same finding.
	Kind explanationKind
	// Request is the request (the base name of a firstAvailable request)
	// the finding is about; Class and Selectors describe what it asks for.
	Request   string
	Class     string
	Selectors []string
	// Need is how many devices the request asks for (kindTooFewMatching).
	Need int
	// Constraint names the attribute constraint, as "matchAttribute <name>"
	// or "distinctAttribute <name>".
	Constraint string
	// UnusablePools lists the node's pools the allocator had to skip, with
	// why ("<driver>/<pool> is incomplete" while a driver publishes its
	// slices, or invalid with the reason): their devices were not
	// considered, which may be the real cause.
	UnusablePools []string
}

func (e Explanation) String() string {
	s := e.finding()
	if len(e.UnusablePools) > 0 {
		s += "; unusable pools: " + strings.Join(e.UnusablePools, ", ")
	}
	return s
}

func (e Explanation) finding() string {
	switch e.Kind {
	case kindNoMatchingDevice:
		what := "class " + e.Class
		if len(e.Selectors) > 0 {
			what += ", selector " + strings.Join(e.Selectors, " && ")
		}
		return fmt.Sprintf("no device matches request %q (%s)", e.Request, what)
	case kindTooFewMatching:
		return fmt.Sprintf("request %q needs %d matching devices, more than the node has, allocated or free (class %s)", e.Request, e.Need, e.Class)
	case kindAllMatchingAllocated:
		return fmt.Sprintf("all devices matching request %q are allocated", e.Request)
	case kindUntoleratedTaints:
		return fmt.Sprintf("free devices matching request %q have taints it does not tolerate (class %s)", e.Request, e.Class)
	case kindCountersExhausted:
		return fmt.Sprintf("free devices matching request %q need shared counters that other allocations used up (class %s)", e.Request, e.Class)
	case kindCapacityExhausted:
		return fmt.Sprintf("devices matching request %q have too little capacity left for it (class %s)", e.Request, e.Class)
	case kindNodeOperationsRequired:
		return fmt.Sprintf("free devices matching request %q skip node operations, which the node does not declare it supports (DRAOptionalNodeOperations; class %s)", e.Request, e.Class)
	case kindNotEnoughFree:
		return fmt.Sprintf("not enough free devices for request %q (class %s)", e.Request, e.Class)
	case kindConstraintUnsatisfiable:
		return e.Constraint + " unsatisfiable"
	case kindCutShort:
		return "cannot allocate all claims (the search for the cause was cut short by the filter timeout)"
	default:
		return "cannot allocate all claims"
	}
}

// ExplainBefore tells why Allocate found no solution for claims on node,
// by a deadline. It is meant for the failure path only: it may allocate,
// and it assumes that Allocate returned neither results nor an error for
// the same inputs. The deadline (the ...Within methods take a timeout
// instead) lets a scheduler's Filter spend one time budget on FitsWithin
// and the explanation together: take deadline as the start plus the
// filter timeout. The deadline limits
// what FitsWithin's timeout limits — evaluating selectors, each search for
// the cause (one per claim constraint and more) — while findings read off
// selections already kept for the node need no time. When the deadline
// ends the search first, the finding is kindCutShort. The zero deadline means
// none; a context that ends first makes the finding the generic
// kindCannotAllocate.
func (a *Allocator) ExplainBefore(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, deadline time.Time) Explanation {
	view, id, err := a.inv.ViewAndID(node, a.viewOptions())
	if err != nil {
		return Explanation{}
	}
	p := a.prepared.Load()
	if !p.sameClaims(claims) {
		p = a.prepareClaims(claims)
	}
	e, ok := a.explainFromCounts(ctx, p, id)
	if !ok {
		e = a.explainBySearch(ctx, node, claims, view, p, deadline)
	}
	for _, pool := range view.Pools {
		switch {
		case pool.Invalid:
			e.UnusablePools = append(e.UnusablePools, fmt.Sprintf("%s is invalid (%s)", pool.ID, pool.InvalidReason))
		case pool.Incomplete:
			e.UnusablePools = append(e.UnusablePools, fmt.Sprintf("%s is incomplete (not all of its slices are published)", pool.ID))
		}
	}
	return e
}

// explainBySearch is ExplainBefore's finding from the call's selections,
// counts and, for claim constraints, searches.
func (a *Allocator) explainBySearch(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, view *inventory.NodeView, p *prepared, deadline time.Time) Explanation {
	c := a.newCall(ctx, node, claims, view)
	defer a.done(c)
	c.deadline = deadline
	if err := c.prepare(p); err != nil {
		return c.failed()
	}
	return c.explain(node, view)
}

// explainFromCounts is ExplainBefore's finding read off the summary that
// answering from counts (count.go) kept for the view, where the claims
// qualify and every match is plain: then each match is either allocated
// or usable, and every request counts the same matches, so explainRequest
// would find what the summary's counts give, request after request,
// without a selection or a device object. Claims with a constraint need
// explain's searches; ok is false for them, as where no plain summary is
// kept or the context ended.
func (a *Allocator) explainFromCounts(ctx context.Context, p *prepared, id inventory.ViewID) (e Explanation, ok bool) {
	q := p.counts
	if q == nil || q.constrained || a.cross != nil || ctx.Err() != nil {
		return Explanation{}, false
	}
	s := q.sums.lookup(id)
	if s == nil || !s.plain {
		return Explanation{}, false
	}
	n := DeviceCounts{Matching: len(s.idx)}
	for _, i := range s.idx {
		if a.state.isAllocated(int(i)) {
			n.Allocated++
		}
	}
	n.Usable = n.Matching - n.Allocated
	for _, reqs := range p.requests {
		for _, alts := range reqs {
			r := alts[0]
			e := Explanation{Request: r.base, Class: r.class.Name, Selectors: r.describeSelectors()}
			e.Kind, e.Need = findingOf(n, r.numDevices)
			if e.Kind != kindCannotAllocate {
				return e, true
			}
		}
	}
	return Explanation{}, true
}

// interrupted reports whether the call's context or deadline has ended:
// a search or selection of the call may then have been cut off.
func (c *call) interrupted() bool {
	return c.ctx.Err() != nil || !c.deadline.IsZero() && time.Now().After(c.deadline)
}

// failed is the explanation when the call's work failed: kindCutShort if the
// deadline cut it off, else the generic finding (the work itself failed,
// or the caller stopped asking).
func (c *call) failed() Explanation {
	if c.ctx.Err() == nil && c.interrupted() {
		return Explanation{Kind: kindCutShort}
	}
	return Explanation{}
}

// explain finds the most specific reason, request by request, then claim
// constraints.
func (c *call) explain(node *v1.Node, view *inventory.NodeView) Explanation {
	a := c.a
	for _, cs := range c.claimStates {
		for _, alts := range cs.requests {
			// A firstAvailable request is blocked only if every alternative
			// is; report the alternative that came closest.
			best := Explanation{Kind: -1}
			for _, r := range alts {
				e, ok := c.explainRequest(r)
				if !ok {
					return c.failed()
				}
				if best.Kind < 0 || rank(e.Kind) < rank(best.Kind) {
					best = e
				}
			}
			if best.Kind != kindCannotAllocate {
				return best
			}
		}
	}
	for _, cs := range c.claimStates {
		e, ok, err := a.blameConstraint(c.ctx, node, view, cs.obj, c.deadline)
		if err != nil {
			return c.failed()
		}
		if ok {
			return e
		}
	}
	return Explanation{}
}

// blameConstraint finds the constraint that keeps claim, on its own, from
// fitting on the node: the claim must not fit as it is, must fit without
// constraints, and must not fit with that one constraint alone. An error
// says that the context or the deadline cut a search off.
func (a *Allocator) blameConstraint(ctx context.Context, node *v1.Node, view *inventory.NodeView, claim *resourceapi.ResourceClaim,
	deadline time.Time) (Explanation, bool, error) {
	constraints := claim.Spec.Devices.Constraints
	if len(constraints) == 0 {
		return Explanation{}, false, nil
	}
	fits := func(claim *resourceapi.ResourceClaim) (bool, error) { return a.fits(ctx, node, view, claim, deadline) }
	if ok, err := fits(claim); ok || err != nil {
		return Explanation{}, false, err
	}
	with := func(cons []resourceapi.DeviceConstraint) *resourceapi.ResourceClaim {
		c := claim.DeepCopy()
		c.Spec.Devices.Constraints = cons
		return c
	}
	if ok, err := fits(with(nil)); !ok || err != nil {
		return Explanation{}, false, err
	}
	var names []string
	for _, con := range constraints {
		name := constraintName(con)
		ok, err := fits(with([]resourceapi.DeviceConstraint{con}))
		if err != nil {
			return Explanation{}, false, err
		}
		if !ok {
			return Explanation{Kind: kindConstraintUnsatisfiable, Constraint: name}, true, nil
		}
		names = append(names, name)
	}
	// Each holds alone; only together do they fail.
	return Explanation{Kind: kindConstraintUnsatisfiable, Constraint: strings.Join(names, " with ")}, true, nil
}

func constraintName(con resourceapi.DeviceConstraint) string {
	switch {
	case con.MatchAttribute != nil:
		return "matchAttribute " + string(*con.MatchAttribute)
	case con.DistinctAttribute != nil:
		return "distinctAttribute " + string(*con.DistinctAttribute)
	default:
		return "constraint"
	}
}

// fits runs the search for one claim on the node within the deadline (the
// zero deadline is none), without touching the allocator's per-pod cache
// (other nodes may be using it). The claim does not fit where the search
// fails; the error says that the context or the deadline cut it off.
func (a *Allocator) fits(ctx context.Context, node *v1.Node, view *inventory.NodeView, claim *resourceapi.ResourceClaim, deadline time.Time) (bool, error) {
	claims := []*resourceapi.ResourceClaim{claim}
	c := a.newCall(ctx, node, claims, view)
	defer a.done(c)
	c.deadline = deadline
	err := c.prepare(a.prepareClaims(claims))
	done := false
	if err == nil {
		done, err = c.step(position{}, 0)
	}
	switch {
	case err == nil:
		return done, nil
	case c.interrupted():
		return false, fmt.Errorf("search for the cause cut short: %w", err)
	default:
		return false, nil
	}
}

// rank orders kinds from "closest to fitting" to "furthest".
func rank(k explanationKind) int {
	switch k {
	case kindCannotAllocate:
		return 0
	case kindNotEnoughFree, kindUntoleratedTaints, kindCountersExhausted, kindCapacityExhausted, kindNodeOperationsRequired:
		return 1
	case kindAllMatchingAllocated:
		return 2
	default:
		return 3
	}
}

// explainRequest counts the request's matching devices on the call's node
// by what keeps them from it; ok is false when evaluating its selectors
// was cut off.
func (c *call) explainRequest(r *request) (e Explanation, ok bool) {
	e = Explanation{Request: r.base, Class: r.class.Name, Selectors: r.describeSelectors()}
	sel := c.selection(r)
	if sel.interrupted {
		return Explanation{}, false
	}
	n, _ := c.countDevices(r, sel)
	need := r.numDevices
	if r.mode == resourceapi.DeviceAllocationModeAll {
		need = n.Matching
	}
	e.Kind, e.Need = findingOf(n, need)
	return e, true
}

// findingOf is the finding for a request that needs need of the devices
// counted in n, with the Need it reports (kindTooFewMatching only).
func findingOf(n DeviceCounts, need int) (explanationKind, int) {
	switch {
	case n.Matching == 0:
		return kindNoMatchingDevice, 0
	case n.Matching < need:
		return kindTooFewMatching, need
	case n.Allocated == n.Matching:
		return kindAllMatchingAllocated, 0
	case n.Matching-n.Allocated < need:
		return kindNotEnoughFree, 0
	case n.Usable >= need:
		return kindCannotAllocate, 0
	}
	// Enough are free; name what blocks most of the rest.
	kind := kindUntoleratedTaints
	if n.CountersExhausted > n.Tainted {
		kind = kindCountersExhausted
	}
	if n.CapacityExhausted > max(n.Tainted, n.CountersExhausted) {
		kind = kindCapacityExhausted
	}
	if n.NodeOperationsRequired > max(n.Tainted, n.CountersExhausted, n.CapacityExhausted) {
		kind = kindNodeOperationsRequired
	}
	return kind, 0
}
