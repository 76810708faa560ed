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

	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

const partsPool = "node-1-parts"

// partitioned adds pool node-1-parts: counter set "mem" with 8Gi of memory,
// partitions part-0..part-3 of 4Gi each and "whole" of 8Gi. claim-0 gets
// part-0 and part-1, which use up the counter exactly.
func partitioned() *fixture {
	f := newFixture()
	counters := counterSlice("parts-counters", partsPool, counterSet("mem", map[string]string{"memory": "8Gi"}))
	devices := localSlice("parts-devices", partsPool, thisNode,
		partition("part-0", "mem", map[string]string{"memory": "4Gi"}),
		partition("part-1", "mem", map[string]string{"memory": "4Gi"}),
		partition("part-2", "mem", map[string]string{"memory": "4Gi"}),
		partition("part-3", "mem", map[string]string{"memory": "4Gi"}),
		partition("whole", "mem", map[string]string{"memory": "8Gi"}),
	)
	counters.Spec.Pool.ResourceSliceCount, devices.Spec.Pool.ResourceSliceCount = 2, 2
	f.addSlice(counters)
	f.addSlice(devices)
	f.claim("claim-0", exact("req-0", "gpu", 2))
	f.result(pinned(thisNode), got("req-0", partsPool, "part-0"), got("req-0", partsPool, "part-1"))
	return f
}

func TestCounters(t *testing.T) {
	runCheckCases(t, CheckCounters, []checkCase{
		{
			name:  "partitions that use up a counter exactly pass",
			build: partitioned,
		},
		{
			name: "a partition next to an already allocated one passes",
			build: func() *fixture {
				f := partitioned()
				f.markAllocated(partsPool, "part-2")
				f.results[0].Devices.Results = f.results[0].Devices.Results[:1]
				f.claims[0].Spec.Devices.Requests[0].Exactly.Count = 1
				return f
			},
		},
		{
			name: "a multi-allocatable partition shared twice consumes its counters once",
			build: func() *fixture {
				f := partitioned()
				f.device("parts-devices", "part-0").AllowMultipleAllocations = ptr.To(true)
				f.claims[0].Spec.Devices.Requests = append(f.claims[0].Spec.Devices.Requests, exact("req-1", "gpu", 1))
				*f.entry(0, 0) = share(got("req-0", partsPool, "part-0"), "11111111-1111-1111-1111-111111111111", nil)
				f.results[0].Devices.Results = append(f.results[0].Devices.Results,
					share(got("req-1", partsPool, "part-0"), "22222222-2222-2222-2222-222222222222", nil))
				return f
			},
		},
		{
			name: "a partition on top of two already allocated ones is reported",
			build: func() *fixture {
				f := partitioned()
				f.markAllocated(partsPool, "part-2")
				return f
			},
			want: "counter memory of counter set mem in pool dra.example.com/node-1-parts is over-consumed: 12Gi in use (previous allocations included), 8Gi available; newly allocated consumers: dra.example.com/node-1-parts/part-0, dra.example.com/node-1-parts/part-1",
		},
		{
			name: "the whole device next to a partition is reported",
			build: func() *fixture {
				f := partitioned()
				f.entry(0, 1).Device = "whole"
				return f
			},
			want: "counter memory of counter set mem in pool dra.example.com/node-1-parts is over-consumed: 12Gi in use",
		},
		{
			name: "an already shared device counts against the counter",
			build: func() *fixture {
				f := partitioned()
				f.allocated.AggregatedCapacity[structured.MakeDeviceID(driver, partsPool, "part-3")] = structured.ConsumedCapacity{}
				return f
			},
			want: "is over-consumed: 12Gi in use",
		},
		{
			name: "a device consuming an undefined counter set is reported",
			build: func() *fixture {
				f := partitioned()
				f.device("parts-devices", "part-0").ConsumesCounters[0].CounterSet = "no-such-set"
				return f
			},
			want: "device dra.example.com/node-1-parts/part-0: device consumes from counter set no-such-set, which pool dra.example.com/node-1-parts does not define",
		},
		{
			name: "a device consuming an undefined counter is reported",
			build: func() *fixture {
				f := partitioned()
				f.device("parts-devices", "part-0").ConsumesCounters[0].Counters = counterMap(map[string]string{"cores": "1"})
				return f
			},
			want: "device consumes counter cores, which counter set mem of pool dra.example.com/node-1-parts does not have",
		},
		{
			name: "a device consuming counters is reported when PartitionableDevices is off",
			build: func() *fixture {
				f := partitioned()
				f.features.PartitionableDevices = false
				return f
			},
			want: "device consumes counters, but the PartitionableDevices feature is disabled",
		},
	})
}
