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
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

func TestOccupancyCountsTheDevicesOfTheResultsDrivers(t *testing.T) {
	const gpuDriver, nicDriver = "gpu.example.com", "nic.example.com"
	node := objects.MakeNode("n").Obj()
	// Two drivers on the node: two GPUs and three NICs.
	slices := []*resourceapi.ResourceSlice{
		objects.MakeSlice("n-gpus", gpuDriver, "n").Device("gpu-0", nil).Device("gpu-1", nil).Obj(),
		objects.MakeSlice("n-nics", nicDriver, "n").Device("nic-0", nil).Device("nic-1", nil).Device("nic-2", nil).Obj(),
	}
	nodes := []*v1.Node{node}
	classes := inventorygen.NewClassLister(objects.DeviceClass("gpu", gpuDriver), objects.DeviceClass("nic", nicDriver))
	claim := func(name, class string, count int64) *resourceapi.ResourceClaim {
		return objects.Claim(name, "ns", objects.ClaimSpec("req", class, count))
	}
	allocated := func(driver string, devices ...string) structured.AllocatedState {
		ids := sets.New[structured.DeviceID]()
		for _, d := range devices {
			ids.Insert(structured.MakeDeviceID(driver, "n", d))
		}
		return structured.AllocatedState{AllocatedDevices: ids}
	}

	for _, tc := range []struct {
		name      string
		state     structured.AllocatedState
		claims    []*resourceapi.ResourceClaim
		wantUsed  int
		wantTotal int
	}{
		{"a GPU result counts the GPUs only, not the NICs", structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{claim("c", "gpu", 1)}, 1, 2},
		{"an already allocated GPU and the result's GPU are both used", allocated(gpuDriver, "gpu-0"),
			[]*resourceapi.ResourceClaim{claim("c", "gpu", 1)}, 2, 2},
		{"allocated NICs do not count when the result takes only a GPU", allocated(nicDriver, "nic-0", "nic-1"),
			[]*resourceapi.ResourceClaim{claim("c", "gpu", 1)}, 1, 2},
		{"results of both drivers count both", allocated(nicDriver, "nic-0"),
			[]*resourceapi.ResourceClaim{claim("g", "gpu", 1), claim("n", "nic", 2)}, 4, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAllocator(tc.state, classes, slices)
			res, err := a.Allocate(t.Context(), node, tc.claims)
			if err != nil || res == nil {
				t.Fatalf("Allocate = %v, %v; the case needs claims that fit", res, err)
			}
			if used, total := a.Occupancy(nodes, res); used != tc.wantUsed || total != tc.wantTotal {
				t.Errorf("Occupancy = %d used of %d, want %d of %d", used, total, tc.wantUsed, tc.wantTotal)
			}
		})
	}

	for name, results := range map[string][]resourceapi.AllocationResult{
		"nil results":              nil,
		"no results":               {},
		"a result without devices": {{}},
	} {
		t.Run("results without devices count every driver, as before any is chosen, with "+name, func(t *testing.T) {
			a := newTestAllocator(allocated(gpuDriver, "gpu-0"), classes, slices)
			if used, total := a.Occupancy(nodes, results); used != 1 || total != 5 {
				t.Errorf("Occupancy = %d used of %d, want 1 of 5", used, total)
			}
		})
	}

	t.Run("two pools of the result's driver both count", func(t *testing.T) {
		second := objects.MakeSlice("n-gpus-b", gpuDriver, "n").Device("gpu-2", nil).Obj()
		second.Spec.Pool.Name = "n-b"
		twoPools := append(slices[:len(slices):len(slices)], second)
		a := newTestAllocator(structured.AllocatedState{}, classes, twoPools)
		res, err := a.Allocate(t.Context(), node, []*resourceapi.ResourceClaim{claim("c", "gpu", 1)})
		if err != nil || res == nil {
			t.Fatalf("Allocate = %v, %v", res, err)
		}
		if used, total := a.Occupancy(nodes, res); used != 1 || total != 3 {
			t.Errorf("Occupancy = %d used of %d, want 1 of 3 (both GPU pools, not the NICs)", used, total)
		}
	})
}

func TestOccupancyOfADomainCountsTheGroupsDriversOnceEach(t *testing.T) {
	nodes, sl := nvlinkCluster()
	classes := inventorygen.NewClassLister(objects.DeviceClass("gpu", "gpu.example.com"))
	a := newTestAllocator(structured.AllocatedState{}, classes, sl)
	res, err := a.Allocate(t.Context(), nodes[1], []*resourceapi.ResourceClaim{objects.Claim("g", "ns", objects.ClaimSpec("req", "gpu", 1))})
	if err != nil || res == nil {
		t.Fatalf("Allocate = %v, %v", res, err)
	}
	if used, total := a.Occupancy(nodes, res); used != 1 || total != 6 {
		t.Errorf("with one GPU taken: %d of %d, want 1 of 6 (the NIC does not count)", used, total)
	}
	if used, total := a.Occupancy(nodes, nil); used != 0 || total != 7 {
		t.Errorf("without results: %d of %d, want 0 of 7 (every driver)", used, total)
	}
}
