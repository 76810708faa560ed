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

func TestRequests(t *testing.T) {
	runCheckCases(t, CheckRequests, []checkCase{
		{
			name:  "one device for a request of one device passes",
			build: oneGPU,
		},
		{
			name: "two devices for a request of two passes",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", exact("req-0", "gpu", 2))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"), got("req-0", thisNode, "gpu-2"))
				return f
			},
		},
		{
			name: "all matching devices for an All request pass",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", allOf("req-0", "gpu", `device.attributes["dra.example.com"].index < 2`))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"), got("req-0", thisNode, "gpu-1"))
				return f
			},
		},
		{
			name: "a device for a named subrequest passes",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", firstAvailable("req-0", sub("big", "gpu", 8), sub("small", "gpu", 1)))
				f.result(pinned(thisNode), got("req-0/small", thisNode, "gpu-0"))
				return f
			},
		},
		{
			name: "a device with admin access for an admin request passes",
			build: func() *fixture {
				f := oneGPU()
				f.claims[0].Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(true)
				f.entry(0, 0).AdminAccess = ptr.To(true)
				return f
			},
		},
		{
			name: "two devices for a request of one are reported",
			build: func() *fixture {
				f := oneGPU()
				f.results[0].Devices.Results = append(f.results[0].Devices.Results, got("req-0", thisNode, "gpu-1"))
				return f
			},
			want: "request req-0: 2 devices allocated, the request wants exactly 1",
		},
		{
			name: "a request without devices is reported",
			build: func() *fixture {
				f := oneGPU()
				f.claims[0].Spec.Devices.Requests = append(f.claims[0].Spec.Devices.Requests, exact("req-1", "gpu", 1))
				return f
			},
			want: "request req-1: 0 devices allocated, the request wants exactly 1",
		},
		{
			name: "a result naming an unknown request is reported",
			build: func() *fixture {
				f := oneGPU()
				f.entry(0, 0).Request = "req-9"
				return f
			},
			want: `the claim has no request "req-9"`,
		},
		{
			name: "a result missing the subrequest name is reported",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", firstAvailable("req-0", sub("big", "gpu", 8), sub("small", "gpu", 1)))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"))
				return f
			},
			want: `request "req-0" has firstAvailable subrequests, the result must name one as "req-0/<subrequest>"`,
		},
		{
			name: "a result naming an unknown subrequest is reported",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", firstAvailable("req-0", sub("big", "gpu", 8), sub("small", "gpu", 1)))
				f.result(pinned(thisNode), got("req-0/tiny", thisNode, "gpu-0"))
				return f
			},
			want: `request "req-0" has no subrequest "tiny"`,
		},
		{
			name: "results of one request naming different subrequests are reported",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", firstAvailable("req-0", sub("two", "gpu", 2), sub("one", "gpu", 1)))
				f.result(pinned(thisNode), got("req-0/two", thisNode, "gpu-0"), got("req-0/one", thisNode, "gpu-1"))
				return f
			},
			want: `result #1 uses subrequest "one", but earlier results of request "req-0" use "two"`,
		},
		{
			name: "a device that fails the request's selector is reported",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", exact("req-0", "gpu", 1, `device.attributes["dra.example.com"].model == "h100"`))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"))
				return f
			},
			want: `request selector #0: device does not match the selectors: "device.attributes[\"dra.example.com\"].model == \"h100\"" is false`,
		},
		{
			name: "a device that fails the class's selector is reported",
			build: func() *fixture {
				f := oneGPU()
				f.classes[0].Spec.Selectors = celSelectors(`device.attributes["dra.example.com"].index > 0`)
				return f
			},
			want: "device dra.example.com/node-1/gpu-0: class gpu, selector #0: device does not match the selectors",
		},
		{
			name: "a selector that does not compile is reported",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", exact("req-0", "gpu", 1, `noSuchVariable`))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"))
				return f
			},
			want: "request selector #0: CEL compile error",
		},
		{
			name: "a device of an unknown class is reported",
			build: func() *fixture {
				f := oneGPU()
				f.claims[0].Spec.Devices.Requests[0].Exactly.DeviceClassName = "no-such-class"
				return f
			},
			want: `class "no-such-class": deviceclasses.resource.k8s.io "no-such-class" not found`,
		},
		{
			name: "an All request gets the devices of the node's generation, not those of a newer one elsewhere",
			build: func() *fixture {
				f := newFixture()
				f.addSlice(allNodesSlice("shared", "shared", gpu(10), gpu(11)))
				newer := localSlice("shared-next", "shared", "node-2", gpu(10))
				newer.Spec.Pool.Generation = 2
				f.addSlice(newer)
				f.claim("claim-0", allOf("req-0", "gpu", `device.attributes["dra.example.com"].index >= 10`))
				f.result(nil, got("req-0", "shared", "gpu-10"), got("req-0", "shared", "gpu-11"))
				return f
			},
		},
		{
			name: "an All request missing a device of the node's generation is reported although a newer one elsewhere lacks it",
			build: func() *fixture {
				f := newFixture()
				f.addSlice(allNodesSlice("shared", "shared", gpu(10), gpu(11)))
				newer := localSlice("shared-next", "shared", "node-2", gpu(10))
				newer.Spec.Pool.Generation = 2
				f.addSlice(newer)
				f.claim("claim-0", allOf("req-0", "gpu", `device.attributes["dra.example.com"].index >= 10`))
				f.result(nil, got("req-0", "shared", "gpu-10"))
				return f
			},
			want: "device dra.example.com/shared/gpu-11: asks for all matching devices, but this matching device is not allocated",
		},
		{
			name: "an All request ignores a pool that is obsolete for the node",
			build: func() *fixture {
				f := newFixture()
				old := allNodesSlice("shared", "shared", gpu(10), gpu(11))
				old.Spec.Pool.ResourceSliceCount = 2
				f.addSlice(old)
				newer := localSlice("shared-next", "shared", "node-2", gpu(10))
				newer.Spec.Pool.Generation = 2
				f.addSlice(newer)
				f.claim("claim-0", allOf("req-0", "gpu", `device.attributes["dra.example.com"].index < 2`))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"), got("req-0", thisNode, "gpu-1"))
				return f
			},
		},
		{
			name: "a device that only a newer generation elsewhere allows multiple allocations of is reported when used twice",
			build: func() *fixture {
				f := newFixture()
				newer := localSlice("node-1-gpus-next", thisNode, "node-2", gpu(0))
				newer.Spec.Pool.Generation = 2
				newer.Spec.Devices[0].AllowMultipleAllocations = ptr.To(true)
				f.addSlice(newer)
				f.claim("claim-0", exact("req-0", "gpu", 1), exact("req-1", "gpu", 1))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"), got("req-1", thisNode, "gpu-0"))
				return f
			},
			want: "result #1 allocates the device a second time in this claim, but it does not allow multiple allocations",
		},
		{
			name: "an All request missing a matching device is reported",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", allOf("req-0", "gpu", `device.attributes["dra.example.com"].index < 2`))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"))
				return f
			},
			want: "device dra.example.com/node-1/gpu-1: asks for all matching devices, but this matching device is not allocated",
		},
		{
			name: "an All request with a device that does not match is reported",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", allOf("req-0", "gpu", `device.attributes["dra.example.com"].index < 2`))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"), got("req-0", thisNode, "gpu-1"), got("req-0", thisNode, "gpu-3"))
				return f
			},
			want: "device dra.example.com/node-1/gpu-3: asks for all matching devices, but this device is not one of them",
		},
		{
			name: "an All request while a pool of the node is incomplete is reported",
			build: func() *fixture {
				f := newFixture()
				incomplete := localSlice("node-1-more", "node-1-more", thisNode, gpu(7))
				incomplete.Spec.Pool.ResourceSliceCount = 2
				f.addSlice(incomplete)
				f.claim("claim-0", allOf("req-0", "gpu", `device.attributes["dra.example.com"].index < 2`))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"), got("req-0", thisNode, "gpu-1"))
				return f
			},
			want: "asks for all devices, but pool dra.example.com/node-1-more is incomplete",
		},
		{
			name: "an All request that nothing matches is reported",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", allOf("req-0", "gpu", `device.attributes["dra.example.com"].index > 10`))
				f.result(nil)
				return f
			},
			want: "asks for all devices, but no device on node node-1 matches",
		},
		{
			name: "a dedicated device used twice in one claim is reported",
			build: func() *fixture {
				f := newFixture()
				f.claim("claim-0", exact("req-0", "gpu", 1), exact("req-1", "gpu", 1))
				f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"), got("req-1", thisNode, "gpu-0"))
				return f
			},
			want: "result #1 allocates the device a second time in this claim, but it does not allow multiple allocations",
		},
		{
			name: "admin access that was requested but not reported is reported",
			build: func() *fixture {
				f := oneGPU()
				f.claims[0].Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(true)
				return f
			},
			want: "result #0 reports adminAccess false, the request asks for true",
		},
		{
			name: "admin access that was reported but not requested is reported",
			build: func() *fixture {
				f := oneGPU()
				f.entry(0, 0).AdminAccess = ptr.To(true)
				return f
			},
			want: "result #0 reports adminAccess true, the request asks for false",
		},
		{
			name: "subrequests are reported when PrioritizedList is off",
			build: func() *fixture {
				f := newFixture()
				f.features.PrioritizedList = false
				f.claim("claim-0", firstAvailable("req-0", sub("one", "gpu", 1)))
				f.result(pinned(thisNode), got("req-0/one", thisNode, "gpu-0"))
				return f
			},
			want: "request has firstAvailable subrequests, but the PrioritizedList feature is disabled",
		},
		{
			name: "an unsupported allocation mode is reported",
			build: func() *fixture {
				f := oneGPU()
				f.claims[0].Spec.Devices.Requests[0].Exactly.AllocationMode = ""
				return f
			},
			want: `unsupported allocation mode ""`,
		},
		{
			name: "more than 32 devices in one claim are reported",
			build: func() *fixture {
				f := oneGPU()
				for range resourceapi.AllocationResultsMaxSize {
					f.results[0].Devices.Results = append(f.results[0].Devices.Results, got("req-0", thisNode, "gpu-1"))
				}
				return f
			},
			want: "33 devices allocated, at most 32 are allowed",
		},
	})
}
