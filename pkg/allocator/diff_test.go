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
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
)

func TestMain(m *testing.M) {
	// Compare with the implementation Kubernetes 1.37 runs: incubating for
	// every feature subset it supports (the defaults and all beta
	// features), experimental for cases with an alpha feature only it
	// implements.
	structured.EnableAllocators("incubating", "experimental")
	os.Exit(m.Run())
}

// defaultFeatures are the allocator features of Kubernetes 1.37 with
// default feature gates.
var defaultFeatures = structured.Features{
	AdminAccess:            true,
	PrioritizedList:        true,
	PartitionableDevices:   true,
	DeviceTaints:           true,
	DeviceBindingAndStatus: true,
	ConsumableCapacity:     true,
}

// nodeAllocator is what the tests and benchmarks call on both
// allocators, upstream's structured.Allocator and ours: one pod's claims
// on one node.
type nodeAllocator interface {
	Allocate(context.Context, *v1.Node, []*resourceapi.ResourceClaim) ([]resourceapi.AllocationResult, error)
}

// diffCase is one set of inputs for both allocators.
type diffCase struct {
	features structured.Features
	state    structured.AllocatedState
	classes  structured.DeviceClassLister
	slices   []*resourceapi.ResourceSlice
	claims   []*resourceapi.ResourceClaim
	nodes    []*v1.Node
}

// outcome is what one Allocate call returned, normalized for comparison.
type outcome struct {
	results []resourceapi.AllocationResult
	err     error
}

func (o outcome) String() string {
	if o.err != nil {
		return fmt.Sprintf("error (node-local %v): %v", errors.Is(o.err, structured.ErrFailedAllocationOnNode), o.err)
	}
	if o.results == nil {
		return "does not fit"
	}
	out, _ := yaml.Marshal(o.results)
	return string(out)
}

// run allocates the case on every node with one allocator built by
// newAlloc, as the scheduler does for one pod.
func (tc diffCase) run(ctx context.Context, newAlloc func() (nodeAllocator, error)) []outcome {
	a, err := newAlloc()
	if err != nil {
		return []outcome{{err: err}}
	}
	var out []outcome
	for _, node := range tc.nodes {
		res, err := a.Allocate(ctx, node, tc.claims)
		out = append(out, outcome{results: res, err: err})
	}
	return out
}

// withoutShareIDs returns a copy of results with every share ID replaced
// by a fixed one: they are random, only their presence is comparable.
func withoutShareIDs(results []resourceapi.AllocationResult) []resourceapi.AllocationResult {
	if results == nil {
		return nil
	}
	out := make([]resourceapi.AllocationResult, len(results))
	for i := range results {
		results[i].DeepCopyInto(&out[i])
		for j := range out[i].Devices.Results {
			if out[i].Devices.Results[j].ShareID != nil {
				out[i].Devices.Results[j].ShareID = ptr.To(types.UID("share"))
			}
		}
	}
	return out
}

// compare runs the case through upstream's allocator and ours and
// describes every difference.
func compare(ctx context.Context, tc diffCase) []string {
	diffs, _ := compareOutcomes(ctx, tc)
	return diffs
}

// compareOutcomes is compare that also returns our outcomes, one per node.
func compareOutcomes(ctx context.Context, tc diffCase) ([]string, []outcome) {
	celCache := cel.NewCache(10, cel.Features{EnableConsumableCapacity: tc.features.ConsumableCapacity})
	theirs := tc.run(ctx, func() (nodeAllocator, error) {
		return structured.NewAllocator(ctx, tc.features, tc.state, tc.classes, tc.slices, celCache)
	})
	ourCache := cel.NewCache(10, cel.Features{EnableConsumableCapacity: tc.features.ConsumableCapacity})
	ours := tc.run(ctx, func() (nodeAllocator, error) {
		return allocator.NewAllocator(ctx, tc.features, tc.state, tc.classes, tc.slices, ourCache)
	})
	diffs := compareFits(ctx, tc, theirs)
	for i := range theirs {
		t, o := theirs[i], ours[i]
		same := (t.err == nil) == (o.err == nil)
		if same && t.err != nil {
			same = t.err.Error() == o.err.Error() &&
				errors.Is(t.err, structured.ErrFailedAllocationOnNode) == errors.Is(o.err, structured.ErrFailedAllocationOnNode)
		}
		if same && t.err == nil {
			same = (t.results == nil) == (o.results == nil) && apiequality.Semantic.DeepEqual(withoutShareIDs(t.results), withoutShareIDs(o.results))
		}
		if !same {
			diffs = append(diffs, fmt.Sprintf("node %s:\nupstream: %s\nours:     %s", tc.nodes[i].Name, t, o))
		}
	}
	return diffs, ours
}

// quickCases counts compared cases in which Fits answered every node
// without a search step and without an error: the answer from counts's coverage.
var quickCases atomic.Int64

// quickNodes counts (case, node) pairs Fits answered without a search
// step and without an error.
var quickNodes atomic.Int64

// compareFits asks a fresh allocator Fits on every node, twice (cold and
// warm caches), and describes every answer that differs from upstream's
// outcome: fits exactly where upstream allocated, the same errors.
func compareFits(ctx context.Context, tc diffCase, theirs []outcome) []string {
	if len(theirs) != len(tc.nodes) {
		return nil // upstream's constructor failed
	}
	a, err := allocator.NewAllocator(ctx, tc.features, tc.state, tc.classes, tc.slices,
		cel.NewCache(10, cel.Features{EnableConsumableCapacity: tc.features.ConsumableCapacity}))
	if err != nil {
		return []string{fmt.Sprintf("Fits: NewAllocator: %v", err)}
	}
	var diffs []string
	errorFree := true
	for pass := range 2 {
		for i, node := range tc.nodes {
			t := theirs[i]
			before := a.Steps()
			fits, err := a.Fits(ctx, node, tc.claims)
			if err != nil {
				errorFree = false
			} else if pass == 0 && a.Steps() == before {
				quickNodes.Add(1)
			}
			same := (t.err == nil) == (err == nil)
			if same && err != nil {
				same = t.err.Error() == err.Error() &&
					errors.Is(t.err, structured.ErrFailedAllocationOnNode) == errors.Is(err, structured.ErrFailedAllocationOnNode)
			}
			if same && err == nil {
				same = fits == (t.results != nil)
			}
			if !same {
				diffs = append(diffs, fmt.Sprintf("node %s, Fits pass %d:\nupstream: %s\nours:     fits %v, error %v", node.Name, pass, t, fits, err))
			}
		}
	}
	if errorFree && len(tc.nodes) > 0 && a.Steps() == 0 {
		quickCases.Add(1)
	}
	return diffs
}

// pinnedOutcome runs the case through both allocators, reports every
// difference, and checks our outcome on the case's first node: with
// wantErr, an error containing it; otherwise exactly the devices want, in
// order (nil: the claims do not fit). It returns that outcome.
func pinnedOutcome(t *testing.T, dc diffCase, want []string, wantErr string) outcome {
	t.Helper()
	diffs, ours := compareOutcomes(t.Context(), dc)
	for _, d := range diffs {
		t.Error(d)
	}
	o := ours[0]
	switch {
	case wantErr != "":
		if o.err == nil || !strings.Contains(o.err.Error(), wantErr) {
			t.Fatalf("error %v, want one containing %q", o.err, wantErr)
		}
		return o
	case o.err != nil:
		t.Fatalf("unexpected error: %v", o.err)
	}
	var got []string
	for _, r := range o.results {
		for _, d := range r.Devices.Results {
			got = append(got, d.Device)
		}
	}
	if (o.results == nil) != (want == nil) || !slices.Equal(got, want) {
		t.Fatalf("picked %v (fits %v), want %v", got, o.results != nil, want)
	}
	return o
}
