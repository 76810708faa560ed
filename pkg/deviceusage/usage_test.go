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

package deviceusage_test

import (
	"bytes"
	"reflect"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceusage"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const (
	gpu = "gpu.example.com"
	nic = "nic.example.com"
)

func allocated(name string, results ...resourceapi.DeviceRequestAllocationResult) *resourceapi.ResourceClaim {
	c := objects.Claim(name, "team", objects.ClaimSpec("req", gpu, 1))
	c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: results}}
	return c
}

func result(driver, pool, device string) resourceapi.DeviceRequestAllocationResult {
	return resourceapi.DeviceRequestAllocationResult{Request: "req", Driver: driver, Pool: pool, Device: device}
}

func TestUsageCountsDevicesPerClassAndPoolWithCountersAndSharedCapacity(t *testing.T) {
	half := `device.attributes["gpu.example.com"].profile == "half"`
	share := result(nic, "node-2", "nic-0")
	share.ShareID = ptr.To[types.UID]("s1")
	share.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{"bandwidth": resource.MustParse("4G")}
	objs := &clusterstate.Objects{
		Slices: []*resourceapi.ResourceSlice{
			objects.MakeSlice("counters", gpu, "node-1").SliceCount(2).CounterSet("gpu-0", map[string]string{"memory": "8Gi"}).Obj(),
			objects.MakeSlice("devices", gpu, "node-1").SliceCount(2).
				Device("half-0", nil).Attribute("profile", "half").ConsumesCounters("gpu-0", map[string]string{"memory": "4Gi"}).
				Device("half-1", nil).Attribute("profile", "half").ConsumesCounters("gpu-0", map[string]string{"memory": "4Gi"}).
				Device("whole", nil).Attribute("profile", "whole").ConsumesCounters("gpu-0", map[string]string{"memory": "8Gi"}).Obj(),
			objects.MakeSlice("nic", nic, "node-2").Device("nic-0", map[string]string{"bandwidth": "10G"}).AllowMultipleAllocations().Obj(),
			// One of two slices: the pool is incomplete.
			objects.MakeSlice("partial", gpu, "node-3").SliceCount(2).Device("gpu-0", nil).Obj(),
		},
		Classes: []*resourceapi.DeviceClass{
			objects.DeviceClass("gpu-half", gpu, half),
			objects.DeviceClass(gpu, gpu),
			objects.DeviceClass(nic, nic),
		},
		Claims: []*resourceapi.ResourceClaim{
			allocated("a", result(gpu, "node-1", "half-0")),
			allocated("b", share),
			objects.Claim("pending", "team", objects.ClaimSpec("req", gpu, 1)),
		},
	}
	r, err := deviceusage.Compute(t.Context(), objs)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", text.String())

	wantClasses := []deviceusage.ClassUsage{
		{Class: "gpu-half", Counts: deviceusage.Counts{Devices: 2, Allocated: 1, Free: 1}},
		{Class: gpu, Counts: deviceusage.Counts{Devices: 3, Allocated: 1, Free: 2}},
		{Class: nic, Counts: deviceusage.Counts{Devices: 1, Shared: 1}},
	}
	if !reflect.DeepEqual(r.Classes, wantClasses) {
		t.Errorf("classes\n%+v\nwant\n%+v (the incomplete pool's device not counted)", r.Classes, wantClasses)
	}
	if len(r.Pools) != 3 {
		t.Fatalf("pools %+v, want three", r.Pools)
	}
	gpuPool, partial, nicPool := r.Pools[0], r.Pools[1], r.Pools[2]
	if gpuPool.Pool != "node-1" || gpuPool.Counts != (deviceusage.Counts{Devices: 3, Allocated: 1, Free: 2}) || len(gpuPool.Counters) != 1 ||
		gpuPool.Counters[0].Name != "gpu-0/memory" || gpuPool.Counters[0].Used.Cmp(resource.MustParse("4Gi")) != 0 || gpuPool.Counters[0].Total.Cmp(resource.MustParse("8Gi")) != 0 {
		t.Errorf("GPU pool %+v, want 3 devices, 1 allocated, gpu-0/memory 4Gi of 8Gi used", gpuPool)
	}
	if partial.Pool != "node-3" || !partial.Incomplete {
		t.Errorf("pool %+v, want node-3 marked incomplete", partial)
	}
	if nicPool.Counts != (deviceusage.Counts{Devices: 1, Shared: 1}) || len(nicPool.Capacity) != 1 || nicPool.Capacity[0].Name != "nic-0/bandwidth" ||
		nicPool.Capacity[0].Used.Cmp(resource.MustParse("4G")) != 0 {
		t.Errorf("NIC pool %+v, want nic-0 shared with 4G of its bandwidth used", nicPool)
	}
}
