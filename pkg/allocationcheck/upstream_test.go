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

package allocationcheck

import (
	"context"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// TestUpstreamAllocationsPass runs upstream's allocator
// (k8s.io/dynamic-resource-allocation/structured, incubating with these
// features) on hand-written scenarios that exercise every rule and requires
// Check to accept what it returns: evidence that the checker does not reject
// valid allocations. Each scenario also asserts which devices upstream chose,
// so that a scenario cannot silently degrade into a trivial one, and that
// Check does catch a simple mutation of upstream's result.
func TestUpstreamAllocationsPass(t *testing.T) {
	tests := []struct {
		name  string
		build func() *fixture
		// want lists, per claim, the devices (pool/device) upstream must pick.
		want [][]string
	}{
		{
			name: "exact counts for two claims skip an allocated device and pass on class and claim configs",
			build: func() *fixture {
				f := newFixture()
				f.classes[0].Spec.Config = classConfig(`{"c":1}`)
				f.markAllocated(thisNode, "gpu-0")
				c := f.claim("claim-0", exact("req-0", "gpu", 2), exact("req-1", "gpu", 0))
				c.Spec.Devices.Config = []resourceapi.DeviceClaimConfiguration{claimConfig(`{"x":0}`, "req-0"), claimConfig(`{"x":1}`)}
				f.claim("claim-1", exact("req-0", "gpu", 1))
				return f
			},
			want: [][]string{{"node-1/gpu-1", "node-1/gpu-2"}, {"node-1/gpu-3"}},
		},
		{
			name: "an All request over a zone slice and an all-nodes slice gets a merged label selector",
			build: func() *fixture {
				f := newFixture()
				f.addSlice(selectorSlice("zone-a", "zone-a", labelSelector("zone", "a"), gpu(10), gpu(11)))
				f.addSlice(allNodesSlice("shared", "shared", gpu(12)))
				f.addSlice(selectorSlice("zone-b", "zone-b", labelSelector("zone", "b"), gpu(13)))
				f.claim("claim-0", allOf("req-0", "gpu", `device.attributes["dra.example.com"].index >= 10`))
				return f
			},
			want: [][]string{{"shared/gpu-12", "zone-a/gpu-10", "zone-a/gpu-11"}},
		},
		{
			name: "firstAvailable falls back to a smaller subrequest under match and distinct constraints",
			build: func() *fixture {
				f := newFixture()
				f.classes[0].Spec.Config = classConfig(`{"c":1}`)
				*f.device("node-1-gpus", "gpu-0") = attr(gpu(0), "model", str("h100"))
				c := f.claim("claim-0", firstAvailable("req-0", sub("big", "gpu", 4), sub("small", "gpu", 2)), exact("req-1", "gpu", 1))
				c.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{match("dra.example.com/model", "req-0/small", "req-1"), distinct("dra.example.com/index")}
				c.Spec.Devices.Config = []resourceapi.DeviceClaimConfiguration{
					claimConfig(`{"x":0}`, "req-0/big"), claimConfig(`{"x":1}`, "req-0/small"), claimConfig(`{"x":2}`, "req-0", "req-1"),
				}
				return f
			},
			want: [][]string{{"node-1/gpu-1", "node-1/gpu-2", "node-1/gpu-3"}},
		},
		{
			name: "a tainted device goes to the claim that tolerates it",
			build: func() *fixture {
				f := newFixture()
				f.device("node-1-gpus", "gpu-0").Taints = []resourceapi.DeviceTaint{broken}
				f.device("node-1-gpus", "gpu-1").Taints = []resourceapi.DeviceTaint{{Key: "info", Effect: resourceapi.DeviceTaintEffectNone}}
				f.claim("claim-0", exact("req-0", "gpu", 1))
				tolerant := exact("req-0", "gpu", 1)
				tolerant.Exactly.Tolerations = []resourceapi.DeviceToleration{{Key: "gpu", Operator: resourceapi.DeviceTolerationOpExists}}
				f.claim("claim-1", tolerant)
				return f
			},
			want: [][]string{{"node-1/gpu-1"}, {"node-1/gpu-0"}},
		},
		{
			name: "partitions with per-device node selection share a counter with an allocated partition",
			build: func() *fixture {
				f := newFixture()
				f.slices = nil
				counters := counterSlice("parts-counters", partsPool, counterSet("mem", map[string]string{"memory": "12Gi"}))
				var parts []resourceapi.Device
				for _, p := range []struct{ name, memory, node string }{
					{"part-0", "4Gi", thisNode}, {"part-1", "4Gi", thisNode}, {"part-2", "4Gi", thisNode},
					{"whole", "8Gi", thisNode}, {"part-9", "4Gi", "node-2"},
				} {
					d := partition(p.name, "mem", map[string]string{"memory": p.memory})
					d.NodeName = ptr.To(p.node)
					parts = append(parts, d)
				}
				devices := f.addSlice(perDeviceSlice("parts-devices", partsPool, parts...))
				counters.Spec.Pool.ResourceSliceCount, devices.Spec.Pool.ResourceSliceCount = 2, 2
				f.addSlice(counters)
				f.markAllocated(partsPool, "part-1")
				f.claim("claim-0", exact("req-0", "gpu", 1))
				f.claim("claim-1", exact("req-0", "gpu", 1))
				return f
			},
			want: [][]string{{partsPool + "/part-0"}, {partsPool + "/part-2"}},
		},
		{
			name: "two claims share a multi-allocatable device up to its capacity",
			build: func() *fixture {
				f := newFixture()
				f.addClass(class("nic", `device.driver == "dra.example.com"`, `device.allowMultipleAllocations`))
				f.addSlice(localSlice("node-1-nics", nicPool, thisNode, nic("nic-0")))
				f.alreadyConsumed("nic-0", map[string]string{"bandwidth": "4Gi", "queues": "1"})
				f.allocated.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(
					structured.MakeDeviceID(driver, nicPool, "nic-0"), ptr.To(types.UID(shareA))))
				f.claim("claim-0", withCapacity(exact("req-0", "nic", 1), map[string]string{"bandwidth": "2500Mi"}))
				f.claim("claim-1", withCapacity(exact("req-0", "nic", 1), map[string]string{"bandwidth": "3Gi", "queues": "2"}))
				return f
			},
			want: [][]string{{nicPool + "/nic-0"}, {nicPool + "/nic-0"}},
		},
		{
			name: "a fractional capacity range is rounded up to its step",
			build: func() *fixture {
				f := newFixture()
				f.features.FractionalCapacityRange = true
				f.addClass(class("nic", `device.allowMultipleAllocations`))
				d := nic("nic-0")
				d.Capacity["slots"] = resourceapi.DeviceCapacity{Value: resource.MustParse("4"), RequestPolicy: &resourceapi.CapacityRequestPolicy{
					Default: q("500m"), ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("0"), Step: q("500m")},
				}}
				f.addSlice(localSlice("node-1-nics", nicPool, thisNode, d))
				f.claim("claim-0", withCapacity(exact("req-0", "nic", 1), map[string]string{"slots": "1200m"}))
				return f
			},
			want: [][]string{{nicPool + "/nic-0"}},
		},
		{
			name: "a device with binding conditions that binds to the node is pinned to it",
			build: func() *fixture {
				f := newFixture()
				f.slices = nil
				d := gpu(0)
				d.BindingConditions, d.BindingFailureConditions = []string{"attached"}, []string{"attach-failed"}
				d.BindsToNode = ptr.To(true)
				f.addSlice(allNodesSlice("shared", "shared", d, gpu(1)))
				f.claim("claim-0", exact("req-0", "gpu", 2))
				return f
			},
			want: [][]string{{"shared/gpu-0", "shared/gpu-1"}},
		},
		{
			name: "pools whose slices for the node are complete are used although newer generations exist on another node",
			build: func() *fixture {
				f := newFixture()
				// The node's generation lists nic-0 as multi-allocatable;
				// the newer one on node-2 lists it as dedicated, without
				// capacity, next to nic-1.
				f.addClass(class("nic", `device.driver == "dra.example.com"`, `device.allowMultipleAllocations`))
				f.addSlice(localSlice("node-1-nics", nicPool, thisNode, nic("nic-0")))
				nicsNext := localSlice("node-1-nics-next", nicPool, "node-2", resourceapi.Device{Name: "nic-0"}, nic("nic-1"))
				nicsNext.Spec.Pool.Generation = 2
				f.addSlice(nicsNext)
				// The node's generation of the shared pool has gpu-10 and
				// gpu-11; the newer one on node-2 only gpu-10.
				f.addSlice(allNodesSlice("shared", "shared", gpu(10), gpu(11)))
				sharedNext := localSlice("shared-next", "shared", "node-2", gpu(10))
				sharedNext.Spec.Pool.Generation = 2
				f.addSlice(sharedNext)
				f.claim("claim-0", withCapacity(exact("req-0", "nic", 1), map[string]string{"bandwidth": "2Gi"}),
					withCapacity(exact("req-1", "nic", 1), map[string]string{"bandwidth": "3Gi"}))
				f.claim("claim-1", allOf("req-0", "gpu", `"index" in device.attributes["dra.example.com"] && device.attributes["dra.example.com"].index >= 10`))
				return f
			},
			want: [][]string{{nicPool + "/nic-0", nicPool + "/nic-0"}, {"shared/gpu-10", "shared/gpu-11"}},
		},
		{
			name: "admin access gets an allocated device next to an ordinary claim",
			build: func() *fixture {
				f := newFixture()
				f.markAllocated(thisNode, "gpu-0")
				admin := exact("req-0", "gpu", 1)
				admin.Exactly.AdminAccess = ptr.To(true)
				f.claim("claim-0", admin)
				f.claim("claim-1", exact("req-0", "gpu", 1))
				return f
			},
			want: [][]string{{"node-1/gpu-0"}, {"node-1/gpu-1"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := tc.build()
			allocator, err := structured.NewAllocator(ctx, f.features, f.allocated, classLister(f.classes), f.slices,
				cel.NewCache(10, cel.Features{EnableConsumableCapacity: true}))
			if err != nil {
				t.Fatalf("NewAllocator: %v", err)
			}
			results, err := allocator.Allocate(ctx, f.node, f.claims)
			if err != nil {
				t.Fatalf("Allocate: %v", err)
			}
			if results == nil {
				t.Fatal("upstream found no allocation")
			}
			for i, want := range tc.want {
				var devices []string
				for _, r := range results[i].Devices.Results {
					devices = append(devices, r.Pool+"/"+r.Device)
				}
				if !equalSorted(devices, want) {
					t.Fatalf("claim %d: upstream allocated %v, the scenario expects %v", i, devices, want)
				}
			}
			before := snapshot(f, results)
			if errs := Check(ctx, f.input(), results); len(errs) > 0 {
				t.Fatalf("valid upstream allocation rejected:\n%s", joinErrors(errs))
			}
			if !apiequality.Semantic.DeepEqual(before, snapshot(f, results)) {
				t.Fatal("Check modified its input")
			}
			results[0].Devices.Results[0].Device = "no-such-device"
			if errs := Check(ctx, f.input(), results); len(errs) == 0 {
				t.Fatal("a mutated upstream allocation was accepted")
			}
		})
	}
}

// snapshot deep-copies what Check must not modify.
func snapshot(f *fixture, results []resourceapi.AllocationResult) []any {
	var out []any
	for _, s := range f.slices {
		out = append(out, s.DeepCopy())
	}
	for _, c := range f.claims {
		out = append(out, c.DeepCopy())
	}
	for _, c := range f.classes {
		out = append(out, c.DeepCopy())
	}
	for i := range results {
		out = append(out, results[i].DeepCopy())
	}
	return append(out, f.allocated.AggregatedCapacity.Clone(), f.allocated.AllocatedDevices.Clone())
}

func equalSorted(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
		if seen[s] < 0 {
			return false
		}
	}
	return true
}
