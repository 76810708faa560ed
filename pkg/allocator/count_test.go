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
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// TestQuickFitsRandom compares Fits and Allocate with upstream on cases
// shaped for the answer from counts (count.go): interchangeable devices, requests
// of one selector chain, at most one matchAttribute constraint, random
// occupancy — and near misses of that shape (two chains, a distinct
// constraint, two constraints), which must take the search.
func TestQuickFitsRandom(t *testing.T) {
	n := envInt(t, "DRA_QUICK_CASES", 400)
	first := envInt(t, "DRA_QUICK_SEED", 1)
	attrs := []string{
		"resource.kubernetes.io/pciRoot", inventorygen.DriverSchedulerPerf + "/pciRoot", inventorygen.DriverSchedulerPerf + "/sriov",
		inventorygen.DriverSchedulerPerf + "/driverVersion", inventorygen.DriverSchedulerPerf + "/model", "example.com/missing",
	}
	selectors := []string{
		"", `device.attributes["test-driver.cdi.k8s.io"].model == "B60"`,
		`device.attributes["resource.kubernetes.io"].pciRoot == "pci0000:01"`,
	}
	before := quickNodes.Load()
	for seed := first; seed < first+n; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		c := inventorygen.SchedulerPerf(1+rng.IntN(4), 1+rng.IntN(8))
		var alloc inventorygen.Allocated
		occupancy := rng.Float64()
		for _, d := range c.Devices() {
			if rng.Float64() < occupancy {
				alloc.Devices = append(alloc.Devices, d)
			}
		}
		sel := selectors[rng.IntN(len(selectors))]
		var claims []*resourceapi.ResourceClaim
		for ci := range 1 + rng.IntN(2) {
			var reqs []resourceapi.DeviceRequest
			var names []string
			for ri := range 1 + rng.IntN(3) {
				name := fmt.Sprintf("req-%d", ri)
				s := sel
				if rng.IntN(10) == 0 {
					s = selectors[rng.IntN(len(selectors))]
				}
				var ss []string
				if s != "" {
					ss = []string{s}
				}
				reqs = append(reqs, inventorygen.ExactRequest(name, inventorygen.ClassSchedulerPerf, int64(rng.IntN(4)), ss...))
				if rng.IntN(2) == 0 {
					names = append(names, name)
				}
			}
			claim := inventorygen.NewClaim(fmt.Sprintf("claim-%d", ci), reqs...)
			for range rng.IntN(3) {
				attr := resourceapi.FullyQualifiedName(attrs[rng.IntN(len(attrs))])
				con := resourceapi.DeviceConstraint{Requests: names, MatchAttribute: &attr}
				if rng.IntN(5) == 0 {
					con.MatchAttribute, con.DistinctAttribute = nil, &attr
				}
				claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, con)
			}
			claims = append(claims, claim)
		}
		tc := diffCase{
			features: defaultFeatures,
			state:    alloc.State(),
			classes:  c.ClassLister(),
			slices:   c.Slices,
			claims:   claims,
			nodes:    c.Nodes,
		}
		if diffs := compare(t.Context(), tc); len(diffs) > 0 {
			t.Fatalf("seed %d differs from upstream:\n%s", seed, strings.Join(diffs, "\n"))
		}
	}
	quick := quickNodes.Load() - before
	t.Logf("%d cases, seeds %d..%d: Fits answered %d nodes without a search", n, first, first+n-1, quick)
	if n >= 100 && quick == 0 {
		t.Error("no node was answered without a search")
	}
}

// TestQuickFitsFollowsChanges keeps one inventory and matcher, as the
// scheduler does, while slices change and devices get allocated: the
// quick answers kept per view must follow, agreeing with a fresh
// allocator's Allocate every time.
func TestQuickFitsFollowsChanges(t *testing.T) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(3, 4))
	c := inventorygen.SchedulerPerf(3, 4)
	inv := inventory.New()
	for _, s := range c.Slices {
		inv.Set(s)
	}
	matcher := allocator.NewMatcher(nil)
	claims := []*resourceapi.ResourceClaim{inventorygen.ExactClaim("c", inventorygen.ClassSchedulerPerf, 2,
		`device.attributes["test-driver.cdi.k8s.io"].model == "B60"`)}
	current := slices.Clone(c.Slices)
	for step := range 200 {
		if rng.IntN(3) == 0 {
			// Republish a node's slice with another device count and models.
			i := rng.IntN(len(current))
			s := c.Slices[i].DeepCopy()
			s.Spec.Devices = s.Spec.Devices[:rng.IntN(len(c.Slices[i].Spec.Devices)+1)]
			for j := range s.Spec.Devices {
				if rng.IntN(2) == 0 {
					model := "other"
					s.Spec.Devices[j].Attributes["model"] = resourceapi.DeviceAttribute{StringValue: &model}
				}
			}
			current[i] = s
			inv.Set(s)
		}
		var alloc inventorygen.Allocated
		for _, d := range c.Devices() {
			if rng.IntN(3) == 0 {
				alloc.Devices = append(alloc.Devices, d)
			}
		}
		state := alloc.State()
		kept := allocator.New(defaultFeatures, allocator.NewState(inv, state), c.ClassLister(), inv, matcher, allocator.FirstFit)
		fresh, _ := allocator.NewAllocator(ctx, defaultFeatures, state, c.ClassLister(), current, nil)
		for _, n := range c.Nodes {
			fits, err := kept.Fits(ctx, n, claims)
			res, ferr := fresh.Allocate(ctx, n, claims)
			if err != nil || ferr != nil || fits != (res != nil) {
				t.Fatalf("step %d, node %s: Fits %v (%v), fresh Allocate %v (%v)", step, n.Name, fits, err, res != nil, ferr)
			}
		}
	}
}

// TestFitsWithinTimesOnlyUnboundedWork checks upstream's filter timeout as
// FitsWithin applies it: evaluating selectors and searching fail once the
// time is up, while an answer read off a kept summary, bounded by the
// node's devices, needs no timer and cannot time out.
func TestFitsWithinTimesOnlyUnboundedWork(t *testing.T) {
	ctx := t.Context()
	c := inventorygen.SchedulerPerf(2, 4)
	inv := inventory.New()
	for _, s := range c.Slices {
		inv.Set(s)
	}
	matcher := allocator.NewMatcher(nil)
	state := allocator.NewState(inv, inventorygen.Allocated{}.State())
	newAlloc := func() *allocator.Allocator {
		return allocator.New(defaultFeatures, state, c.ClassLister(), inv, matcher, allocator.FirstFit)
	}
	plain := []*resourceapi.ResourceClaim{inventorygen.ExactClaim("plain", inventorygen.ClassSchedulerPerf, 2)}
	distinct := inventorygen.ExactClaim("distinct", inventorygen.ClassSchedulerPerf, 2)
	attr := resourceapi.FullyQualifiedName(inventorygen.DriverSchedulerPerf + "/model")
	distinct.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{DistinctAttribute: &attr}}
	searched := []*resourceapi.ResourceClaim{distinct}
	node := c.Nodes[0]
	const expired = time.Nanosecond

	for name, claims := range map[string][]*resourceapi.ResourceClaim{"a claim the answer from counts cannot take": searched, "a claim on a node not yet summarized": plain} {
		t.Run("fails with DeadlineExceeded for "+name, func(t *testing.T) {
			fits, err := newAlloc().FitsWithin(ctx, node, claims, expired)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("FitsWithin(%v) = %v, %v; want an error wrapping context.DeadlineExceeded", expired, fits, err)
			}
		})
	}
	t.Run("answers from a kept summary without a timer", func(t *testing.T) {
		a := newAlloc()
		if fits, err := a.Fits(ctx, node, plain); !fits || err != nil {
			t.Fatalf("Fits = %v, %v; want true, nil", fits, err)
		}
		if fits, err := a.FitsWithin(ctx, node, plain, expired); !fits || err != nil {
			t.Fatalf("FitsWithin(%v) after the summary exists = %v, %v; want true, nil", expired, fits, err)
		}
	})
	t.Run("no timeout means none", func(t *testing.T) {
		if fits, err := newAlloc().FitsWithin(ctx, node, searched, 0); err != nil {
			t.Fatalf("FitsWithin(0) = %v, %v; want no error", fits, err)
		}
	})
	t.Run("AllocateWithin times the search as FitsWithin does", func(t *testing.T) {
		if results, err := newAlloc().AllocateWithin(ctx, node, searched, expired); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("AllocateWithin(%v) = %v, %v; want an error wrapping context.DeadlineExceeded", expired, results, err)
		}
		results, err := newAlloc().AllocateWithin(ctx, node, plain, time.Minute)
		if err != nil || len(results) != 1 || len(results[0].Devices.Results) != 2 {
			t.Errorf("AllocateWithin(1m) = %v, %v; want the claim's two devices", results, err)
		}
	})
}
