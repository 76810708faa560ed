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
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// twoClaims gives claim-0 gpu-0 and claim-1 gpu-1.
func twoClaims() *fixture {
	f := newFixture()
	f.claim("claim-0", exact("req-0", "gpu", 1))
	f.claim("claim-1", exact("req-0", "gpu", 1))
	f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"))
	f.result(pinned(thisNode), got("req-0", thisNode, "gpu-1"))
	return f
}

// sharedGPU makes gpu-0 multi-allocatable (no capacities) and lets both
// claims of twoClaims share it.
func sharedGPU() *fixture {
	f := twoClaims()
	f.device("node-1-gpus", "gpu-0").AllowMultipleAllocations = ptr.To(true)
	*f.entry(0, 0) = share(got("req-0", thisNode, "gpu-0"), "11111111-1111-1111-1111-111111111111", nil)
	*f.entry(1, 0) = share(got("req-0", thisNode, "gpu-0"), "22222222-2222-2222-2222-222222222222", nil)
	return f
}

func TestExclusive(t *testing.T) {
	runCheckCases(t, CheckExclusive, []checkCase{
		{
			name:  "two claims with different devices pass",
			build: twoClaims,
		},
		{
			name: "admin access to a device that is already allocated passes",
			build: func() *fixture {
				f := oneGPU()
				f.markAllocated(thisNode, "gpu-0")
				f.claims[0].Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(true)
				f.entry(0, 0).AdminAccess = ptr.To(true)
				return f
			},
		},
		{
			name:  "two claims sharing a multi-allocatable device pass",
			build: sharedGPU,
		},
		{
			name: "a multi-allocatable device that is already shared passes",
			build: func() *fixture {
				f := sharedGPU()
				f.allocated.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(
					structured.MakeDeviceID(driver, thisNode, "gpu-0"), ptr.To(types.UID("33333333-3333-3333-3333-333333333333"))))
				return f
			},
		},
		{
			name: "one device given to two claims is reported",
			build: func() *fixture {
				f := twoClaims()
				f.entry(1, 0).Device = "gpu-0"
				return f
			},
			want: "claim default/claim-1, request req-0, device dra.example.com/node-1/gpu-0: device is also allocated to claim default/claim-0 without admin access",
		},
		{
			name: "a device that is already allocated is reported",
			build: func() *fixture {
				f := oneGPU()
				f.markAllocated(thisNode, "gpu-0")
				return f
			},
			want: "device dra.example.com/node-1/gpu-0: device is already allocated (AllocatedState.AllocatedDevices)",
		},
		{
			name: "a dedicated device that is already shared is reported",
			build: func() *fixture {
				f := oneGPU()
				f.allocated.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(
					structured.MakeDeviceID(driver, thisNode, "gpu-0"), ptr.To(types.UID("33333333-3333-3333-3333-333333333333"))))
				return f
			},
			want: "device is already shared",
		},
		{
			name: "a dedicated device with aggregated capacity is reported",
			build: func() *fixture {
				f := oneGPU()
				f.allocated.AggregatedCapacity[structured.MakeDeviceID(driver, thisNode, "gpu-0")] = structured.ConsumedCapacity{}
				return f
			},
			want: "device already has consumed capacity",
		},
		{
			name: "a multi-allocatable device that is already allocated as dedicated is reported",
			build: func() *fixture {
				f := sharedGPU()
				f.markAllocated(thisNode, "gpu-0")
				return f
			},
			want: "device is already allocated (AllocatedState.AllocatedDevices)",
		},
	})
}
