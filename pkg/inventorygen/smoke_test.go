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

package inventorygen

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// outcome classifies one upstream Allocate call.
type outcome string

const (
	outcomeAllocated     outcome = "allocated"
	outcomeUnschedulable outcome = "unschedulable"
	outcomeInvalidPools  outcome = "unschedulable (invalid pools)"
	outcomeError         outcome = "error"
	outcomeTimeout       outcome = "timeout"
)

// upstreamAllocate runs upstream's allocator like the scheduler does and
// turns a panic into a test failure.
func upstreamAllocate(t *testing.T, name string, features structured.Features, state structured.AllocatedState,
	lister structured.DeviceClassLister, slices []*resourceapi.ResourceSlice, node *v1.Node,
	claims []*resourceapi.ResourceClaim, timeout time.Duration) (result []resourceapi.AllocationResult, out outcome, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: upstream allocator panicked: %v", name, r)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	allocator, err := structured.NewAllocator(ctx, features, state, lister, slices, cel.NewCache(10, cel.Features{EnableConsumableCapacity: true}))
	if err != nil {
		t.Fatalf("%s: NewAllocator: %v", name, err)
	}
	result, err = allocator.Allocate(ctx, node, claims)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return nil, outcomeTimeout, err
	case errors.Is(err, structured.ErrFailedAllocationOnNode):
		return nil, outcomeInvalidPools, err
	case err != nil:
		return nil, outcomeError, err
	case result == nil:
		return nil, outcomeUnschedulable, nil
	case len(result) != len(claims):
		t.Fatalf("%s: %d results for %d claims", name, len(result), len(claims))
	}
	return result, outcomeAllocated, nil
}

// errorKind reduces an allocator error to its kind (names and numbers removed).
var errorNoise = regexp.MustCompile(`claim [^ ,:]+|request [^ ,:]+|class [^ ,:]+|device [^ ,:]+|pool [^ ,:]+|#\d+|"[^"]*"`)

func errorKind(err error) string {
	s := err.Error()
	for _, cut := range []string{"CEL compile error", "CEL runtime error", "could not retrieve device class",
		"is currently being updated", "is currently invalid", "claim constraint would not be satisfied",
		"checking capacity", "create NodeSelector", "exceeds the claim limit"} {
		if strings.Contains(s, cut) {
			return cut
		}
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return errorNoise.ReplaceAllString(s, "…")
}

func TestUpstreamAllocatorHandlesRandomCasesWithEveryOutcome(t *testing.T) {
	const cases = 200
	counts := map[outcome]int{}
	kinds := map[string]int{}
	var slowest time.Duration
	for seed := int64(0); seed < cases; seed++ {
		c := Random(seed, DefaultRandomOptions())
		start := time.Now()
		_, out, err := upstreamAllocate(t, fmt.Sprintf("seed %d", seed), c.Features, c.AllocatedState(), c.ClassLister(), c.Slices, c.Node, c.Claims, 20*time.Second)
		slowest = max(slowest, time.Since(start))
		counts[out]++
		if out == outcomeError {
			kinds[errorKind(err)]++
		}
		if testing.Verbose() && out == outcomeTimeout {
			t.Logf("seed %d timed out; notes: %v", seed, c.Notes)
		}
	}
	t.Logf("outcomes of %d random cases (slowest %v):", cases, slowest.Round(time.Millisecond))
	for _, o := range []outcome{outcomeAllocated, outcomeUnschedulable, outcomeInvalidPools, outcomeError, outcomeTimeout} {
		t.Logf("  %-30s %3d (%.0f%%)", o, counts[o], 100*float64(counts[o])/cases)
	}
	var kindNames []string
	for k := range kinds {
		kindNames = append(kindNames, k)
	}
	slices.Sort(kindNames)
	for _, k := range kindNames {
		t.Logf("  error: %-60s %3d", k, kinds[k])
	}
	if counts[outcomeAllocated] < cases/3 {
		t.Errorf("only %d of %d cases allocate, want at least a third", counts[outcomeAllocated], cases)
	}
	for _, o := range []outcome{outcomeUnschedulable, outcomeInvalidPools, outcomeError} {
		if counts[o] == 0 {
			t.Errorf("no case ends %s", o)
		}
	}
	if counts[outcomeTimeout] > 0 {
		t.Errorf("%d cases did not finish within the deadline", counts[outcomeTimeout])
	}
}

func TestUpstreamAllocatorAllocatesTypicalClaimsOnRealisticShapesUntilTheyAreFull(t *testing.T) {
	h100AndA100 := NvidiaH100(1).Merge(NvidiaA100(1))
	type want struct {
		free, half, full outcome
		devices          []string // "request device" pairs allocated on a free node
	}
	for _, tc := range []struct {
		name    string
		cluster Cluster
		node    string
		claim   *resourceapi.ResourceClaim
		want    want
	}{
		{"scheduler_perf claim", SchedulerPerf(2, 0), "scheduler-perf-dra-0", SchedulerPerfClaim("c", 1),
			want{outcomeAllocated, outcomeAllocated, outcomeUnschedulable, []string{"req-0 basic-device-0"}}},
		{"GPU with 40Gi", NvidiaH100(2), "h100-1", GPUWithMemoryClaim("c", "40Gi"),
			want{outcomeAllocated, outcomeAllocated, outcomeUnschedulable, []string{"req-0 gpu-0"}}},
		{"H100 with 80Gi (81559Mi is less)", NvidiaH100(1), "h100-0", GPUWithMemoryClaim("c", "80Gi"),
			want{outcomeUnschedulable, outcomeUnschedulable, outcomeUnschedulable, nil}},
		{"two GPUs on one PCIe root", NvidiaH100(1), "h100-0", GPUsOnSamePCIeRootClaim("c", 2),
			want{outcomeAllocated, outcomeUnschedulable, outcomeUnschedulable, []string{"req-0 gpu-0", "req-0 gpu-1"}}},
		{"three GPUs on one PCIe root", NvidiaH100(1), "h100-0", GPUsOnSamePCIeRootClaim("c", 3),
			want{outcomeUnschedulable, outcomeUnschedulable, outcomeUnschedulable, nil}},
		{"MIG 1g.10gb", DynamicMIG(1, 8), "h100-mig-0", MIGProfileClaim("c", "1g.10gb"),
			want{outcomeAllocated, outcomeAllocated, outcomeUnschedulable, []string{"req-0 gpu-0-mig-1g10gb-19-0"}}},
		{"MIG 7g.80gb", DynamicMIG(1, 2), "h100-mig-0", MIGProfileClaim("c", "7g.80gb"),
			want{outcomeAllocated, outcomeUnschedulable, outcomeUnschedulable, []string{"req-0 gpu-0-mig-7g80gb-0-0"}}},
		{"MIG 1g.10gb on A100", DynamicMIGA100(1, 8), "a100-mig-0", MIGProfileClaim("c", "1g.10gb"),
			want{outcomeAllocated, outcomeAllocated, outcomeUnschedulable, []string{"req-0 gpu-0-mig-1g10gb-15-0"}}},
		{"prefer H100 on an H100 node", h100AndA100, "h100-0", PreferH100ElseTwoA100Claim("c"),
			want{outcomeAllocated, outcomeAllocated, outcomeUnschedulable, []string{"req-0/h100 gpu-0"}}},
		{"else two A100", h100AndA100, "a100-0", PreferH100ElseTwoA100Claim("c"),
			want{outcomeAllocated, outcomeAllocated, outcomeUnschedulable, []string{"req-0/a100 gpu-0", "req-0/a100 gpu-1"}}},
		{"all example GPUs", ExampleDriver(1, false), "example-0", AllDevicesClaim("c", ClassExample),
			want{outcomeAllocated, outcomeUnschedulable, outcomeUnschedulable, []string{"req-0 gpu-0", "req-0 gpu-1", "req-0 gpu-2", "req-0 gpu-3", "req-0 gpu-4", "req-0 gpu-5", "req-0 gpu-6", "req-0 gpu-7"}}},
		{"four example quarters", ExampleDriver(1, true), "example-0", ExactClaim("c", ClassExample, 4, `device.attributes["gpu.example.com"].partition == "quarter"`),
			want{outcomeAllocated, outcomeAllocated, outcomeUnschedulable, []string{"req-0 gpu-0-quarter-0", "req-0 gpu-0-quarter-1", "req-0 gpu-0-quarter-2", "req-0 gpu-0-quarter-3"}}},
		{"NIC share", SharedNICs(1), "nic-0", NICShareClaim("c", "10G"),
			want{outcomeAllocated, outcomeAllocated, outcomeUnschedulable, []string{"req-0 nic-0"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := tc.cluster.Node(tc.node)
			for _, f := range []struct {
				fraction float64
				want     outcome
			}{{0, tc.want.free}, {0.5, tc.want.half}, {1, tc.want.full}} {
				state := Occupancy(tc.cluster, f.fraction).State()
				result, out, err := upstreamAllocate(t, tc.name, DefaultFeatures(), state, tc.cluster.ClassLister(), tc.cluster.Slices, node,
					[]*resourceapi.ResourceClaim{tc.claim}, time.Minute)
				if out != f.want {
					t.Errorf("occupancy %.1f: %s (%v), want %s", f.fraction, out, err, f.want)
				}
				if f.fraction != 0 || out != outcomeAllocated {
					continue
				}
				var got []string
				for _, r := range result[0].Devices.Results {
					got = append(got, r.Request+" "+r.Device)
					if (r.ShareID != nil) != strings.HasPrefix(r.Device, "nic-") {
						t.Errorf("%s: shareID %v", r.Device, r.ShareID)
					}
				}
				if !slices.Equal(got, tc.want.devices) {
					t.Errorf("allocated %v, want %v", got, tc.want.devices)
				}
			}
		})
	}
}

func TestUpstreamAllocatorHandlesLargeRandomCases(t *testing.T) {
	if testing.Short() {
		t.Skip("large cases take a few seconds")
	}
	counts := map[outcome]int{}
	for seed := int64(0); seed < 20; seed++ {
		c := Random(seed, LargeRandomOptions())
		_, out, _ := upstreamAllocate(t, fmt.Sprintf("large seed %d", seed), c.Features, c.AllocatedState(), c.ClassLister(), c.Slices, c.Node, c.Claims, time.Minute)
		counts[out]++
	}
	t.Logf("outcomes of 20 large random cases: %v", counts)
	if counts[outcomeTimeout] > 0 {
		t.Errorf("%d large cases did not finish within a minute", counts[outcomeTimeout])
	}
}

func TestUpstreamAllocatorHandlesRandomCasesWithFlippedFeatures(t *testing.T) {
	opts := DefaultRandomOptions()
	opts.FeatureFlip = 0.3
	counts := map[outcome]int{}
	for seed := int64(0); seed < 100; seed++ {
		c := Random(seed, opts)
		_, out, _ := upstreamAllocate(t, fmt.Sprintf("seed %d", seed), c.Features, c.AllocatedState(), c.ClassLister(), c.Slices, c.Node, c.Claims, 20*time.Second)
		counts[out]++
	}
	t.Logf("outcomes of 100 random cases with flipped features: %v", counts)
	if counts[outcomeTimeout] > 0 {
		t.Errorf("%d cases did not finish within the deadline", counts[outcomeTimeout])
	}
}
