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
	"reflect"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const (
	diagDriver = "diag.example.com"
	diagNode   = "node-1"
)

// diagnoseCase is one node's devices, what is allocated of them, one
// claim, and what Diagnose must report.
type diagnoseCase struct {
	name       string
	slices     []*resourceapi.ResourceSlice
	allocated  structured.AllocatedState
	claim      *resourceapi.ResourceClaim
	wantFits   bool
	wantCounts allocator.DeviceCounts
	wantNeed   int
	wantString string // the finding, when the claim does not fit
}

func (tc diagnoseCase) run(t *testing.T) {
	t.Helper()
	class := objects.DeviceClass(diagDriver, diagDriver)
	a := newTestAllocator(tc.allocated, inventorygen.NewClassLister(class), tc.slices)
	node := objects.MakeNode(diagNode).Obj()
	claims := []*resourceapi.ResourceClaim{tc.claim}
	d, err := a.Diagnose(t.Context(), node, claims)
	if err != nil {
		t.Fatalf("Diagnose: %v", err)
	}
	res, err := a.Allocate(t.Context(), node, claims)
	if err != nil {
		t.Fatalf("Allocate: %v", err)
	}
	if !reflect.DeepEqual(withoutShareIDs(d.Results), withoutShareIDs(res)) {
		t.Errorf("Diagnose's results %v differ from Allocate's %v", d.Results, res)
	}
	if d.Fits() != tc.wantFits {
		t.Errorf("Fits() = %v, want %v", d.Fits(), tc.wantFits)
	}
	if len(d.Requests) != 1 {
		t.Fatalf("got %d request reports, want 1: %+v", len(d.Requests), d.Requests)
	}
	r := d.Requests[0]
	if r.DeviceCounts != tc.wantCounts || r.Need != tc.wantNeed || r.Request != "req" || r.Class != diagDriver {
		t.Errorf("request report %+v, want request req of class %s, need %d, counts %+v", r, diagDriver, tc.wantNeed, tc.wantCounts)
	}
	if tc.wantFits {
		return
	}
	if got := d.Explanation.String(); got != tc.wantString {
		t.Errorf("finding %q, want %q", got, tc.wantString)
	}
	if got := a.Explain(t.Context(), node, claims); !reflect.DeepEqual(got, d.Explanation) {
		t.Errorf("Diagnose's finding %+v differs from Explain's %+v", d.Explanation, got)
	}
}

func allocatedDevices(devices ...string) structured.AllocatedState {
	st := structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID]()}
	for _, d := range devices {
		st.AllocatedDevices.Insert(structured.MakeDeviceID(diagDriver, diagNode, d))
	}
	return st
}

func diagClaim(count int64, selectors ...string) *resourceapi.ResourceClaim {
	return objects.Claim("c", "default", objects.ClaimSpec("req", diagDriver, count, selectors...))
}

func TestDiagnoseCountsWhatKeepsEachMatchingDeviceFromTheRequest(t *testing.T) {
	threeDevices := func() *objects.SliceWrapper {
		return objects.MakeSlice("s", diagDriver, diagNode).Device("dev-0", nil).Device("dev-1", nil).Device("dev-2", nil)
	}
	half := `device.attributes["diag.example.com"].profile == "half"`
	partitions := []*resourceapi.ResourceSlice{
		objects.MakeSlice("counters", diagDriver, diagNode).SliceCount(2).CounterSet("gpu-0", map[string]string{"memory": "8Gi"}).Obj(),
		objects.MakeSlice("devices", diagDriver, diagNode).SliceCount(2).
			Device("half-0", nil).Attribute("profile", "half").ConsumesCounters("gpu-0", map[string]string{"memory": "4Gi"}).
			Device("half-1", nil).Attribute("profile", "half").ConsumesCounters("gpu-0", map[string]string{"memory": "4Gi"}).
			Device("whole", nil).Attribute("profile", "whole").ConsumesCounters("gpu-0", map[string]string{"memory": "8Gi"}).Obj(),
	}
	nic := objects.MakeSlice("nic", diagDriver, diagNode).Device("nic-0", map[string]string{"bandwidth": "10G"}).AllowMultipleAllocations().Obj()
	nicShared := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New(structured.MakeSharedDeviceID(structured.MakeDeviceID(diagDriver, diagNode, "nic-0"), ptr.To[types.UID]("share-1"))),
		AggregatedCapacity: structured.ConsumedCapacityCollection{
			structured.MakeDeviceID(diagDriver, diagNode, "nic-0"): {"bandwidth": ptr.To(resource.MustParse("8G"))},
		},
	}
	bandwidth := func(q string) *resourceapi.ResourceClaim {
		c := diagClaim(1)
		c.Spec.Devices.Requests[0].Exactly.Capacity = &resourceapi.CapacityRequirements{
			Requests: map[resourceapi.QualifiedName]resource.Quantity{"bandwidth": resource.MustParse(q)},
		}
		return c
	}
	all := diagClaim(0)
	all.Spec.Devices.Requests[0].Exactly.AllocationMode = resourceapi.DeviceAllocationModeAll
	all.Spec.Devices.Requests[0].Exactly.Count = 0

	for _, tc := range []diagnoseCase{
		{
			name:   "a node with enough usable devices fits, and the allocated one is counted apart",
			slices: []*resourceapi.ResourceSlice{threeDevices().Obj()}, allocated: allocatedDevices("dev-0"),
			claim: diagClaim(2), wantFits: true, wantNeed: 2,
			wantCounts: allocator.DeviceCounts{Matching: 3, Allocated: 1, Usable: 2},
		},
		{
			name:   "a node with fewer matching devices than the request needs is told apart from a full one",
			slices: []*resourceapi.ResourceSlice{threeDevices().Obj()}, allocated: allocatedDevices(),
			claim: diagClaim(4), wantNeed: 4,
			wantCounts: allocator.DeviceCounts{Matching: 3, Usable: 3},
			wantString: `request "req" needs 4 matching devices, more than the node has, allocated or free (class diag.example.com)`,
		},
		{
			name:   "an untolerated taint on a free device is named when it is what blocks the request",
			slices: []*resourceapi.ResourceSlice{threeDevices().Taint("maintenance", "", resourceapi.DeviceTaintEffectNoSchedule).Obj()}, allocated: allocatedDevices("dev-0"),
			claim: diagClaim(2), wantNeed: 2,
			wantCounts: allocator.DeviceCounts{Matching: 3, Allocated: 1, Tainted: 1, Usable: 1},
			wantString: `free devices matching request "req" have taints it does not tolerate (class diag.example.com)`,
		},
		{
			name:   "partitions whose GPU's memory another allocation used up are named as exhausted counters",
			slices: partitions, allocated: allocatedDevices("whole"),
			claim: diagClaim(1, half), wantNeed: 1,
			wantCounts: allocator.DeviceCounts{Matching: 2, CountersExhausted: 2},
			wantString: `free devices matching request "req" need shared counters that other allocations used up (class diag.example.com)`,
		},
		{
			name:   "a shared device without the capacity the request consumes is named as exhausted capacity",
			slices: []*resourceapi.ResourceSlice{nic}, allocated: nicShared,
			claim: bandwidth("4G"), wantNeed: 1,
			wantCounts: allocator.DeviceCounts{Matching: 1, CapacityExhausted: 1},
			wantString: `devices matching request "req" have too little capacity left for it (class diag.example.com)`,
		},
		{
			name:   "the same shared device fits a request within what is left",
			slices: []*resourceapi.ResourceSlice{nic}, allocated: nicShared,
			claim: bandwidth("2G"), wantFits: true, wantNeed: 1,
			wantCounts: allocator.DeviceCounts{Matching: 1, Usable: 1},
		},
		{
			name:   "an allocationMode All request needs every matching device, the tainted one included",
			slices: []*resourceapi.ResourceSlice{threeDevices().Taint("maintenance", "", resourceapi.DeviceTaintEffectNoExecute).Obj()}, allocated: allocatedDevices(),
			claim: all, wantNeed: 3,
			wantCounts: allocator.DeviceCounts{Matching: 3, Tainted: 1, Usable: 2},
			wantString: `free devices matching request "req" have taints it does not tolerate (class diag.example.com)`,
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

// TestDiagnoseReportsEveryAlternativeOfAFirstAvailableRequest: each
// alternative gets its own counts, under the name results carry.
func TestDiagnoseReportsEveryAlternativeOfAFirstAvailableRequest(t *testing.T) {
	slice := objects.MakeSlice("s", diagDriver, diagNode).
		Device("big", nil).Attribute("size", "big").
		Device("small", nil).Attribute("size", "small").Obj()
	claim := objects.Claim("c", "default", resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
		Name: "req",
		FirstAvailable: []resourceapi.DeviceSubRequest{
			{Name: "big", DeviceClassName: diagDriver, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1,
				Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.attributes["diag.example.com"].size == "big"`}}}},
			{Name: "any", DeviceClassName: diagDriver, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 2},
		},
	}}}})
	a := newTestAllocator(allocatedDevices("big"), inventorygen.NewClassLister(objects.DeviceClass(diagDriver, diagDriver)), []*resourceapi.ResourceSlice{slice})
	d, err := a.Diagnose(t.Context(), objects.MakeNode(diagNode).Obj(), []*resourceapi.ResourceClaim{claim})
	if err != nil {
		t.Fatalf("Diagnose: %v", err)
	}
	want := []allocator.RequestReport{
		{Request: "req/big", Class: diagDriver, Selectors: []string{`device.attributes["diag.example.com"].size == "big"`}, Need: 1,
			DeviceCounts: allocator.DeviceCounts{Matching: 1, Allocated: 1}},
		{Request: "req/any", Class: diagDriver, Selectors: []string{`device.driver == "diag.example.com"`}, Need: 2,
			DeviceCounts:  allocator.DeviceCounts{Matching: 2, Allocated: 1, Usable: 1},
			UsableDevices: []structured.DeviceID{structured.MakeDeviceID(diagDriver, diagNode, "small")}},
	}
	if !reflect.DeepEqual(d.Requests, want) {
		t.Errorf("requests\n%+v\nwant\n%+v", d.Requests, want)
	}
	if d.Fits() {
		t.Errorf("the claim fits with %v; both alternatives need a device that is allocated", d.Results)
	}
}
