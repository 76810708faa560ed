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

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

const nicPool = "node-1-nics"

const (
	shareA = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
	shareB = "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb"
)

// nic is a multi-allocatable device with 10Gi of bandwidth (default 1Gi,
// range 1Gi..10Gi in steps of 1Gi) and 8 queues (default 1, valid 1, 2, 4).
func nic(name string) resourceapi.Device {
	return resourceapi.Device{
		Name:                     name,
		AllowMultipleAllocations: ptr.To(true),
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"bandwidth": {Value: resource.MustParse("10Gi"), RequestPolicy: &resourceapi.CapacityRequestPolicy{
				Default:    q("1Gi"),
				ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("1Gi"), Max: q("10Gi"), Step: q("1Gi")},
			}},
			"queues": {Value: resource.MustParse("8"), RequestPolicy: &resourceapi.CapacityRequestPolicy{
				Default:     q("1"),
				ValidValues: []resource.Quantity{resource.MustParse("1"), resource.MustParse("2"), resource.MustParse("4")},
			}},
		},
	}
}

// sharedNIC gives claim-0 a 3Gi share of nic-0.
func sharedNIC() *fixture {
	f := newFixture()
	f.addClass(class("nic", `device.driver == "dra.example.com"`))
	f.addSlice(localSlice("node-1-nics", nicPool, thisNode, nic("nic-0")))
	f.claim("claim-0", withCapacity(exact("req-0", "nic", 1), map[string]string{"bandwidth": "3Gi"}))
	f.result(pinned(thisNode), share(got("req-0", nicPool, "nic-0"), shareA, map[string]string{"bandwidth": "3Gi", "queues": "1"}))
	return f
}

// consumed sets what result entry (i, j) consumes of a capacity.
func (f *fixture) consumed(i, j int, name, value string) {
	f.entry(i, j).ConsumedCapacity[resourceapi.QualifiedName(name)] = resource.MustParse(value)
}

func (f *fixture) alreadyConsumed(device string, capacities map[string]string) {
	c := structured.ConsumedCapacity{}
	for k, v := range capacities {
		c[resourceapi.QualifiedName(k)] = q(v)
	}
	f.allocated.AggregatedCapacity[structured.MakeDeviceID(driver, nicPool, device)] = c
}

// fractionalNIC has a capacity "slots" of 4 in steps of 500m from 0.
func fractionalNIC() *fixture {
	f := sharedNIC()
	f.device("node-1-nics", "nic-0").Capacity["slots"] = resourceapi.DeviceCapacity{
		Value: resource.MustParse("4"),
		RequestPolicy: &resourceapi.CapacityRequestPolicy{
			Default:    q("500m"),
			ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: q("0"), Step: q("500m")},
		},
	}
	f.claims[0].Spec.Devices.Requests[0].Exactly.Capacity.Requests["slots"] = resource.MustParse("1200m")
	f.consumed(0, 0, "slots", "1500m")
	return f
}

func TestCapacity(t *testing.T) {
	runCheckCases(t, CheckCapacity, []checkCase{
		{
			name:  "a share consuming the requested bandwidth and the default queues passes",
			build: sharedNIC,
		},
		{
			name: "a request rounded up to the next step passes",
			build: func() *fixture {
				f := sharedNIC()
				f.claims[0].Spec.Devices.Requests[0].Exactly.Capacity.Requests["bandwidth"] = resource.MustParse("2500Mi")
				return f
			},
		},
		{
			name: "two shares and an earlier one using up the bandwidth exactly pass",
			build: func() *fixture {
				f := sharedNIC()
				f.alreadyConsumed("nic-0", map[string]string{"bandwidth": "4Gi", "queues": "2"})
				f.claim("claim-1", withCapacity(exact("req-0", "nic", 1), map[string]string{"bandwidth": "3Gi"}))
				f.result(pinned(thisNode), share(got("req-0", nicPool, "nic-0"), shareB, map[string]string{"bandwidth": "3Gi", "queues": "1"}))
				return f
			},
		},
		{
			name:  "a fractional step is judged exactly with FractionalCapacityRange",
			build: func() *fixture { f := fractionalNIC(); f.features.FractionalCapacityRange = true; return f },
		},
		{
			name: "without FractionalCapacityRange a fractional step is judged in whole numbers, as the API documents",
			build: func() *fixture {
				f := fractionalNIC()
				f.consumed(0, 0, "slots", "2")
				return f
			},
		},
		{
			name: "a dedicated device that has the requested capacity passes",
			build: func() *fixture {
				f := oneGPU()
				f.device("node-1-gpus", "gpu-0").Capacity = map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: resource.MustParse("40Gi")}}
				f.claims[0].Spec.Devices.Requests[0] = withCapacity(f.claims[0].Spec.Devices.Requests[0], map[string]string{"memory": "40Gi"})
				return f
			},
		},
		{
			name: "shares over-consuming the bandwidth are reported",
			build: func() *fixture {
				f := sharedNIC()
				f.alreadyConsumed("nic-0", map[string]string{"bandwidth": "5Gi", "queues": "2"})
				f.claim("claim-1", withCapacity(exact("req-0", "nic", 1), map[string]string{"bandwidth": "3Gi"}))
				f.result(pinned(thisNode), share(got("req-0", nicPool, "nic-0"), shareB, map[string]string{"bandwidth": "3Gi", "queues": "1"}))
				return f
			},
			want: "device dra.example.com/node-1-nics/nic-0: capacity bandwidth is over-consumed: 11Gi consumed by all shares (previous allocations included), the device has 10Gi",
		},
		{
			name:  "a share consuming less than requested is reported",
			build: func() *fixture { f := sharedNIC(); f.consumed(0, 0, "bandwidth", "2Gi"); return f },
			want:  "capacity bandwidth: the share consumes 2Gi, less than the requested 3Gi",
		},
		{
			name:  "a share consuming an amount off the range's step is reported",
			build: func() *fixture { f := sharedNIC(); f.consumed(0, 0, "bandwidth", "3500Mi"); return f },
			want:  "capacity bandwidth: consumed 3500Mi violates the request policy: not min 1Gi plus a multiple of step 1Gi",
		},
		{
			name:  "a share consuming more than the range's max is reported",
			build: func() *fixture { f := sharedNIC(); f.consumed(0, 0, "bandwidth", "11Gi"); return f },
			want:  "consumed 11Gi violates the request policy: above the valid range's max 10Gi",
		},
		{
			name: "a share consuming a value that is not among the valid values is reported",
			build: func() *fixture {
				f := sharedNIC()
				f.claims[0].Spec.Devices.Requests[0].Exactly.Capacity.Requests["queues"] = resource.MustParse("3")
				f.consumed(0, 0, "queues", "3")
				return f
			},
			want: "capacity queues: consumed 3 violates the request policy: not one of the valid values",
		},
		{
			name: "a fractional amount off the step is reported with FractionalCapacityRange",
			build: func() *fixture {
				f := fractionalNIC()
				f.features.FractionalCapacityRange = true
				f.consumed(0, 0, "slots", "1200m")
				return f
			},
			want: "consumed 1200m violates the request policy: not min 0 plus a multiple of step 500m",
		},
		{
			name:  "an unrequested capacity consuming more than its default is reported",
			build: func() *fixture { f := sharedNIC(); f.consumed(0, 0, "queues", "2"); return f },
			want:  "capacity queues is not requested, so the share must consume 1, it consumes 2",
		},
		{
			name: "a share without shareID is reported",
			build: func() *fixture {
				f := sharedNIC()
				f.entry(0, 0).ShareID = nil
				return f
			},
			want: "result #0 has no shareID, but the device is multi-allocatable",
		},
		{
			name: "a share reusing an existing shareID is reported",
			build: func() *fixture {
				f := sharedNIC()
				f.allocated.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(
					structured.MakeDeviceID(driver, nicPool, "nic-0"), f.entry(0, 0).ShareID))
				return f
			},
			want: "shareID " + shareA + " is already used by another share of the device",
		},
		{
			name: "a share without consumed capacity is reported",
			build: func() *fixture {
				f := sharedNIC()
				delete(f.entry(0, 0).ConsumedCapacity, "queues")
				return f
			},
			want: "result #0 has no consumedCapacity for capacity queues",
		},
		{
			name: "a shareID on a dedicated device is reported",
			build: func() *fixture {
				f := oneGPU()
				*f.entry(0, 0) = share(*f.entry(0, 0), shareA, nil)
				return f
			},
			want: "result #0 has shareID " + shareA + ", but the device is not multi-allocatable",
		},
		{
			name: "a dedicated device without the requested capacity is reported",
			build: func() *fixture {
				f := oneGPU()
				f.claims[0].Spec.Devices.Requests[0] = withCapacity(f.claims[0].Spec.Devices.Requests[0], map[string]string{"memory": "40Gi"})
				return f
			},
			want: "the request asks for capacity memory, which the device does not have",
		},
		{
			name: "capacity requirements are reported when ConsumableCapacity is off",
			build: func() *fixture {
				f := sharedNIC()
				f.features.ConsumableCapacity = false
				return f
			},
			want: "request req-0: request has capacity requirements, but the ConsumableCapacity feature is disabled",
		},
	})
}
