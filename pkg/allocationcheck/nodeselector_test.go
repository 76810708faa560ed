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

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// zoned allocates gpu-0 from a slice available in zone a.
func zoned(sel *v1.NodeSelector) *fixture {
	f := newFixture()
	f.addSlice(selectorSlice("zone-a", "zone-a", labelSelector("zone", "a"), gpu(0)))
	f.claim("claim-0", exact("req-0", "gpu", 1))
	f.result(sel, got("req-0", "zone-a", "gpu-0"))
	return f
}

// everywhere allocates gpu-0 from a slice available on all nodes.
func everywhere(sel *v1.NodeSelector) *fixture {
	f := newFixture()
	f.addSlice(allNodesSlice("shared", "shared", gpu(0)))
	f.claim("claim-0", exact("req-0", "gpu", 1))
	f.result(sel, got("req-0", "shared", "gpu-0"))
	return f
}

func TestNodeSelector(t *testing.T) {
	runCheckCases(t, CheckNodeSelector, []checkCase{
		{
			name:  "a node-local device with the node pinned passes",
			build: oneGPU,
		},
		{
			name:  "a device for all nodes without node selector passes",
			build: func() *fixture { return everywhere(nil) },
		},
		{
			name:  "a device of a zone with the zone's selector passes",
			build: func() *fixture { return zoned(labelSelector("zone", "a")) },
		},
		{
			name: "devices of two selectors with both merged into one term pass",
			build: func() *fixture {
				f := zoned(nil)
				f.addSlice(selectorSlice("hosts", "hosts", labelSelector("kubernetes.io/hostname", "node-1", "node-2"), gpu(1)))
				f.claims[0].Spec.Devices.Requests[0].Exactly.Count = 2
				f.results[0].Devices.Results = append(f.results[0].Devices.Results, got("req-0", "hosts", "gpu-1"))
				sel := labelSelector("zone", "a")
				sel.NodeSelectorTerms[0].MatchExpressions = append(sel.NodeSelectorTerms[0].MatchExpressions,
					v1.NodeSelectorRequirement{Key: "kubernetes.io/hostname", Operator: v1.NodeSelectorOpIn, Values: []string{"node-2", "node-1"}})
				f.results[0].NodeSelector = sel
				return f
			},
		},
		{
			name: "a zone device next to a node-local one with the node pinned passes",
			build: func() *fixture {
				f := zoned(pinned(thisNode))
				f.claims[0].Spec.Devices.Requests[0].Exactly.Count = 2
				f.results[0].Devices.Results = append(f.results[0].Devices.Results, got("req-0", thisNode, "gpu-1"))
				return f
			},
		},
		{
			name: "a node-local device without node selector is reported",
			build: func() *fixture {
				f := oneGPU()
				f.results[0].NodeSelector = nil
				return f
			},
			want: "device dra.example.com/node-1/gpu-0: node selector is nil, but the device is local to node node-1 and the selector must pin it",
		},
		{
			name: "a node-local device with only a label selector is reported",
			build: func() *fixture {
				f := oneGPU()
				f.results[0].NodeSelector = labelSelector("zone", "a")
				return f
			},
			want: "device is local to node node-1, but term #0 of node selector",
		},
		{
			name: "a selector pinning another node is reported",
			build: func() *fixture {
				f := oneGPU()
				f.results[0].NodeSelector = pinned("node-2")
				return f
			},
			want: "does not match node node-1",
		},
		{
			name:  "a zone device without node selector is reported",
			build: func() *fixture { return zoned(nil) },
			want:  "node selector is nil, but slice zone-a is only available on nodes matching its node selector",
		},
		{
			name:  "a selector that does not imply the device's selector is reported",
			build: func() *fixture { return zoned(labelSelector("kubernetes.io/hostname", thisNode)) },
			want:  "does not imply the node selector [[zone In [a]]] of slice zone-a",
		},
		{
			name: "a device that binds to the node without node selector is reported",
			build: func() *fixture {
				f := everywhere(nil)
				f.device("shared", "gpu-0").BindsToNode = ptr.To(true)
				return f
			},
			want: "node selector is nil, but the device is local to node node-1 and the selector must pin it",
		},
		{
			name:  "a selector for all nodes that the node does not match is reported",
			build: func() *fixture { return everywhere(labelSelector("zone", "b")) },
			want:  "does not match node node-1",
		},
	})
}
