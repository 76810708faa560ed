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

package draallocator

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// topologyGroup is gangGroup with a topology constraint on key ("" for
// none).
func topologyGroup(key string) *schedulingapi.PodGroup {
	pg := gangGroup(2)
	if key != "" {
		pg.Spec.SchedulingConstraints = &schedulingapi.PodGroupSchedulingConstraints{Topology: []schedulingapi.TopologyConstraint{{Key: key}}}
	}
	return pg
}

func TestPlacementsAreGeneratedAsUpstreamsForANodeLabel(t *testing.T) {
	// Racks b, a and c (names out of order), and a node without a rack.
	nodes := []*v1.Node{
		objects.MakeNode("node-b1").Label("rack", "b").Obj(),
		objects.MakeNode("node-a1").Label("rack", "a").Obj(),
		objects.MakeNode("node-a2").Label("rack", "a").Obj(),
		objects.MakeNode("node-c1").Label("rack", "c").Obj(),
		objects.MakeNode("node-none").Obj(),
	}
	scheduledOn := func(node string) *v1.Pod {
		pod := gangPod("placed-" + node)
		pod.Spec.NodeName = node
		return pod
	}
	for _, tc := range []struct {
		name    string
		key     string
		placed  []*v1.Pod
		want    []string // "name: nodes"
		wantErr string
		code    fwk.Code
	}{
		{name: "a group without a constraint gets its parent placement whole", want: []string{": node-a1 node-a2 node-b1 node-c1 node-none"}},
		{name: "one placement per value of the label, in name order, nodes without it left out", key: "rack",
			want: []string{"a: node-a1 node-a2", "b: node-b1", "c: node-c1"}},
		{name: "a group with a scheduled pod is pinned to that pod's domain", key: "rack", placed: []*v1.Pod{scheduledOn("node-a2")},
			want: []string{"a: node-a1 node-a2"}},
		{name: "a key no node carries leaves the group pending, naming the key", key: "zone", code: fwk.Unschedulable,
			wantErr: `pod group test/gang: no node carries its topology key "zone" as a label`},
		{name: "scheduled pods in two domains are an error", key: "rack", placed: []*v1.Pod{scheduledOn("node-a1"), scheduledOn("node-b1")},
			code: fwk.Error, wantErr: "its pods are in two domains"},
		{name: "a scheduled pod on a node without the label is an error", key: "rack", placed: []*v1.Pod{scheduledOn("node-none")},
			code: fwk.Error, wantErr: `node node-none of pod test/placed-node-none has no label "rack"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPodGroups(t, false)
			pg := topologyGroup(tc.key)
			objs := []runtime.Object{pg}
			for _, p := range tc.placed {
				objs = append(objs, p)
			}
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			parent := &fwk.Placement{Nodes: h.nodes}
			info := &framework.PodGroupInfo{Namespace: testNamespace, Name: pg.Name, PodGroup: pg}
			got, st := h.plugins[0].GeneratePlacements(h.ctx, framework.NewCycleState(), info, parent)
			if tc.wantErr != "" {
				if st.Code() != tc.code || !strings.Contains(st.Message(), tc.wantErr) {
					t.Fatalf("status %v, want %v with %q", st, tc.code, tc.wantErr)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("status %v", st)
			}
			var placements []string
			for _, p := range got.Placements {
				var names []string
				for _, n := range p.Nodes {
					names = append(names, n.Node().Name)
				}
				slices.Sort(names)
				placements = append(placements, fmt.Sprintf("%s: %s", p.Name, strings.Join(names, " ")))
			}
			if !slices.Equal(placements, tc.want) {
				t.Errorf("placements\n%s\nwant\n%s", strings.Join(placements, "\n"), strings.Join(tc.want, "\n"))
			}
			// The snapshot's own NodeInfos, as AssumePlacement requires.
			for _, p := range got.Placements {
				for _, n := range p.Nodes {
					if !slices.Contains(h.nodes, n) {
						t.Errorf("placement %s holds a NodeInfo of %s that is not the snapshot's", p.Name, n.Node().Name)
					}
				}
			}
		})
	}
}
