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

package allocator_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
)

// bfCross is a constraint across the claims of a brute-force case, on
// numa, over the subjects (nil: every request of every claim).
type bfCross struct {
	distinct bool
	subjects []bfSubject
}

// bfSubject is request req of claim claim, or every request of it (req
// -1).
type bfSubject struct{ claim, req int }

// covers reports whether the constraint covers pick p.
func (x *bfCross) covers(p bfPick) bool {
	if x.subjects == nil {
		return true
	}
	for _, s := range x.subjects {
		if s.claim == p.claim && (s.req < 0 || s.req == p.req) {
			return true
		}
	}
	return false
}

// addCross gives the case one or two constraints across its claims, from
// its seed: a request of each claim, a whole claim and a request of
// another, or everything. Like the claims' own, none covers an All
// request (see bfGenerate).
func (c *bfCase) addCross() {
	r := rand.New(rand.NewPCG(uint64(c.seed), 57))
	hasAll := func(ci, q int) bool {
		specs, _ := c.claims[ci].requests[q].alternatives()
		for _, s := range specs {
			if s.all {
				return true
			}
		}
		return false
	}
	for range 1 + r.IntN(2) {
		x := bfCross{distinct: r.IntN(2) == 0}
		if r.IntN(4) > 0 {
			for ci, cl := range c.claims {
				switch q := r.IntN(len(cl.requests) + 1); {
				case q == len(cl.requests):
					x.subjects = append(x.subjects, bfSubject{ci, -1})
				case !hasAll(ci, q):
					x.subjects = append(x.subjects, bfSubject{ci, q})
				}
			}
		}
		covered := false
		for ci, cl := range c.claims {
			for q := range cl.requests {
				if x.covers(bfPick{claim: ci, req: q}) && hasAll(ci, q) {
					covered = true
				}
			}
		}
		if covered {
			continue
		}
		c.cross = append(c.cross, x)
		c.notes.Insert("cross")
	}
}

// renderCross returns the case's constraints across claims for the
// allocator.
func (c *bfCase) renderCross() []allocator.CrossClaimConstraint {
	var out []allocator.CrossClaimConstraint
	for _, x := range c.cross {
		con := allocator.CrossClaimConstraint{}
		for _, s := range x.subjects {
			ref := allocator.ClaimRequest{Claim: "c" + strconv.Itoa(s.claim)}
			if s.req >= 0 {
				ref.Request = "r" + strconv.Itoa(s.req)
			}
			con.Requests = append(con.Requests, ref)
		}
		if x.distinct {
			con.DistinctAttribute = ubAttr("numa")
		} else {
			con.MatchAttribute = ubAttr("numa")
		}
		out = append(out, con)
	}
	return out
}

// crossViolation judges the picks by the constraints across claims.
func (c *bfCase) crossViolation(picks []bfPick) string {
	for i := range c.cross {
		x := &c.cross[i]
		var covered []bfValue
		for _, p := range picks {
			if !x.covers(p) {
				continue
			}
			d := &c.devices[p.dev]
			if d.numa == nil {
				return fmt.Sprintf("across claims %d: %s lacks the constrained attribute", i, d.name)
			}
			covered = append(covered, bfValue{d.str, d.numa})
		}
		if why := bfConstraintViolation(x.distinct, covered); why != "" {
			return fmt.Sprintf("across claims %d: %s", i, why)
		}
	}
	return ""
}

// TestCrossClaimConstraintsAgreeWithABruteForceSearch is
// TestAllocatorAgreesWithABruteForceSearch with one or two constraints
// across the claims of each case (addCross): FirstFit and Packing must
// answer as the exhaustive search does, and every allocation must hold by
// its rules, the constraints across claims included. DRA_BRUTE_CASES and
// DRA_BRUTE_SEED as there.
func TestCrossClaimConstraintsAgreeWithABruteForceSearch(t *testing.T) {
	n := envInt(t, "DRA_BRUTE_CASES", 4000)
	first := envInt(t, "DRA_BRUTE_SEED", 1)
	outcomes, failures := map[bool]int{}, 0
	for seed := first; seed < first+n; seed++ {
		c := bfGenerate(int64(seed))
		c.addCross()
		if len(c.cross) == 0 {
			continue
		}
		want := c.solvable()
		outcomes[want]++
		for k := range 2 {
			if report := bfCompare(t, c.reordered(k), want); report != "" {
				if failures++; failures <= 5 {
					t.Errorf("device order %d: %s", k, report)
				}
				break
			}
		}
	}
	if failures > 5 {
		t.Errorf("%d more cases failed", failures-5)
	}
	if outcomes[true] == 0 || outcomes[false] == 0 {
		t.Errorf("cases that fit %d, that do not %d: want both", outcomes[true], outcomes[false])
	}
	t.Logf("%d cases with constraints across claims: %d failed; %d fit, %d do not", outcomes[true]+outcomes[false], failures, outcomes[true], outcomes[false])
}
