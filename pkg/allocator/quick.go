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
// devices with pick (below) instead of searching for them.
// Whenever a premise fails — a candidate on which the chain failed (its
// error must surface when the search reaches it), a non-plain candidate,
// a persisted share of a candidate — the search runs instead.

// quickPlan is the node-independent part of the quick answer, decided once
// per prepared set of claims; nil when the claims do not qualify.
type quickPlan struct {
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

// planQuick decides whether the prepared claims qualify for the quick
// answer.
func (a *Allocator) planQuick(p *prepared) *quickPlan {
	if p.err != nil {
		return nil
	}
	q := &quickPlan{}
	for ci, reqs := range p.requests {
		claimTotal := 0
		for _, alts := range reqs {
			if len(alts) != 1 {
				return nil
			}
			r := alts[0]
			if r.hasSubs || r.mode != resourceapi.DeviceAllocationModeExactCount || r.adminAccess || r.capacity != nil ||
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

// quickSummary returns the summary of the plan's selection on the view,
// computing the selection on first use; nil when it cannot be kept (the
// context ended while evaluating).
func (a *Allocator) quickSummary(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim,
	view *inventory.NodeView, id inventory.ViewID, q *quickPlan) *summary {
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

// quick answers whether the claims fit on the summarized view; ok is
// false when it cannot tell and the search must run.
func (a *Allocator) quick(q *quickPlan, s *summary, view *inventory.NodeView) (fits, ok bool) {
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

// maxClasses bounds the value classes the quick answer counts; a view
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
func attrClassesOf(v *inventory.NodeView, q *quickPlan) *attrClasses {
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

// Picking without a search.
//
// Where the quick answer says the claims fit, FirstFit's search would
// take, for unconstrained claims, the first free matches in search order:
// every plain candidate is accepted, so nothing is ever undone, and each
// request continues where the previous one stopped. With one matchAttribute
// covering every device, the search settles on the class of the first
// free match whose class has enough free matches (an earlier device of a
// class without enough is undone) and takes that class's first free
// matches. pick reproduces exactly that, so Allocate on a fitting node
// does not search either; the differential tests hold it to upstream.

// picks appends to out the view positions of the devices FirstFit's
// search would take for a plan the quick answer found fitting, in the
// order the claims' requests take them (claim by claim, request by
// request); ok is false when it cannot tell and the search must run.
func (a *Allocator) picks(q *quickPlan, s *summary, view *inventory.NodeView, out []int32) (_ []int32, ok bool) {
	if a.policy != FirstFit {
		return out, false
	}
	if !s.plain {
		k, ok := a.firstPartition(q, s, view)
		if !ok || k < 0 {
			return out, false
		}
		return append(out, s.pos[k]), true
	}
	if q.covered > 0 && q.covered != q.total {
		return out, false
	}
	st := a.state
	capacity := a.features.ConsumableCapacity
	var of []int8
	want := int8(-1)
	if q.covered > 0 {
		cl := attrClassesOf(view, q)
		if cl.of == nil {
			return out, false
		}
		of = cl.of
		var counts [maxClasses]int32
		if _, ok := a.countFree(s, of, &counts); !ok {
			return out, false
		}
		for k, i := range s.idx {
			if x := of[s.pos[k]]; x >= 0 && !st.dedicated.Has(int(i)) && int(counts[x]) >= q.covered {
				want = x
				break
			}
		}
		if want < 0 {
			return out, false
		}
	}
	need := q.total
	for k, i := range s.idx {
		if need == 0 {
			break
		}
		if st.dedicated.Has(int(i)) || (want >= 0 && of[s.pos[k]] != want) {
			continue
		}
		if capacity && st.shared.Has(int(i)) {
			return out, false
		}
		out = append(out, s.pos[k])
		need--
	}
	return out, need == 0
}

// assign appends to out the results of one claim's requests taking the
// devices at the next positions of pos (see picks), and returns the
// positions left.
func assign(reqs [][]*request, pos []int32, view *inventory.NodeView, out []deviceResult) ([]deviceResult, []int32) {
	for _, alts := range reqs {
		r := alts[0]
		for range r.numDevices {
			out = append(out, deviceResult{req: r, cand: candAt(view, int(pos[0]))})
			pos = pos[1:]
		}
	}
	return out, pos
}

// pick fills the prepared call's results as FirstFit's search would for a
// plan the quick answer found fitting; false (with nothing filled) when it
// cannot tell and the search must run.
func (c *call) pick(q *quickPlan, s *summary) bool {
	pos, ok := c.a.picks(q, s, c.view, c.picked[:0])
	c.picked = pos[:0]
	if !ok {
		return false
	}
	for _, cs := range c.claimStates {
		cs.results, pos = assign(cs.requests, pos, c.view, cs.results)
	}
	return true
}

// Bounds of the claims pickOne handles on the stack.
const (
	maxDirectRequests = 8
	maxDirectDevices  = 8
)

// picksOne reports whether pickOne handles the prepared claims.
func (p *prepared) picksOne() bool {
	return len(p.claims) == 1 && len(p.requests) == 1 && len(p.requests[0]) <= maxDirectRequests && p.quick.total <= maxDirectDevices
}

// pickOne builds the results for a single claim the quick answer found
// fitting (picksOne): picks, assign and buildResults on state that lives on
// the stack, so that no pooled state is written (each pointer written into
// long-lived memory costs a write barrier while the GC marks) and the
// result is the only allocation. ok is false when picks cannot tell and
// the search must run.
func (a *Allocator) pickOne(node *v1.Node, view *inventory.NodeView, p *prepared, s *summary) (results []resourceapi.AllocationResult, ok bool, err error) {
	var (
		cs       claimState
		states   [1]*claimState
		selected [maxDirectRequests]int
		devices  [maxDirectDevices]deviceResult
		posBuf   [maxDirectDevices]int32
	)
	pos, ok := a.picks(p.quick, s, view, posBuf[:0])
	if !ok {
		return nil, false, nil
	}
	// A quick plan has no All-mode request: the prepared requests are the
	// claim's, unchanged, and prepare's size check has passed (planQuick).
	reqs := p.requests[0]
	cs.obj, cs.requests, cs.selected = p.claims[0], reqs, selected[:len(reqs)]
	cs.results, _ = assign(reqs, pos, view, devices[:0])
	states[0] = &cs
	results, err = buildResults(a.features, node.Name, states[:])
	return results, true, err
}
