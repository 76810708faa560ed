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

package explain_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// rackedGPUs is gpuCluster's r1-a, r1-b (rack r1) and r2-a, r2-b (rack
// r2), rack-1's four GPUs held by pods of priority 10 and r2-a's two.
func rackedGPUs() *clusterstate.Objects {
	objs := gpuCluster("r1-a", "r1-b", "r2-a", "r2-b")
	for _, n := range objs.Nodes {
		n.Labels["rack"] = n.Name[:2]
	}
	for _, node := range []string{"r1-a", "r1-b", "r2-a"} {
		running(objs, "low-"+node+"-0", node, 10, "gpu-0")
		running(objs, "low-"+node+"-1", node, 10, "gpu-1")
	}
	return objs
}

// highGang adds PodGroup "train" of n pods of priority 100, each with a
// claim from one-gpu, in one domain of key ("" for none), and returns the
// first pod, to explain.
func highGang(objs *clusterstate.Objects, n int, key string, policy *v1.PreemptionPolicy) *v1.Pod {
	pg := &schedulingapi.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: ns},
		Spec:       schedulingapi.PodGroupSpec{SchedulingPolicy: schedulingapi.PodGroupSchedulingPolicy{Gang: &schedulingapi.GangSchedulingPolicy{MinCount: int32(n)}}},
	}
	pg.Spec.Priority = ptr.To[int32](100) // as the Priority admission plugin resolves it
	if key != "" {
		pg.Spec.SchedulingConstraints = &schedulingapi.PodGroupSchedulingConstraints{Topology: []schedulingapi.TopologyConstraint{{Key: key}}}
	}
	objs.PodGroups = append(objs.PodGroups, pg)
	var first *v1.Pod
	for i := range n {
		p := objects.MakePod(fmt.Sprintf("train-%d", i), ns).ClaimFromTemplate("gpu", "one-gpu").Obj()
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("train")}
		p.Spec.Priority, p.Spec.PreemptionPolicy = ptr.To[int32](100), policy
		if i == 0 {
			first = p
			continue
		}
		objs.Pods = append(objs.Pods, p)
	}
	return first
}

// evictedWhole puts pods in PodGroup "batch" of priority 10, whose
// disruptionMode is All, with extra pods of it without claims on node.
func evictedWhole(objs *clusterstate.Objects, pods []string, extra int, node string) {
	pg := &schedulingapi.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "batch", Namespace: ns}}
	pg.Spec.Priority = ptr.To[int32](10)
	pg.Spec.DisruptionMode = &schedulingapi.DisruptionMode{All: &schedulingapi.AllDisruptionMode{}}
	objs.PodGroups = append(objs.PodGroups, pg)
	for _, p := range objs.Pods {
		if slices.Contains(pods, p.Name) {
			p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("batch")}
		}
	}
	for i := range extra {
		p := objects.MakePod(fmt.Sprintf("batch-driver-%d", i), ns).Obj()
		p.UID = types.UID(p.Name)
		p.Spec.NodeName, p.Spec.Priority, p.Status.Phase = node, ptr.To[int32](10), v1.PodRunning
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("batch")}
		objs.Pods = append(objs.Pods, p)
	}
}

func TestExplainSaysWhatAGroupsPreemptionWouldEvictAndWhere(t *testing.T) {
	for _, tc := range []struct {
		name        string
		setup       func(*clusterstate.Objects)
		pods        int
		key         string
		policy      *v1.PreemptionPolicy
		wantDomain  string
		wantVictims []string
		// wantCount, without wantVictims: how many, whichever they are.
		wantCount  int
		wantWhyNot string
		// wantWhole counts the victims evicted with all of PodGroup
		// team/batch.
		wantWhole int
	}{
		{name: "a gang in one rack evicts the two pods of the rack that costs two, not four", pods: 4, key: "rack",
			wantDomain: "rack=r2", wantVictims: []string{"team/low-r2-a-0", "team/low-r2-a-1"}},
		{name: "a gang in one rack evicts four pods alone rather than one whose group of five goes whole", pods: 4, key: "rack",
			setup:      func(objs *clusterstate.Objects) { evictedWhole(objs, []string{"low-r2-a-0"}, 4, "r1-a") },
			wantDomain: "rack=r1", wantVictims: []string{"team/low-r1-a-0", "team/low-r1-a-1", "team/low-r1-b-0", "team/low-r1-b-1"}},
		{name: "a pod group that goes whole is evicted with every pod of it, on any node", pods: 4, key: "rack",
			setup:      func(objs *clusterstate.Objects) { evictedWhole(objs, []string{"low-r2-a-0", "low-r2-a-1"}, 1, "r1-a") },
			wantDomain: "rack=r2", wantVictims: []string{"team/low-r2-a-0", "team/low-r2-a-1", "team/batch-driver-0"}, wantWhole: 3},
		{name: "a gang without a topology constraint evicts only the two pods whose GPUs it lacks", pods: 4,
			wantDomain: "the cluster", wantCount: 2},
		{name: "a gang larger than every GPU evicts nobody", pods: 9, wantWhyNot: "no domain would hold the group's pods even with every pod of lower priority evicted"},
		{name: "a gang that never preempts says so", pods: 4, key: "rack", policy: ptr.To(v1.PreemptNever), wantWhyNot: "the pod's preemptionPolicy is Never"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := rackedGPUs()
			if tc.setup != nil {
				tc.setup(objs)
			}
			r := explainPod(t, objs, highGang(objs, tc.pods, tc.key, tc.policy))
			if r.Gang == nil || r.Gang.Runs() {
				t.Fatalf("the gang runs or is not explained: %q", r.Verdict)
			}
			if r.Preemption != nil {
				t.Errorf("a group's pod is explained a preemption of its own: %+v", r.Preemption)
			}
			p := r.Gang.Preemption
			if p == nil {
				t.Fatal("no preemption for the pod group")
			}
			if p.Domain != tc.wantDomain || p.NotPossible != tc.wantWhyNot {
				t.Errorf("domain %q (why not %q), want %q (why not %q)", p.Domain, p.NotPossible, tc.wantDomain, tc.wantWhyNot)
			}
			var victims []string
			whole := 0
			for _, v := range p.Victims {
				victims = append(victims, v.Pod)
				if v.Group == "team/batch" {
					whole++
				}
			}
			if whole != tc.wantWhole {
				t.Errorf("%d victims are evicted with their whole pod group, want %d", whole, tc.wantWhole)
			}
			switch {
			case tc.wantCount > 0:
				if len(victims) != tc.wantCount {
					t.Errorf("victims %v, want %d of the low pods", victims, tc.wantCount)
				}
			case !slices.Equal(victims, tc.wantVictims):
				t.Errorf("victims %v, want %v", victims, tc.wantVictims)
			}
			var text bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			want := "Pod group preemption: cannot help: " + tc.wantWhyNot
			if tc.wantDomain != "" {
				want = "Pod group preemption: " + tc.wantDomain + ", whose victims cost least"
			}
			if !strings.Contains(text.String(), want) {
				t.Errorf("the text does not say %q:\n%s", want, text.String())
			}
			if whole := "with all of pod group team/batch"; (tc.wantWhole > 0) != strings.Contains(text.String(), whole) {
				t.Errorf("the text says %q: %v, want %v:\n%s", whole, !(tc.wantWhole > 0), tc.wantWhole > 0, text.String())
			}
		})
	}
}
