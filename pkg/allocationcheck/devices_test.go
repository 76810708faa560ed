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

	"k8s.io/utils/ptr"
)

func TestDevices(t *testing.T) {
	runCheckCases(t, CheckDevice, []checkCase{
		{
			name:  "a device of the node's own complete pool passes",
			build: oneGPU,
		},
		{
			name: "a device of a slice for all nodes passes",
			build: func() *fixture {
				f := newFixture()
				f.addSlice(allNodesSlice("shared", "shared", gpu(0)))
				f.claim("claim-0", exact("req-0", "gpu", 1))
				f.result(nil, got("req-0", "shared", "gpu-0"))
				return f
			},
		},
		{
			name: "a device of a slice whose node selector matches the node passes",
			build: func() *fixture {
				f := newFixture()
				f.addSlice(selectorSlice("zone-a", "zone-a", labelSelector("zone", "a"), gpu(0)))
				f.claim("claim-0", exact("req-0", "gpu", 1))
				f.result(labelSelector("zone", "a"), got("req-0", "zone-a", "gpu-0"))
				return f
			},
		},
		{
			name: "a device with per-device node selection for this node passes",
			build: func() *fixture {
				f := newFixture()
				d := gpu(0)
				d.NodeName = ptr.To(thisNode)
				f.addSlice(perDeviceSlice("per-device", "per-device", d))
				f.claim("claim-0", exact("req-0", "gpu", 1))
				f.result(pinned(thisNode), got("req-0", "per-device", "gpu-0"))
				return f
			},
		},
		{
			name: "a device the pool does not have is reported",
			build: func() *fixture {
				f := oneGPU()
				f.entry(0, 0).Device = "gpu-9"
				return f
			},
			want: "pool dra.example.com/node-1 (generation 1) has no device gpu-9",
		},
		{
			name: "a device of an unknown pool is reported",
			build: func() *fixture {
				f := oneGPU()
				f.entry(0, 0).Pool = "no-such-pool"
				return f
			},
			want: "no ResourceSlice belongs to pool dra.example.com/no-such-pool",
		},
		{
			name: "a device only listed in an older generation of its pool is reported",
			build: func() *fixture {
				f := oneGPU()
				newer := localSlice("node-1-gpus-v2", thisNode, thisNode, gpu(1))
				newer.Spec.Pool.Generation = 2
				f.addSlice(newer)
				return f
			},
			want: "device gpu-0 is only listed in an older generation of pool dra.example.com/node-1, the current one is 2",
		},
		{
			name: "a node-complete old generation is used although a newer lone slice exists on another node",
			build: func() *fixture {
				f := oneGPU()
				f.addSlice(newerElsewhere(2, gpu(0), gpu(9)))
				return f
			},
		},
		{
			name: "a device only in a newer generation that the node does not use is reported",
			build: func() *fixture {
				f := oneGPU()
				f.addSlice(newerElsewhere(2, gpu(9)))
				f.entry(0, 0).Device = "gpu-9"
				return f
			},
			want: "pool dra.example.com/node-1 has no device gpu-9 in generation 1, the one node node-1 uses because the node's slices of it are complete (generation 2 exists, but not for the node); the device is only listed in generation(s) [2]",
		},
		{
			name: "a device only in the older generation is reported when the node's slices are incomplete and a newer generation exists",
			build: func() *fixture {
				f := oneGPU()
				f.slices[0].Spec.Pool.ResourceSliceCount = 2
				f.addSlice(newerElsewhere(2, gpu(9)))
				return f
			},
			want: "device gpu-0 is only listed in an older generation of pool dra.example.com/node-1, the current one is 2; pool dra.example.com/node-1 is outdated on node node-1: the node's 1 slices of generation 1 are incomplete (slice node-1-gpus announces 2), and generation 2 exists",
		},
		{
			name: "a device of both generations is reported when the node's slices are incomplete and a newer generation exists",
			build: func() *fixture {
				f := oneGPU()
				f.slices[0].Spec.Pool.ResourceSliceCount = 2
				f.addSlice(newerElsewhere(2, gpu(0)))
				return f
			},
			want: "pool dra.example.com/node-1 is outdated on node node-1",
		},
		{
			name: "a pool whose slices for the node are incomplete passes when all slices of the generation are complete",
			build: func() *fixture {
				f := oneGPU()
				f.slices[0].Spec.Pool.ResourceSliceCount = 2
				other := localSlice("node-2-gpus", thisNode, "node-2", gpu(5))
				other.Spec.Pool.ResourceSliceCount = 2
				f.addSlice(other)
				return f
			},
		},
		{
			name: "a device in the other node's slice of a pool spanning nodes is reported",
			build: func() *fixture {
				f := oneGPU()
				f.slices[0].Spec.Pool.ResourceSliceCount = 2
				other := localSlice("node-2-gpus", thisNode, "node-2", gpu(5))
				other.Spec.Pool.ResourceSliceCount = 2
				f.addSlice(other)
				f.entry(0, 0).Device = "gpu-5"
				return f
			},
			want: "slice node-2-gpus is not available on node node-1",
		},
		{
			name: "a node-complete newer generation is used although the other slices of the pool are older",
			build: func() *fixture {
				f := newFixture()
				f.slices[0].Spec.Pool.ResourceSliceCount = 2
				other := localSlice("node-2-gpus", thisNode, "node-2", gpu(5))
				other.Spec.Pool.ResourceSliceCount = 2
				f.addSlice(other)
				newer := localSlice("node-1-gpus-v2", thisNode, thisNode, gpu(7))
				newer.Spec.Pool.Generation = 2
				f.addSlice(newer)
				f.claim("claim-0", exact("req-0", "gpu", 1))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-7"))
				return f
			},
		},
		{
			name: "a pool whose slices of the generation are incomplete together is reported",
			build: func() *fixture {
				f := oneGPU()
				f.slices[0].Spec.Pool.ResourceSliceCount = 3
				other := localSlice("node-2-gpus", thisNode, "node-2", gpu(5))
				other.Spec.Pool.ResourceSliceCount = 3
				f.addSlice(other)
				return f
			},
			want: "pool dra.example.com/node-1 is incomplete: generation 1 has 2 slices, slice node-1-gpus announces 3",
		},
		{
			name: "completeness goes by the count the node's first slice announces, as upstream's",
			build: func() *fixture {
				f := oneGPU()
				f.slices[0].Spec.Pool.ResourceSliceCount = 2
				other := localSlice("node-2-gpus", thisNode, "node-2", gpu(5))
				other.Spec.Pool.ResourceSliceCount = 3
				f.addSlice(other)
				return f
			},
		},
		{
			name: "a device of an incomplete pool is reported",
			build: func() *fixture {
				f := oneGPU()
				f.slices[0].Spec.Pool.ResourceSliceCount = 2
				return f
			},
			want: "pool dra.example.com/node-1 is incomplete: generation 1 has 1 slices, slice node-1-gpus announces 2",
		},
		{
			name: "a device of another node's slice is reported",
			build: func() *fixture {
				f := newFixture()
				f.addSlice(localSlice("node-2-gpus", "node-2", "node-2", gpu(0)))
				f.claim("claim-0", exact("req-0", "gpu", 1))
				f.result(pinned(thisNode), got("req-0", "node-2", "gpu-0"))
				return f
			},
			want: "slice node-2-gpus is not available on node node-1",
		},
		{
			name: "a device of a slice whose node selector does not match the node is reported",
			build: func() *fixture {
				f := newFixture()
				f.addSlice(selectorSlice("zone-b", "zone-b", labelSelector("zone", "b"), gpu(0)))
				f.claim("claim-0", exact("req-0", "gpu", 1))
				f.result(labelSelector("zone", "b"), got("req-0", "zone-b", "gpu-0"))
				return f
			},
			want: "slice zone-b is not available on node node-1",
		},
		{
			name: "a device whose per-device node selection names another node is reported",
			build: func() *fixture {
				f := newFixture()
				d := gpu(0)
				d.NodeName = ptr.To("node-2")
				f.addSlice(perDeviceSlice("per-device", "per-device", d))
				f.claim("claim-0", exact("req-0", "gpu", 1))
				f.result(pinned(thisNode), got("req-0", "per-device", "gpu-0"))
				return f
			},
			want: "device gpu-0 in slice per-device is not available on node node-1",
		},
		{
			name: "a device of a per-device slice is reported when PartitionableDevices is off",
			build: func() *fixture {
				f := newFixture()
				f.features.PartitionableDevices = false
				d := gpu(0)
				d.AllNodes = ptr.To(true)
				f.addSlice(perDeviceSlice("per-device", "per-device", d))
				f.claim("claim-0", exact("req-0", "gpu", 1))
				f.result(nil, got("req-0", "per-device", "gpu-0"))
				return f
			},
			want: "slice per-device uses perDeviceNodeSelection, but the PartitionableDevices feature is disabled",
		},
		{
			name: "a device listed twice for the node is reported as ambiguous",
			build: func() *fixture {
				f := oneGPU()
				f.slices[0].Spec.Pool.ResourceSliceCount = 2
				twin := localSlice("node-1-twin", thisNode, thisNode, gpu(0))
				twin.Spec.Pool.ResourceSliceCount = 2
				f.addSlice(twin)
				return f
			},
			want: "device name is ambiguous, slices node-1-gpus, node-1-twin of pool dra.example.com/node-1 all list it for node node-1",
		},
	})
}

// newerElsewhere returns a lone slice of the given generation of pool
// "node-1" that belongs to node-2, as when a driver republishes the pool.
func newerElsewhere(generation int64, devices ...resourceapi.Device) *resourceapi.ResourceSlice {
	s := localSlice("node-1-gpus-next", thisNode, "node-2", devices...)
	s.Spec.Pool.Generation = generation
	return s
}
