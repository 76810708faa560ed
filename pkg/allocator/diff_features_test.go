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
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestTaintsAdminAccessBindingAndCapacity covers the features the
// realistic shapes do not: each case runs through both allocators and pins
// the devices we must pick.
func TestTaintsAdminAccessBindingAndCapacity(t *testing.T) {
	const drv = "gpu.example.com"
	node := objects.MakeNode("n").Obj()
	class := inventorygen.NewClassLister(objects.DeviceClass("gpu", drv))
	base := func() *objects.SliceWrapper {
		return objects.MakeSlice("n-gpus", drv, "n").Device("gpu-0", nil).Device("gpu-1", nil)
	}
	claimWith := func(mutate func(r *resourceapi.ExactDeviceRequest)) *resourceapi.ResourceClaim {
		c := objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", 1))
		mutate(c.Spec.Devices.Requests[0].Exactly)
		return c
	}
	tainted := base().Obj()
	tainted.Spec.Devices[0].Taints = []resourceapi.DeviceTaint{{Key: "broken", Effect: resourceapi.DeviceTaintEffectNoSchedule}}
	binding := base().Obj()
	binding.Spec.Devices[0].BindingConditions = []string{"attached"}
	binding.Spec.Devices[0].BindingFailureConditions = []string{"attach-failed"}
	shared := objects.MakeSlice("n-gpus", drv, "n").Obj()
	shared.Spec.Devices = []resourceapi.Device{{
		Name:                     "gpu-0",
		AllowMultipleAllocations: ptr.To(true),
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {
			Value:         resource.MustParse("80Gi"),
			RequestPolicy: &resourceapi.CapacityRequestPolicy{Default: ptr.To(resource.MustParse("10Gi")), ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: ptr.To(resource.MustParse("10Gi")), Step: ptr.To(resource.MustParse("10Gi"))}},
		}},
	}}

	for _, tc := range []struct {
		name   string
		slice  *resourceapi.ResourceSlice
		state  structured.AllocatedState
		claims []*resourceapi.ResourceClaim
		want   []string // devices we must pick, nil: does not fit
		// check, if set, looks at our first device result.
		check func(t *testing.T, r resourceapi.DeviceRequestAllocationResult)
	}{
		{"an untolerated NoSchedule taint skips the device", tainted, structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{claimWith(func(*resourceapi.ExactDeviceRequest) {})}, []string{"gpu-1"}, nil},
		{"a toleration admits the tainted device", tainted, structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{claimWith(func(r *resourceapi.ExactDeviceRequest) {
				r.Tolerations = []resourceapi.DeviceToleration{{Key: "broken", Operator: resourceapi.DeviceTolerationOpExists}}
			})}, []string{"gpu-0"}, nil},
		{"admin access reaches an allocated device", base().Obj(),
			structured.AllocatedState{AllocatedDevices: sets.New(structured.MakeDeviceID(drv, "n", "gpu-0"))},
			[]*resourceapi.ResourceClaim{claimWith(func(r *resourceapi.ExactDeviceRequest) { r.AdminAccess = ptr.To(true) })}, []string{"gpu-0"}, nil},
		{"without admin access the allocated device is skipped", base().Obj(),
			structured.AllocatedState{AllocatedDevices: sets.New(structured.MakeDeviceID(drv, "n", "gpu-0"))},
			[]*resourceapi.ResourceClaim{claimWith(func(*resourceapi.ExactDeviceRequest) {})}, []string{"gpu-1"}, nil},
		{"a device with binding conditions is allocated with its conditions copied", binding, structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{claimWith(func(*resourceapi.ExactDeviceRequest) {})}, []string{"gpu-0"},
			func(t *testing.T, r resourceapi.DeviceRequestAllocationResult) {
				if len(r.BindingConditions) != 1 || len(r.BindingFailureConditions) != 1 {
					t.Errorf("binding conditions not copied: %+v", r)
				}
			}},
		{"a capacity request is rounded up to the policy's step", shared, structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{claimWith(func(r *resourceapi.ExactDeviceRequest) {
				r.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse("15Gi")}}
			})}, []string{"gpu-0"},
			func(t *testing.T, r resourceapi.DeviceRequestAllocationResult) {
				if got := r.ConsumedCapacity["memory"]; got.Cmp(resource.MustParse("20Gi")) != 0 || r.ShareID == nil {
					t.Errorf("consumed %v (share %v), want 20Gi with a share ID", got.String(), r.ShareID)
				}
			}},
		{"shares fill the device up to its capacity and no further", shared,
			structured.AllocatedState{AggregatedCapacity: structured.ConsumedCapacityCollection{
				structured.MakeDeviceID(drv, "n", "gpu-0"): structured.ConsumedCapacity{"memory": ptr.To(resource.MustParse("75Gi"))},
			}},
			[]*resourceapi.ResourceClaim{claimWith(func(r *resourceapi.ExactDeviceRequest) {
				r.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse("10Gi")}}
			})}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dc := diffCase{features: defaultFeatures, state: tc.state, classes: class,
				slices: []*resourceapi.ResourceSlice{tc.slice}, claims: tc.claims, nodes: []*v1.Node{node}}
			o := pinnedOutcome(t, dc, tc.want, "")
			if tc.check != nil {
				tc.check(t, o.results[0].Devices.Results[0])
			}
		})
	}
}
