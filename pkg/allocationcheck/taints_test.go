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
)

// tainted allocates gpu-0 carrying the taint to a request with the
// tolerations; the result copies the tolerations.
func tainted(taint resourceapi.DeviceTaint, tolerations ...resourceapi.DeviceToleration) *fixture {
	f := oneGPU()
	f.device("node-1-gpus", "gpu-0").Taints = []resourceapi.DeviceTaint{taint}
	f.claims[0].Spec.Devices.Requests[0].Exactly.Tolerations = tolerations
	f.entry(0, 0).Tolerations = tolerations
	return f
}

var broken = resourceapi.DeviceTaint{Key: "gpu", Value: "broken", Effect: resourceapi.DeviceTaintEffectNoSchedule}

func TestTaints(t *testing.T) {
	runCheckCases(t, CheckTaints, []checkCase{
		{
			name: "a NoSchedule taint tolerated with Exists passes",
			build: func() *fixture {
				return tainted(broken, resourceapi.DeviceToleration{Key: "gpu", Operator: resourceapi.DeviceTolerationOpExists})
			},
		},
		{
			name: "a NoExecute taint tolerated with an equal value and effect passes",
			build: func() *fixture {
				taint := broken
				taint.Effect = resourceapi.DeviceTaintEffectNoExecute
				return tainted(taint, resourceapi.DeviceToleration{Key: "gpu", Value: "broken", Effect: resourceapi.DeviceTaintEffectNoExecute})
			},
		},
		{
			name: "a taint with effect None needs no toleration",
			build: func() *fixture {
				taint := broken
				taint.Effect = resourceapi.DeviceTaintEffectNone
				return tainted(taint)
			},
		},
		{
			name: "taints are ignored when DeviceTaints is off",
			build: func() *fixture {
				f := tainted(broken)
				f.features.DeviceTaints = false
				return f
			},
		},
		{
			name:  "an untolerated NoSchedule taint is reported",
			build: func() *fixture { return tainted(broken) },
			want:  "device dra.example.com/node-1/gpu-0: taint gpu=broken:NoSchedule is not tolerated",
		},
		{
			name: "a toleration for another effect is reported as not tolerating",
			build: func() *fixture {
				taint := broken
				taint.Effect = resourceapi.DeviceTaintEffectNoExecute
				return tainted(taint, resourceapi.DeviceToleration{Key: "gpu", Operator: resourceapi.DeviceTolerationOpExists, Effect: resourceapi.DeviceTaintEffectNoSchedule})
			},
			want: "taint gpu=broken:NoExecute is not tolerated",
		},
		{
			name: "a toleration for another value is reported as not tolerating",
			build: func() *fixture {
				return tainted(broken, resourceapi.DeviceToleration{Key: "gpu", Operator: resourceapi.DeviceTolerationOpEqual, Value: "flaky"})
			},
			want: "taint gpu=broken:NoSchedule is not tolerated",
		},
		{
			name: "a subrequest's untolerated taint is reported",
			build: func() *fixture {
				f := newFixture()
				f.device("node-1-gpus", "gpu-0").Taints = []resourceapi.DeviceTaint{broken}
				f.claim("claim-0", firstAvailable("req-0", sub("one", "gpu", 1)))
				f.result(pinned(thisNode), got("req-0/one", thisNode, "gpu-0"))
				return f
			},
			want: "request req-0/one, device dra.example.com/node-1/gpu-0: taint gpu=broken:NoSchedule is not tolerated",
		},
		{
			name: "a result whose tolerations differ from the request's is reported",
			build: func() *fixture {
				f := tainted(broken, resourceapi.DeviceToleration{Key: "gpu", Operator: resourceapi.DeviceTolerationOpExists})
				f.entry(0, 0).Tolerations = nil
				return f
			},
			want: "result #0 has tolerations [], the request has",
		},
	})
}
