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

// constrained allocates gpu-0 and gpu-1 for two requests under one
// constraint.
func constrained(c resourceapi.DeviceConstraint) *fixture {
	f := newFixture()
	claim := f.claim("claim-0", exact("req-0", "gpu", 1), exact("req-1", "gpu", 1))
	claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{c}
	f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"), got("req-1", thisNode, "gpu-1"))
	return f
}

func match(name string, requests ...string) resourceapi.DeviceConstraint {
	return resourceapi.DeviceConstraint{Requests: requests, MatchAttribute: ptr.To(resourceapi.FullyQualifiedName(name))}
}

func distinct(name string, requests ...string) resourceapi.DeviceConstraint {
	return resourceapi.DeviceConstraint{Requests: requests, DistinctAttribute: ptr.To(resourceapi.FullyQualifiedName(name))}
}

func TestConstraints(t *testing.T) {
	runCheckCases(t, CheckConstraints, []checkCase{
		{
			name:  "devices with the same model pass matchAttribute",
			build: func() *fixture { return constrained(match("dra.example.com/model")) },
		},
		{
			name:  "devices with different indexes pass distinctAttribute",
			build: func() *fixture { return constrained(distinct("dra.example.com/index")) },
		},
		{
			name: "a constraint on one request ignores the other request's device",
			build: func() *fixture {
				f := constrained(match("dra.example.com/model", "req-0"))
				*f.device("node-1-gpus", "gpu-1") = attr(gpu(1), "model", str("h100"))
				return f
			},
		},
		{
			name: "an attribute of a foreign domain is found under its full name",
			build: func() *fixture {
				f := constrained(match("other.example.com/family"))
				*f.device("node-1-gpus", "gpu-0") = attr(gpu(0), "other.example.com/family", str("x"))
				*f.device("node-1-gpus", "gpu-1") = attr(gpu(1), "other.example.com/family", str("x"))
				return f
			},
		},
		{
			name: "a constraint naming a subrequest applies to its devices",
			build: func() *fixture {
				f := newFixture()
				claim := f.claim("claim-0", firstAvailable("req-0", sub("one", "gpu", 1)), exact("req-1", "gpu", 1))
				claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{distinct("dra.example.com/index", "req-0/one", "req-1")}
				f.result(pinned(thisNode), got("req-0/one", thisNode, "gpu-0"), got("req-1", thisNode, "gpu-1"))
				return f
			},
		},
		{
			name: "devices with different models are reported under matchAttribute",
			build: func() *fixture {
				f := constrained(match("dra.example.com/model"))
				*f.device("node-1-gpus", "gpu-1") = attr(gpu(1), "model", str("h100"))
				return f
			},
			want: "request req-1, device dra.example.com/node-1/gpu-1: constraint #0 (matchAttribute dra.example.com/model): value string h100 differs from string a100 of device dra.example.com/node-1/gpu-0",
		},
		{
			name: "a device without the matched attribute is reported",
			build: func() *fixture {
				f := constrained(match("dra.example.com/family"))
				return f
			},
			want: "constraint #0 (matchAttribute dra.example.com/family): device has no such attribute",
		},
		{
			name:  "devices with the same value are reported under distinctAttribute",
			build: func() *fixture { return constrained(distinct("dra.example.com/model")) },
			want:  "constraint #0 (distinctAttribute dra.example.com/model): value string a100 is also the value of device dra.example.com/node-1/gpu-0 (result #0)",
		},
		{
			name: "a subrequest's devices are reported when they break a constraint naming the subrequest",
			build: func() *fixture {
				f := newFixture()
				claim := f.claim("claim-0", firstAvailable("req-0", sub("one", "gpu", 1)), exact("req-1", "gpu", 1))
				claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{distinct("dra.example.com/model", "req-0/one", "req-1")}
				f.result(pinned(thisNode), got("req-0/one", thisNode, "gpu-0"), got("req-1", thisNode, "gpu-1"))
				return f
			},
			want: "is also the value of device dra.example.com/node-1/gpu-0",
		},
		{
			name:  "an empty constraint is reported",
			build: func() *fixture { return constrained(resourceapi.DeviceConstraint{}) },
			want:  "constraint #0 is empty",
		},
	})
}
