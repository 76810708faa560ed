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
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestSameAsUpstream runs hand-written cases through both allocators.
func TestSameAsUpstream(t *testing.T) {
	const drv = "gpu.example.com"
	nodes := []*v1.Node{objects.MakeNode("node-a").Obj(), objects.MakeNode("node-b").Obj()}
	gpus := func(node string, mem ...string) *resourceapi.ResourceSlice {
		s := objects.MakeSlice(node+"-gpus", drv, node)
		for i, m := range mem {
			s.Device("gpu-"+string(rune('0'+i)), map[string]string{"memory": m})
		}
		return s.Obj()
	}
	class := inventorygen.NewClassLister(objects.DeviceClass("gpu", drv))
	big := `device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0`
	claim := func(name string, count int64, selectors ...string) *resourceapi.ResourceClaim {
		return objects.Claim(name, "ns", objects.ClaimSpec("req", "gpu", count, selectors...))
	}
	for name, tc := range map[string]diffCase{
		"one GPU on each node": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi"), gpus("node-b", "80Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 1)},
		},
		"a memory selector picks the big GPU": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi", "80Gi"), gpus("node-b", "80Gi", "40Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 1, big)},
		},
		"two claims share the node's GPUs without overlap": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi", "80Gi", "80Gi"), gpus("node-b", "80Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c1", 1, big), claim("c2", 1)},
		},
		"too many devices do not fit": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi", "80Gi"), gpus("node-b", "80Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 3)},
		},
		"a missing class is an error": {
			classes: inventorygen.NewClassLister(),
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 1)},
		},
		"a CEL runtime error aborts": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "40Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 1, `device.attributes["gpu.example.com"].model == "x"`)},
		},
		"allocated devices are skipped": {
			classes: class,
			slices:  []*resourceapi.ResourceSlice{gpus("node-a", "80Gi", "80Gi")},
			claims:  []*resourceapi.ResourceClaim{claim("c", 1)},
			state:   structured.AllocatedState{AllocatedDevices: sets.New(structured.MakeDeviceID(drv, "node-a", "gpu-0"))},
		},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.features == (structured.Features{}) {
				tc.features = defaultFeatures
			}
			tc.nodes = nodes
			for _, d := range compare(t.Context(), tc) {
				t.Error(d)
			}
		})
	}
}

// TestNewAllocatorKeepsEverySliceOfItsList: upstream's NewAllocator treats
// the slices of its list as distinct objects, whatever their names (some of
// Kubernetes' own test cases give several slices one name); so must ours.
func TestNewAllocatorKeepsEverySliceOfItsList(t *testing.T) {
	const gpuDriver, nicDriver = "gpu.example.com", "nic.example.com"
	node := objects.MakeNode("n").Obj()
	// named is a slice of node n called name, one of count slices of its
	// pool.
	named := func(name, driver, pool string, count int64, devices ...string) *resourceapi.ResourceSlice {
		s := objects.MakeSlice(name, driver, "n")
		for _, d := range devices {
			s.Device(d, nil)
		}
		s.Spec.Pool = resourceapi.ResourcePool{Name: pool, Generation: 1, ResourceSliceCount: count}
		return s.Obj()
	}
	gpus := inventorygen.NewClassLister(objects.DeviceClass("gpu", gpuDriver))
	twoGPUs := objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", 2))
	gpuAndNIC := objects.ClaimSpec("gpu", "gpu", 1)
	gpuAndNIC.Devices.Requests = append(gpuAndNIC.Devices.Requests, objects.ClaimSpec("nic", "nic", 1).Devices.Requests...)
	listedTwice := named("gpus", gpuDriver, "n", 1, "gpu-0")

	for _, tc := range []struct {
		name string
		diffCase
		// want lists the devices allocated on the node as driver/pool/device,
		// nil if the claims do not fit.
		want []string
	}{
		{
			name: "slices sharing a name in two pools both offer their devices",
			diffCase: diffCase{
				classes: gpus,
				slices:  []*resourceapi.ResourceSlice{named("gpus", gpuDriver, "pool-1", 1, "gpu-0"), named("gpus", gpuDriver, "pool-2", 1, "gpu-0")},
				claims:  []*resourceapi.ResourceClaim{twoGPUs},
			},
			want: []string{"gpu.example.com/pool-1/gpu-0", "gpu.example.com/pool-2/gpu-0"},
		},
		{
			name: "slices of two drivers sharing a name both offer their devices",
			diffCase: diffCase{
				classes: inventorygen.NewClassLister(objects.DeviceClass("gpu", gpuDriver), objects.DeviceClass("nic", nicDriver)),
				slices:  []*resourceapi.ResourceSlice{named("devices", gpuDriver, "n", 1, "dev-0"), named("devices", nicDriver, "n", 1, "dev-0")},
				claims:  []*resourceapi.ResourceClaim{objects.Claim("c", "ns", gpuAndNIC)},
			},
			want: []string{"gpu.example.com/n/dev-0", "nic.example.com/n/dev-0"},
		},
		{
			name: "two slices sharing a name complete a pool of two slices",
			diffCase: diffCase{
				classes: gpus,
				slices:  []*resourceapi.ResourceSlice{named("gpus", gpuDriver, "n", 2, "gpu-0"), named("gpus", gpuDriver, "n", 2, "gpu-1")},
				claims:  []*resourceapi.ResourceClaim{twoGPUs},
			},
			want: []string{"gpu.example.com/n/gpu-0", "gpu.example.com/n/gpu-1"},
		},
		{
			name: "a slice listed twice counts twice, which leaves its pool of one slice incomplete",
			diffCase: diffCase{
				classes: gpus,
				slices:  []*resourceapi.ResourceSlice{listedTwice, listedTwice},
				claims:  []*resourceapi.ResourceClaim{objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", 1))},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.features, tc.nodes = defaultFeatures, []*v1.Node{node}
			before := make([]*resourceapi.ResourceSlice, len(tc.slices))
			for i, s := range tc.slices {
				before[i] = s.DeepCopy()
			}
			diffs, ours := compareOutcomes(t.Context(), tc.diffCase)
			for _, d := range diffs {
				t.Error(d)
			}
			var got []string
			if o := ours[0]; o.err != nil {
				t.Fatalf("Allocate: %v", o.err)
			} else if o.results != nil {
				for _, r := range o.results[0].Devices.Results {
					got = append(got, r.Driver+"/"+r.Pool+"/"+r.Device)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("allocated %q, want %q", got, tc.want)
			}
			for i, s := range tc.slices {
				if !apiequality.Semantic.DeepEqual(s, before[i]) {
					t.Errorf("slice #%d was modified", i)
				}
			}
		})
	}
}
