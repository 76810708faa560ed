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

package inventory

import (
	"slices"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
)

const gpuDriver = "gpu.example.com"

// gpuSlice is node's one slice of four GPUs: a model attribute, memory
// capacity, generation gen.
func gpuSlice(node string, gen int64) *resourceapi.ResourceSlice {
	s := onNode(slice(node+"-gpus", gpuDriver, node, gen, 1, "gpu-0", "gpu-1", "gpu-2", "gpu-3"), node)
	for i := range s.Spec.Devices {
		s.Spec.Devices[i].Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: ptr.To("H100")}}
		s.Spec.Devices[i].Capacity = map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: resource.MustParse("80Gi")}}
	}
	return s
}

// changed returns a copy of s changed by f.
func changed(s *resourceapi.ResourceSlice, f func(*resourceapi.ResourceSlice)) *resourceapi.ResourceSlice {
	c := s.DeepCopy()
	f(c)
	return c
}

func noneInFlight(string) bool { return false }

func TestCompareReportsEachDriftOnceNamingPoolSliceAndDevice(t *testing.T) {
	node7, node8 := gpuSlice("node-7", 1), gpuSlice("node-8", 1)
	api := []*resourceapi.ResourceSlice{node7, node8}
	for _, tc := range []struct {
		name string
		// held is what the inventory was given; api, if set, what the API
		// has instead of node7 and node8.
		held, api []*resourceapi.ResourceSlice
		inFlight  []string
		want      []drift.Difference
	}{{
		name: "an inventory of the very objects differs in nothing",
		held: api,
	}, {
		name: "an inventory of equal copies differs in nothing",
		held: []*resourceapi.ResourceSlice{node7.DeepCopy(), node8.DeepCopy()},
	}, {
		name: "a device missing from the inventory is one difference",
		held: []*resourceapi.ResourceSlice{changed(node7, func(s *resourceapi.ResourceSlice) { s.Spec.Devices = s.Spec.Devices[:3] }), node8},
		want: []drift.Difference{{Kind: drift.Device, Object: "pool gpu.example.com/node-7", Message: "device gpu-3 of slice node-7-gpus missing in the inventory"}},
	}, {
		name: "a device the API no longer has is one difference",
		held: []*resourceapi.ResourceSlice{node7, changed(node8, func(s *resourceapi.ResourceSlice) {
			s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: "gpu-4"})
		})},
		want: []drift.Difference{{Kind: drift.Device, Object: "pool gpu.example.com/node-8", Message: "device gpu-4 of slice node-8-gpus in the inventory, not in the API"}},
	}, {
		name: "a changed attribute is one difference with both values",
		held: []*resourceapi.ResourceSlice{changed(node7, func(s *resourceapi.ResourceSlice) {
			s.Spec.Devices[2].Attributes["model"] = resourceapi.DeviceAttribute{StringValue: ptr.To("A100")}
		}), node8},
		want: []drift.Difference{{Kind: drift.Device, Object: "pool gpu.example.com/node-7",
			Message: `device gpu-2 of slice node-7-gpus: attributes {model={"string":"H100"}} in the API, {model={"string":"A100"}} in the inventory`}},
	}, {
		name: "a changed capacity is one difference",
		held: []*resourceapi.ResourceSlice{changed(node7, func(s *resourceapi.ResourceSlice) {
			s.Spec.Devices[0].Capacity["memory"] = resourceapi.DeviceCapacity{Value: resource.MustParse("40Gi")}
		}), node8},
		want: []drift.Difference{{Kind: drift.Device, Object: "pool gpu.example.com/node-7",
			Message: `device gpu-0 of slice node-7-gpus: capacity {memory={"value":"80Gi"}} in the API, {memory={"value":"40Gi"}} in the inventory`}},
	}, {
		name: "a taint missing from the inventory is one difference",
		held: []*resourceapi.ResourceSlice{node7, node8},
		// As the feed gives them, with a DeviceTaintRule applied.
		api: []*resourceapi.ResourceSlice{node7, changed(node8, func(s *resourceapi.ResourceSlice) {
			s.Spec.Devices[1].Taints = []resourceapi.DeviceTaint{{Key: "maintenance", Value: "true", Effect: resourceapi.DeviceTaintEffectNoSchedule}}
		})},
		want: []drift.Difference{{Kind: drift.Device, Object: "pool gpu.example.com/node-8",
			Message: "device gpu-1 of slice node-8-gpus: taints [maintenance=true:NoSchedule] in the API (DeviceTaintRules applied), [] in the inventory"}},
	}, {
		name: "changed counters consumed are one difference",
		held: []*resourceapi.ResourceSlice{changed(node7, func(s *resourceapi.ResourceSlice) {
			s.Spec.Devices[1].ConsumesCounters = []resourceapi.DeviceCounterConsumption{{CounterSet: "gpu-1", Counters: map[string]resourceapi.Counter{"memory": {Value: resource.MustParse("1")}}}}
		}), node8},
		want: []drift.Difference{{Kind: drift.Device, Object: "pool gpu.example.com/node-7",
			Message: `device gpu-1 of slice node-7-gpus: consumes counters null in the API, [{"counterSet":"gpu-1","counters":{"memory":{"value":"1"}}}] in the inventory`}},
	}, {
		name: "a stale pool generation is one difference",
		held: []*resourceapi.ResourceSlice{node7, changed(node8, func(s *resourceapi.ResourceSlice) { s.Spec.Pool.Generation = 0 })},
		want: []drift.Difference{{Kind: drift.Pool, Object: "pool gpu.example.com/node-8", Message: "slice node-8-gpus of generation 1 in the API, 0 in the inventory"}},
	}, {
		name: "a slice missing from the inventory is one difference",
		held: []*resourceapi.ResourceSlice{node7},
		want: []drift.Difference{{Kind: drift.Slice, Object: "pool gpu.example.com/node-8", Message: "slice node-8-gpus (generation 1) missing in the inventory"}},
	}, {
		name: "a slice deleted in the API but held is one difference",
		held: []*resourceapi.ResourceSlice{node7, node8, gpuSlice("node-9", 3)},
		want: []drift.Difference{{Kind: drift.Slice, Object: "pool gpu.example.com/node-9", Message: "slice node-9-gpus (generation 3) in the inventory, deleted in the API"}},
	}, {
		name:     "slices whose change is in flight differ in nothing",
		held:     []*resourceapi.ResourceSlice{changed(node7, func(s *resourceapi.ResourceSlice) { s.Spec.Devices = nil }), gpuSlice("node-9", 3)},
		inFlight: []string{"node-7-gpus", "node-8-gpus", "node-9-gpus"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			inv := New()
			for _, s := range tc.held {
				inv.Set(s)
			}
			want := api
			if tc.api != nil {
				want = tc.api
			}
			got := inv.Compare(want, func(name string) bool { return slices.Contains(tc.inFlight, name) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("differences:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestComparePoolsJudgesCompletenessByThePoolIndex(t *testing.T) {
	a := slice("pool-a-0", gpuDriver, "shared", 2, 2, "nic-0")
	b := slice("pool-a-1", gpuDriver, "shared", 2, 2, "nic-1")
	inv := New()
	inv.Set(a)
	inv.Set(b)
	if got := inv.Compare([]*resourceapi.ResourceSlice{a, b}, noneInFlight); len(got) != 0 {
		t.Fatalf("a complete pool held as the API has it: %v", got)
	}
	// The pool index loses a slice the inventory still keeps.
	delete(inv.byPool[PoolID{gpuDriver, "shared"}], "pool-a-1")
	got := inv.Compare([]*resourceapi.ResourceSlice{a, b}, noneInFlight)
	want := []drift.Difference{
		{Kind: drift.Index, Object: "pool gpu.example.com/shared", Message: "slice pool-a-1 missing from the pool index"},
		{Kind: drift.Pool, Object: "pool gpu.example.com/shared", Message: "complete (2 of 2 slices of generation 2) in the API, incomplete (1 of 2 slices of generation 2) in the inventory"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("differences:\n got %v\nwant %v", got, want)
	}
}

func TestCheckIndexesFindsEntriesThatDisagreeWithTheSlices(t *testing.T) {
	node7 := gpuSlice("node-7", 1)
	for _, tc := range []struct {
		name    string
		corrupt func(inv *Inventory)
		want    []drift.Difference
	}{{
		name:    "intact indexes differ in nothing",
		corrupt: func(*Inventory) {},
	}, {
		name: "a device missing from the lookup by name",
		corrupt: func(inv *Inventory) {
			delete(inv.byID, DeviceKey{gpuDriver, "node-7", "gpu-1"})
		},
		want: []drift.Difference{{Kind: drift.Index, Object: "pool gpu.example.com/node-7", Message: "device gpu-1 of slice node-7-gpus missing from the lookup by name"}},
	}, {
		name: "a device missing from the lookup by device ID",
		corrupt: func(inv *Inventory) {
			for id, ds := range inv.byHandle {
				if id.Device.String() == "gpu-2" && len(ds) == 1 {
					delete(inv.byHandle, id)
				}
			}
		},
		want: []drift.Difference{{Kind: drift.Index, Object: "pool gpu.example.com/node-7", Message: "device gpu-2 of slice node-7-gpus missing from the lookup by device ID"}},
	}, {
		name: "a device left in the lookup by name after its slice went",
		corrupt: func(inv *Inventory) {
			gone := &Device{Driver: gpuDriver, Pool: "node-7", Spec: &resourceapi.Device{Name: "gpu-9"}, Slice: &Slice{key: "old"}}
			inv.byID[gone.Key()] = []*Device{gone}
		},
		want: []drift.Difference{{Kind: drift.Index, Object: "pool gpu.example.com/node-7", Message: "device gpu-9 in the lookup by name, of no slice kept"}},
	}, {
		name: "two devices swapped in the dense index",
		corrupt: func(inv *Inventory) {
			inv.devices[0], inv.devices[1] = inv.devices[1], inv.devices[0]
		},
		want: []drift.Difference{
			{Kind: drift.Index, Object: "pool gpu.example.com/node-7", Message: "device gpu-0 of slice node-7-gpus: index 0 holds another device"},
			{Kind: drift.Index, Object: "pool gpu.example.com/node-7", Message: "device gpu-1 of slice node-7-gpus: index 1 holds another device"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			inv := New()
			inv.Set(node7)
			tc.corrupt(inv)
			got := inv.Compare([]*resourceapi.ResourceSlice{node7}, noneInFlight)
			if !slices.Equal(got, tc.want) {
				t.Errorf("differences:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}
