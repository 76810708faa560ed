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
	"slices"
	"strconv"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocationcheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestAllocatorAgreesWithABruteForceSearch is issue 56 point 5's property
// test of the allocator-level bugs upstream had (upstreambugs_test.go): on
// DRA_BRUTE_CASES small random inventories from seed DRA_BRUTE_SEED on
// (bfGenerate: counters, multi-allocatable devices with capacity, list
// attributes, constraints, taints, All and ExactCount, firstAvailable,
// allocated devices and persisted shares), each with its devices in
// DRA_BRUTE_ORDERS orders, FirstFit and Packing must answer Fits and
// Allocate exactly as an exhaustive search over every assignment does,
// without an error, and every allocation they return must hold by the
// brute force's rules (bruteforce_rules_test.go) and by the independent
// checker. A leaked reservation, a stale intersection or a counter
// charged twice answers "does not fit" where an assignment exists; one
// ignored answers "fits" where none does. Not covered: admin access, and
// constraints over All requests (see bfGenerate).
func TestAllocatorAgreesWithABruteForceSearch(t *testing.T) {
	n := envInt(t, "DRA_BRUTE_CASES", 4000)
	first := envInt(t, "DRA_BRUTE_SEED", 1)
	orders := envInt(t, "DRA_BRUTE_ORDERS", 3)
	outcomes, notes := map[bool]int{}, map[string]int{}
	failures := 0
	for seed := first; seed < first+n; seed++ {
		c := bfGenerate(int64(seed))
		want := c.solvable()
		outcomes[want]++
		for note := range c.notes {
			notes[note]++
		}
		// The answer is the same whatever order the slices list the
		// devices in; the search's order, and where it backtracks,
		// is not: state a backtrack leaves behind shows in some
		// orders only.
		for k := range orders {
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
	t.Logf("%d cases in %d device orders, seeds %d..%d: %d failed; %d fit, %d do not; cases per input %v", n, orders, first, first+n-1, failures, outcomes[true], outcomes[false], notes)
	if n < 500 {
		return
	}
	for _, fit := range []bool{true, false} {
		if outcomes[fit] < n/5 {
			t.Errorf("only %d of %d cases have fits = %v: the generator does not exercise both answers", outcomes[fit], n, fit)
		}
	}
	for _, note := range []string{"list attributes", "counters", "taints", "allocated devices", "persisted shares",
		"multi-allocatable devices", "allocationMode All", "firstAvailable", "constraints", "topology"} {
		if notes[note] < n/20 {
			t.Errorf("only %d of %d cases have %s: the generator does not exercise them", notes[note], n, note)
		}
	}
}

// bfCompare asks FirstFit and Packing about the case and describes every
// way they differ from the brute force's answer want or allocate what its
// rules or the checker refuse; "" if none.
func bfCompare(t *testing.T, c *bfCase, want bool) string {
	in := c.render()
	ctx, node := t.Context(), objects.MakeNode("n").Obj()
	cache := cel.NewCache(10, cel.Features{EnableConsumableCapacity: true})
	firstFit, err := allocator.NewAllocator(ctx, in.features, in.state, in.classes, in.slices, cache)
	if err != nil {
		return fmt.Sprintf("%vNewAllocator: %v", c, err)
	}
	inv := inventory.New()
	for i, s := range in.slices {
		inv.SetWithKey(strconv.Itoa(i), s)
	}
	packing := allocator.New(in.features, allocator.NewState(inv, in.state), in.classes, inv, allocator.NewMatcher(cache), allocator.Packing)
	if len(in.cross) > 0 {
		firstFit, packing = firstFit.WithCrossClaimConstraints(in.cross, nil), packing.WithCrossClaimConstraints(in.cross, nil)
	}
	var problems []string
	for _, a := range []struct {
		policy string
		a      *allocator.Allocator
	}{{"FirstFit", firstFit}, {"Packing", packing}} {
		if fits, err := a.a.Fits(ctx, node, in.claims); err != nil || fits != want {
			problems = append(problems, fmt.Sprintf("%s: Fits = %v, %v", a.policy, fits, err))
		}
		res, err := a.a.Allocate(ctx, node, in.claims)
		if err != nil || (res != nil) != want {
			problems = append(problems, fmt.Sprintf("%s: Allocate fits %v, error %v", a.policy, res != nil, err))
		}
		if res == nil {
			continue
		}
		picks, why := c.picksOf(res)
		if why == "" {
			why = c.violation(picks, true)
		}
		if why != "" {
			problems = append(problems, fmt.Sprintf("%s: allocated %v, which breaks a rule: %s", a.policy, picks, why))
		}
		for _, v := range allocationcheck.Check(ctx, allocationcheck.Input{Features: in.features, Node: node, Slices: in.slices,
			Classes: in.classes, Claims: in.claims, Allocated: in.state}, res) {
			problems = append(problems, fmt.Sprintf("%s: the checker refuses the allocation: %v", a.policy, v))
		}
	}
	if len(problems) == 0 {
		return ""
	}
	// Upstream's answer tells a bug of ours from one of the model.
	upstream := "constructor failed"
	if u, err := structured.NewAllocator(ctx, in.features, in.state, in.classes, in.slices, cel.NewCache(10, cel.Features{EnableConsumableCapacity: true})); err == nil {
		res, err := u.Allocate(ctx, node, in.claims)
		upstream = fmt.Sprintf("fits %v, error %v", res != nil, err)
	}
	return fmt.Sprintf("%vbrute force: fits %v; upstream: %s\n%s", c, want, upstream, strings.Join(problems, "\n"))
}

// reordered returns the case with its devices listed in the k-th order:
// 0 as generated, others a shuffle (by seed and k).
func (c *bfCase) reordered(k int) *bfCase {
	if k == 0 {
		return c
	}
	out := *c
	out.devices = slices.Clone(c.devices)
	rand.New(rand.NewPCG(uint64(c.seed), uint64(k))).Shuffle(len(out.devices), func(i, j int) {
		out.devices[i], out.devices[j] = out.devices[j], out.devices[i]
	})
	return &out
}

// bfPick is one device taken by a request: alternative sub of request
// req of claim claim takes device dev.
type bfPick struct{ claim, req, sub, dev int }

// specOf is the (sub)request of pick p.
func (c *bfCase) specOf(p bfPick) bfSpec {
	specs, _ := c.claims[p.claim].requests[p.req].alternatives()
	return specs[p.sub]
}

// solvable is the brute force: whether any assignment of devices to the
// requests — an alternative per request, a combination of devices per
// ExactCount request, the All set per All request — breaks no rule.
// Every rule but "each request has its devices" is monotone (a broken
// one stays broken as devices are added), so a partial assignment that
// breaks one is not extended.
func (c *bfCase) solvable() bool {
	var picks []bfPick
	var walk func(ci, q int) bool
	walk = func(ci, q int) bool {
		if c.violation(picks, false) != "" {
			return false
		}
		if ci == len(c.claims) {
			return c.violation(picks, true) == ""
		}
		if q == len(c.claims[ci].requests) {
			return walk(ci+1, 0)
		}
		specs, _ := c.claims[ci].requests[q].alternatives()
		for si, s := range specs {
			for _, devs := range c.choices(s) {
				n := len(picks)
				for _, i := range devs {
					picks = append(picks, bfPick{ci, q, si, i})
				}
				if walk(ci, q+1) {
					return true
				}
				picks = picks[:n]
			}
		}
		return false
	}
	return walk(0, 0)
}

// choices are the device sets spec s may take: the All set, or every
// combination of count devices usable on their own.
func (c *bfCase) choices(s bfSpec) [][]int {
	if s.all {
		if all := c.allSet(s); len(all) > 0 {
			return [][]int{all}
		}
		return nil
	}
	var usable []int
	for i := range c.devices {
		if c.unusable(s, i) == "" {
			usable = append(usable, i)
		}
	}
	var out [][]int
	var combine func(from int, chosen []int)
	combine = func(from int, chosen []int) {
		if len(chosen) == s.count {
			out = append(out, slices.Clone(chosen))
			return
		}
		for k := from; k < len(usable); k++ {
			combine(k+1, append(chosen, usable[k]))
		}
	}
	combine(0, nil)
	return out
}

// picksOf turns allocation results into picks, or says why they name no
// request or device of the case.
func (c *bfCase) picksOf(results []resourceapi.AllocationResult) ([]bfPick, string) {
	if len(results) != len(c.claims) {
		return nil, fmt.Sprintf("%d results for %d claims", len(results), len(c.claims))
	}
	var picks []bfPick
	for ci, res := range results {
		for _, r := range res.Devices.Results {
			base, sub, _ := strings.Cut(r.Request, "/")
			q, err := strconv.Atoi(strings.TrimPrefix(base, "r"))
			if err != nil || q < 0 || q >= len(c.claims[ci].requests) {
				return nil, "unknown request " + r.Request
			}
			_, names := c.claims[ci].requests[q].alternatives()
			si := slices.Index(names, sub)
			di := slices.IndexFunc(c.devices, func(d bfDevice) bool { return d.name == r.Device && bfPoolName(d.pool) == r.Pool })
			if si < 0 || di < 0 || r.Driver != ubDriver {
				return nil, fmt.Sprintf("unknown request %s or device %s/%s/%s", r.Request, r.Driver, r.Pool, r.Device)
			}
			picks = append(picks, bfPick{ci, q, si, di})
		}
	}
	return picks, ""
}
