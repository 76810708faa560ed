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
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocationcheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// allocateWith runs one Allocate with a policy over a fresh inventory.
func allocateWith(t testing.TB, policy allocator.Policy, features structured.Features, state structured.AllocatedState,
	classes structured.DeviceClassLister, slices []*resourceapi.ResourceSlice, node *v1.Node, claims []*resourceapi.ResourceClaim) ([]resourceapi.AllocationResult, error) {
	inv := inventory.New()
	for _, s := range slices {
		inv.Set(s)
	}
	m := allocator.NewMatcher(cel.NewCache(10, cel.Features{EnableConsumableCapacity: features.ConsumableCapacity}))
	return allocator.New(features, allocator.NewState(inv, state), classes, inv, m, policy).Allocate(context.Background(), node, claims)
}

func devicesOf(results []resourceapi.AllocationResult) []string {
	var out []string
	for _, r := range results {
		for _, d := range r.Devices.Results {
			out = append(out, d.Pool+"/"+d.Device)
		}
	}
	return out
}

func TestPackingPolicy(t *testing.T) {
	t.Run("a 4Gi ask takes the 40Gi GPU, not the 141Gi one listed first", func(t *testing.T) {
		const drv = "gpu.example.com"
		slice := objects.MakeSlice("n-gpus", drv, "n").
			Device("gpu-0", map[string]string{"memory": "141Gi"}).
			Device("gpu-1", map[string]string{"memory": "40Gi"}).Obj()
		claims := []*resourceapi.ResourceClaim{objects.Claim("c", "ns", objects.ClaimSpec("gpu", "gpu", 1,
			`device.capacity["gpu.example.com"].memory.compareTo(quantity("4Gi")) >= 0`))}
		classes := inventorygen.NewClassLister(objects.DeviceClass("gpu", drv))
		node := objects.MakeNode("n").Obj()
		for policy, want := range map[allocator.Policy]string{allocator.FirstFit: "n/gpu-0", allocator.Packing: "n/gpu-1"} {
			res, err := allocateWith(t, policy, defaultFeatures, structured.AllocatedState{}, classes, []*resourceapi.ResourceSlice{slice}, node, claims)
			if err != nil || len(devicesOf(res)) != 1 || devicesOf(res)[0] != want {
				t.Errorf("%s: got %v, %v; want %s", policy, devicesOf(res), err, want)
			}
		}
	})

	t.Run("a MIG partition goes onto the partly used GPU before a fresh one", func(t *testing.T) {
		c := inventorygen.DynamicMIG(1, 2)
		used := structured.MakeDeviceID(inventorygen.DriverNvidia, c.Nodes[0].Name, inventorygen.MIGDeviceName(1, "1g.10gb", 19, 0))
		state := structured.AllocatedState{AllocatedDevices: sets.New(used)}
		claims := []*resourceapi.ResourceClaim{inventorygen.MIGProfileClaim("c", "1g.10gb")}
		for policy, wantGPU := range map[allocator.Policy]string{allocator.FirstFit: "gpu-0-", allocator.Packing: "gpu-1-"} {
			res, err := allocateWith(t, policy, defaultFeatures, state, c.ClassLister(), c.Slices, c.Nodes[0], claims)
			devs := devicesOf(res)
			if err != nil || len(devs) != 1 || !containsAfterSlash(devs[0], wantGPU) {
				t.Errorf("%s: got %v, %v; want a partition of %s", policy, devs, err, wantGPU)
			}
		}
	})
}

func containsAfterSlash(s, prefix string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return len(s) > i+len(prefix) && s[i+1:i+1+len(prefix)] == prefix
		}
	}
	return false
}

// TestPackingIsValidAndFitsWhenFirstFitFits runs the random cases with the
// packing policy: every allocation must pass the independent checker, and
// whenever FirstFit allocates without any selector error in the case,
// Packing must allocate too (the search is exhaustive; only order changes).
func TestPackingIsValidAndFitsWhenFirstFitFits(t *testing.T) {
	n := envInt(t, "DRA_DIFF_CASES", 800)
	first := envInt(t, "DRA_DIFF_SEED", 1)
	var checked, lostFits int
	for seed := first; seed < first+n; seed++ {
		c := inventorygen.Random(int64(seed), inventorygen.DefaultRandomOptions())
		for _, node := range c.Nodes {
			ff, ffErr := allocateWith(t, allocator.FirstFit, c.Features, c.AllocatedState(), c.ClassLister(), c.Slices, node, c.Claims)
			pk, pkErr := allocateWith(t, allocator.Packing, c.Features, c.AllocatedState(), c.ClassLister(), c.Slices, node, c.Claims)
			if pkErr == nil && pk != nil {
				checked++
				if v := allocationcheck.Check(t.Context(), allocationcheck.Input{
					Features: c.Features, Node: node, Slices: c.Slices, Classes: c.ClassLister(), Claims: c.Claims, Allocated: c.AllocatedState(),
				}, pk); len(v) > 0 {
					t.Errorf("seed %d, node %s: packing returned an invalid allocation: %v", seed, node.Name, v)
				}
			}
			if ffErr == nil && ff != nil && pkErr == nil && pk == nil {
				lostFits++
				t.Errorf("seed %d, node %s: FirstFit allocates but Packing finds nothing", seed, node.Name)
			}
		}
	}
	t.Logf("%d packing allocations checked, %d fits lost", checked, lostFits)
}
