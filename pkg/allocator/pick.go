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
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Picking without a search.
//
// Where the answer from counts says the claims fit, FirstFit's search
// would take, for unconstrained claims, the first free matches in search
// order: every plain candidate is accepted, so nothing is ever undone, and
// each request continues where the previous one stopped. With one
// matchAttribute covering every device, the search settles on the class of
// the first free match whose class has enough free matches (an earlier
// device of a class without enough is undone) and takes that class's first
// free matches. firstFitPositions reproduces exactly that, so Allocate on a
// fitting node does not search either (takeFirstFit fills a call with it,
// resultsOnStack builds a single claim's results without one); the
// differential tests hold it to upstream.

// firstFitPositions appends to out the view positions of the devices FirstFit's
// search would take for a plan the answer from counts found fitting, in the
// order the claims' requests take them (claim by claim, request by
// request); ok is false when it cannot tell and the search must run.
func (a *Allocator) firstFitPositions(q *countPlan, s *summary, view *inventory.NodeView, out []int32) (_ []int32, ok bool) {
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

// assignPositions appends to out the results of one claim's requests taking the
// devices at the next positions of pos (see firstFitPositions), and returns the
// positions left.
func assignPositions(reqs [][]*request, pos []int32, view *inventory.NodeView, out []deviceResult) ([]deviceResult, []int32) {
	for _, alts := range reqs {
		r := alts[0]
		for range r.numDevices {
			out = append(out, deviceResult{req: r, cand: candAt(view, int(pos[0]))})
			pos = pos[1:]
		}
	}
	return out, pos
}

// takeFirstFit fills the prepared call's results as FirstFit's search
// would for a plan the answer from counts found fitting; false (with
// nothing filled) when it cannot tell and the search must run.
func (c *call) takeFirstFit(q *countPlan, s *summary) bool {
	pos, ok := c.a.firstFitPositions(q, s, c.view, c.picked[:0])
	c.picked = pos[:0]
	if !ok {
		return false
	}
	for _, cs := range c.claimStates {
		cs.results, pos = assignPositions(cs.requests, pos, c.view, cs.results)
	}
	return true
}

// Bounds of the claims resultsOnStack handles on the stack.
const (
	maxDirectRequests = 8
	maxDirectDevices  = 8
)

// fitsOnStack reports whether resultsOnStack handles the prepared claims.
func (p *prepared) fitsOnStack() bool {
	return len(p.claims) == 1 && len(p.requests) == 1 && len(p.requests[0]) <= maxDirectRequests && p.counts.total <= maxDirectDevices
}

// resultsOnStack builds the results for a single claim the answer from
// counts found fitting (fitsOnStack): firstFitPositions, assignPositions
// and buildResults on state that lives on the stack, so that no pooled
// state is written (each pointer written into long-lived memory costs a
// write barrier while the GC marks) and the result is the only
// allocation. ok is false when firstFitPositions cannot tell and the
// search must run.
func (a *Allocator) resultsOnStack(node *v1.Node, view *inventory.NodeView, p *prepared, s *summary) (results []resourceapi.AllocationResult, ok bool, err error) {
	var (
		cs       claimState
		states   [1]*claimState
		selected [maxDirectRequests]int
		devices  [maxDirectDevices]deviceResult
		posBuf   [maxDirectDevices]int32
	)
	pos, ok := a.firstFitPositions(p.counts, s, view, posBuf[:0])
	if !ok {
		return nil, false, nil
	}
	// A count plan has no All-mode request: the prepared requests are the
	// claim's, unchanged, and prepare's size check has passed (planCounts).
	reqs := p.requests[0]
	cs.obj, cs.requests, cs.selected = p.claims[0], reqs, selected[:len(reqs)]
	cs.results, _ = assignPositions(reqs, pos, view, devices[:0])
	states[0] = &cs
	results, err = buildResults(a.features, node.Name, states[:])
	return results, true, err
}
