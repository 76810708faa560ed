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

	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// TestFeaturesOnRealisticShapes runs one case per allocation feature on
// realistic inventories through both allocators. Each case also pins the
// outcome it is about, so that agreement is not reached by both failing.
func TestFeaturesOnRealisticShapes(t *testing.T) {
	h100, a100 := inventorygen.NvidiaH100(2), inventorygen.NvidiaA100(2)
	for _, tc := range []struct {
		name      string
		cluster   inventorygen.Cluster
		occupancy float64
		claims    []*resourceapi.ResourceClaim
		wantFit   bool
		// verify, if set, checks our results further.
		verify func(t *testing.T, res []resourceapi.AllocationResult)
	}{
		{"All mode takes every GPU of the node", h100, 0,
			[]*resourceapi.ResourceClaim{inventorygen.AllDevicesClaim("all", inventorygen.ClassNvidiaGPU)}, true,
			func(t *testing.T, res []resourceapi.AllocationResult) {
				if n := len(res[0].Devices.Results); n != inventorygen.NvidiaGPUsPerNode {
					t.Errorf("All mode allocated %d GPUs, want all %d", n, inventorygen.NvidiaGPUsPerNode)
				}
			}},
		{"All mode fails when some GPU is taken", h100, 0.5,
			[]*resourceapi.ResourceClaim{inventorygen.AllDevicesClaim("all", inventorygen.ClassNvidiaGPU)}, false, nil},
		{"firstAvailable falls back to two A100s on an A100 node", a100, 0,
			[]*resourceapi.ResourceClaim{inventorygen.PreferH100ElseTwoA100Claim("fallback")}, true, nil},
		{"matchAttribute keeps two GPUs under one PCIe root", h100, 0,
			[]*resourceapi.ResourceClaim{inventorygen.GPUsOnSamePCIeRootClaim("topo", 2)}, true, nil},
		{"matchAttribute cannot be met with more GPUs than one root has (two per root)", h100, 0,
			[]*resourceapi.ResourceClaim{inventorygen.GPUsOnSamePCIeRootClaim("topo", 3)}, false, nil},
		{"a MIG partition fits on a half-used Dynamic MIG node", inventorygen.DynamicMIG(2, 8), 0.5,
			[]*resourceapi.ResourceClaim{inventorygen.MIGProfileClaim("mig", "1g.10gb")}, true, nil},
		{"no MIG partition fits once the counters are used up", inventorygen.DynamicMIG(2, 8), 1,
			[]*resourceapi.ResourceClaim{inventorygen.MIGProfileClaim("mig", "1g.10gb")}, false, nil},
		{"a NIC share with a bandwidth request gets consumed capacity", inventorygen.SharedNICs(2), 0.5,
			[]*resourceapi.ResourceClaim{inventorygen.NICShareClaim("nic", "10G")}, true,
			func(t *testing.T, res []resourceapi.AllocationResult) {
				r := res[0].Devices.Results[0]
				if r.ShareID == nil || len(r.ConsumedCapacity) == 0 {
					t.Errorf("a share of a multi-allocatable NIC lacks shareID or consumedCapacity: %+v", r)
				}
			}},
		{"answers stay the same when the matcher drops CEL inputs (more devices than it keeps)", inventorygen.NvidiaH100(allocator.MaxActivations/inventorygen.NvidiaGPUsPerNode + 100), 0.5,
			[]*resourceapi.ResourceClaim{inventorygen.GPUWithMemoryClaim("gpu", "40Gi"), inventorygen.NewClaim("two", inventorygen.ExactRequest("r", inventorygen.ClassNvidiaGPU, 1, inventorygen.ProductSelector("h100")))}, true, nil},
		{"several claims never get the same GPU", h100, 0,
			[]*resourceapi.ResourceClaim{inventorygen.ExactClaim("a", inventorygen.ClassNvidiaGPU, 5), inventorygen.ExactClaim("b", inventorygen.ClassNvidiaGPU, 3)}, true, nil},
		{"a ninth GPU does not exist", h100, 0,
			[]*resourceapi.ResourceClaim{inventorygen.ExactClaim("a", inventorygen.ClassNvidiaGPU, 5), inventorygen.ExactClaim("b", inventorygen.ClassNvidiaGPU, 4)}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dc := diffCase{
				features: defaultFeatures,
				state:    inventorygen.Occupancy(tc.cluster, tc.occupancy).State(),
				classes:  tc.cluster.ClassLister(),
				slices:   tc.cluster.Slices,
				claims:   tc.claims,
				nodes:    tc.cluster.Nodes,
			}
			diffs, ours := compareOutcomes(t.Context(), dc)
			for _, d := range diffs {
				t.Error(d)
			}
			o := ours[0]
			if o.err != nil {
				t.Fatalf("unexpected error: %v", o.err)
			}
			if fit := o.results != nil; fit != tc.wantFit {
				t.Fatalf("fits = %v, want %v", fit, tc.wantFit)
			}
			if tc.verify != nil {
				tc.verify(t, o.results)
			}
		})
	}
}
