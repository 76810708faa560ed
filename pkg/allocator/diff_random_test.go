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
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocationcheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// envInt reads a numeric knob of the differential test.
func envInt(t testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// randomCase turns a generated case into inputs for both allocators; it
// allocates on every node of the case with one allocator, as the
// scheduler does for one pod.
func randomCase(c inventorygen.Case) diffCase {
	return diffCase{
		features: c.Features,
		state:    c.AllocatedState(),
		classes:  c.ClassLister(),
		slices:   c.Slices,
		claims:   c.Claims,
		nodes:    c.Nodes,
	}
}

// checkCase compares one generated case with upstream and judges our
// allocations with the independent checker. It returns a failure report,
// or "" and the outcome class of the first node.
func checkCase(t testing.TB, c inventorygen.Case) (string, string) {
	tc := randomCase(c)
	diffs, ours := compareOutcomes(t.Context(), tc)
	if len(diffs) > 0 {
		return fmt.Sprintf("seed %d differs from upstream (notes %v):\n%s", c.Seed, c.Notes, strings.Join(diffs, "\n")), ""
	}
	for i, o := range ours {
		if o.err != nil || o.results == nil {
			continue
		}
		violations := allocationcheck.Check(t.Context(), allocationcheck.Input{
			Features:  tc.features,
			Node:      tc.nodes[i],
			Slices:    tc.slices,
			Classes:   tc.classes,
			Claims:    tc.claims,
			Allocated: tc.state,
		}, o.results)
		if len(violations) > 0 {
			return fmt.Sprintf("seed %d, node %s: invalid allocation (notes %v): %v\n%s", c.Seed, tc.nodes[i].Name, c.Notes, violations, o), ""
		}
	}
	switch o := ours[0]; {
	case o.err != nil && errors.Is(o.err, structured.ErrFailedAllocationOnNode):
		return "", "node-local error"
	case o.err != nil:
		return "", "error"
	case o.results == nil:
		return "", "does not fit"
	default:
		return "", "allocated"
	}
}

// runSeeds checks the cases generated from n seeds on from first
// (checkCase), each seen by observe first if it is set. It reports the
// first five failures and counts the rest; it returns the outcomes of the
// cases that passed and the number that failed.
func runSeeds(t *testing.T, first, n int, opts inventorygen.RandomOptions, observe func(inventorygen.Case)) (outcomes map[string]int, failures int) {
	outcomes = map[string]int{}
	for seed := first; seed < first+n; seed++ {
		c := inventorygen.Random(int64(seed), opts)
		if observe != nil {
			observe(c)
		}
		report, outcome := checkCase(t, c)
		if report != "" {
			failures++
			if failures <= 5 {
				t.Error(report)
			}
			continue
		}
		outcomes[outcome]++
	}
	if failures > 5 {
		t.Errorf("%d more cases failed", failures-5)
	}
	return outcomes, failures
}

// TestDifferentialRandom generates DRA_DIFF_CASES cases from seed
// DRA_DIFF_SEED on and demands upstream's exact outcome for each, and an
// allocation the independent checker accepts whenever one is returned.
func TestDifferentialRandom(t *testing.T) {
	n := envInt(t, "DRA_DIFF_CASES", 2000)
	first := envInt(t, "DRA_DIFF_SEED", 1)
	opts := inventorygen.DefaultRandomOptions()
	if os.Getenv("DRA_DIFF_LARGE") != "" {
		opts = inventorygen.LargeRandomOptions()
	}
	outcomes, failures := runSeeds(t, first, n, opts, nil)
	t.Logf("%d cases, seeds %d..%d: %d failed; outcomes %v; Fits answered without a search in %d cases, %d nodes", n, first, first+n-1, failures, outcomes, quickCases.Load(), quickNodes.Load())
	for _, want := range []string{"allocated", "does not fit", "error"} {
		if n >= 200 && outcomes[want] == 0 {
			t.Errorf("no case ended %q: the generator does not exercise it", want)
		}
	}
}

// TestDifferentialRandomTwins is TestDifferentialRandom over cases where
// claims often have the spec of the claim before them, as a gang's claims
// from one template do, with more firstAvailable requests and partitionable
// pools: the search bounds a twin's picks by its predecessor's (twins.go),
// which must change no outcome, error or result.
func TestDifferentialRandomTwins(t *testing.T) {
	n := envInt(t, "DRA_DIFF_CASES", 2000)
	first := envInt(t, "DRA_DIFF_SEED", 1)
	opts := inventorygen.DefaultRandomOptions()
	opts.TwinClaim, opts.MaxClaims, opts.MaxRequestsPerClaim, opts.FirstAvailable, opts.PartitionablePool, opts.Constraint = 0.7, 5, 2, 0.5, 0.5, 0.1
	withTwins := 0
	outcomes, failures := runSeeds(t, first, n, opts, func(c inventorygen.Case) {
		if slices.Contains(allocator.FindTwins(c.Claims), true) {
			withTwins++
		}
	})
	t.Logf("%d cases, %d with twins: %d failed; outcomes %v", n, withTwins, failures, outcomes)
	if n >= 200 && withTwins < n/10 {
		t.Errorf("only %d of %d cases have twin claims: the generator does not exercise them", withTwins, n)
	}
	for _, want := range []string{"allocated", "does not fit", "error"} {
		if n >= 200 && outcomes[want] == 0 {
			t.Errorf("no case ended %q: the generator does not exercise it", want)
		}
	}
}

// alphaVariants are the alpha feature sets the generator's alpha inputs
// run with: every combination of the features DRAAllocator implements.
var alphaVariants = []struct {
	name     string
	features structured.Features
}{
	{"alpha features off", structured.Features{}},
	{"OptionalNodeOperations", structured.Features{OptionalNodeOperations: true}},
	{"ListTypeAttributes", structured.Features{ListTypeAttributes: true}},
	{"DerivedAttributes", structured.Features{DerivedAttributes: true}},
	{"DerivedAttributes and ListTypeAttributes", structured.Features{DerivedAttributes: true, ListTypeAttributes: true}},
	{"CompatibilityGroups", structured.Features{CompatibilityGroups: true}},
	{"all four", structured.Features{OptionalNodeOperations: true, ListTypeAttributes: true, DerivedAttributes: true, CompatibilityGroups: true}},
}

// TestDifferentialRandomAlphaFeatures is TestDifferentialRandom over the
// inputs of the alpha features DRAAllocator implements — slices that skip
// node operations, nodes that declare or do not declare they honour them,
// list-typed attributes, derived attributes, compatibility groups — with
// combinations of those
// features: on, against upstream's experimental allocator; all off,
// against incubating (which ignores the node operations, compares lists as
// scalars and refuses derived attributes).
func TestDifferentialRandomAlphaFeatures(t *testing.T) {
	n := envInt(t, "DRA_DIFF_CASES", 2000)
	first := envInt(t, "DRA_DIFF_SEED", 1)
	for _, v := range alphaVariants {
		t.Run(v.name, func(t *testing.T) {
			opts := inventorygen.AlphaRandomOptions(v.features)
			skipping, lists, derived := 0, 0, 0
			outcomes, failures := runSeeds(t, first, n, opts, func(c inventorygen.Case) {
				if usesSkippedNodeOperations(c) {
					skipping++
				}
				if usesListAttributes(c) {
					lists++
				}
				if strings.Contains(fmt.Sprint(c.Notes), " derives ") {
					derived++
				}
			})
			t.Logf("%d cases (%d with slices that skip node operations, %d with list attributes, %d with derived attributes), seeds %d..%d: %d failed; outcomes %v",
				n, skipping, lists, derived, first, first+n-1, failures, outcomes)
			if n >= 200 && (skipping < n/4 || lists < n/4 || derived < n/20 || outcomes["allocated"] == 0) {
				t.Errorf("%d cases with skipping slices, %d with lists, %d with derived attributes, %d allocated: the generator does not exercise the features", skipping, lists, derived, outcomes["allocated"])
			}
		})
	}
}

// usesSkippedNodeOperations reports a case with a slice that skips node
// operations.
func usesSkippedNodeOperations(c inventorygen.Case) bool {
	for _, s := range c.Slices {
		if len(s.Spec.SkipNodeOperations) > 0 {
			return true
		}
	}
	return false
}

// usesListAttributes reports a case with a list-typed device attribute.
func usesListAttributes(c inventorygen.Case) bool {
	for _, s := range c.Slices {
		for _, d := range s.Spec.Devices {
			for _, a := range d.Attributes {
				if a.IntValues != nil || a.BoolValues != nil || a.StringValues != nil || a.VersionValues != nil {
					return true
				}
			}
		}
	}
	return false
}

// FuzzAllocator feeds generated cases chosen by the fuzzer's seed and
// variant (fuzzOptions): our allocator must never panic, always agree with
// upstream and never return an invalid allocation.
func FuzzAllocator(f *testing.F) {
	for _, seed := range []int64{1, 2, 3, 42, 1000} {
		for v := range uint8(1 + len(alphaVariants)) {
			f.Add(seed, v)
		}
	}
	f.Fuzz(func(t *testing.T, seed int64, variant uint8) {
		if report, _ := checkCase(t, inventorygen.Random(seed, fuzzOptions(variant))); report != "" {
			t.Fatal(report)
		}
	})
}

// fuzzOptions are the generator options of a fuzz variant: the 1.37
// defaults, then the alpha inputs with each of alphaVariants' feature
// sets.
func fuzzOptions(variant uint8) inventorygen.RandomOptions {
	k := int(variant) % (1 + len(alphaVariants))
	if k == 0 {
		return inventorygen.DefaultRandomOptions()
	}
	return inventorygen.AlphaRandomOptions(alphaVariants[k-1].features)
}
