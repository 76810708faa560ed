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
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// halvesCluster is node-1 with gpus GPUs, each one whole device or two
// halves on a shared counter, the classes whole and half, and the
// template whole-else-half (firstAvailable).
func halvesCluster(gpus int) *clusterstate.Objects {
	return &clusterstate.Objects{
		Nodes:     []*v1.Node{objects.MakeNode("node-1").Obj()},
		Slices:    objects.HalvableGPUs(gpu, "node-1", gpus),
		Classes:   []*resourceapi.DeviceClass{objects.SizeClass("whole", gpu, "whole"), objects.SizeClass("half", gpu, "half")},
		Templates: []*resourceapi.ResourceClaimTemplate{objects.FirstAvailableTemplate("whole-else-half", ns, "gpu", "whole", "half")},
	}
}

// withGang adds PodGroup "train" of minCount and its pending pods
// train-1..train-(n-1), each with a claim from whole-else-half, and
// returns train-0, the pod to explain (explainPod adds it).
func withGang(objs *clusterstate.Objects, n int, minCount int32) *v1.Pod {
	objs.PodGroups = append(objs.PodGroups, &schedulingapi.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: ns},
		Spec:       schedulingapi.PodGroupSpec{SchedulingPolicy: schedulingapi.PodGroupSchedulingPolicy{Gang: &schedulingapi.GangSchedulingPolicy{MinCount: minCount}}},
	})
	var first *v1.Pod
	for i := range n {
		p := objects.MakePod(fmt.Sprintf("train-%d", i), ns).ClaimFromTemplate("gpu", "whole-else-half").Obj()
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("train")}
		if i == 0 {
			first = p
			continue
		}
		objs.Pods = append(objs.Pods, p)
	}
	return first
}

func TestExplainSaysWhetherAPodsGroupFitsTogether(t *testing.T) {
	for _, tc := range []struct {
		name          string
		gpus, pods    int
		minCount      int32
		wantSentence  string
		wantGroupRuns bool
	}{
		{"two pods that each fit alone on the whole GPU fit together as halves", 1, 2, 2,
			"its pod group team/train fits: the devices of 2 of its 2 pending pods fit together (node-1 2), it needs 2", true},
		{"three pods do not fit one GPU, though each fits alone", 1, 3, 3,
			"its pod group team/train cannot run: the devices of only 2 of its 3 pending pods fit together (node-1 2), it needs 3", false},
		{"three pods of which two must run fit one GPU", 1, 3, 2,
			"its pod group team/train fits: the devices of 2 of its 3 pending pods fit together (node-1 2), it needs 2", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := halvesCluster(tc.gpus)
			r := explainPod(t, objs, withGang(objs, tc.pods, tc.minCount))
			if r.Gang == nil {
				t.Fatalf("no answer for the pod group; verdict %q", r.Verdict)
			}
			if r.Gang.Runs() != tc.wantGroupRuns || !strings.HasSuffix(r.Verdict, tc.wantSentence) {
				t.Errorf("verdict %q (runs %v), want it to end %q", r.Verdict, r.Gang.Runs(), tc.wantSentence)
			}
			if len(r.Now.FitNodes) != 1 {
				t.Errorf("the pod alone fits on %v, want node-1", r.Now.FitNodes)
			}
		})
	}
}

// racksCluster is halvesCluster's node-1 in rack r1 (one GPU: a whole
// device or two halves) and node-2 in rack r2 with one whole GPU.
func racksCluster() *clusterstate.Objects {
	objs := halvesCluster(1)
	objs.Nodes[0].Labels["rack"] = "r1"
	objs.Nodes = append(objs.Nodes, objects.MakeNode("node-2").Label("rack", "r2").Obj())
	objs.Slices = append(objs.Slices, objects.MakeSlice("node-2", gpu, "node-2").Device("gpu-0-whole", nil).Attribute("size", "whole").Obj())
	return objs
}

func TestExplainSaysHowManyOfAGroupsPodsFitInEachTopologyDomain(t *testing.T) {
	for _, tc := range []struct {
		name          string
		pods          int
		minCount      int32
		key           string
		wantSentence  string
		wantGroupRuns bool
	}{
		{"two pods fit in rack r1 as halves, one in rack r2", 2, 2, "rack",
			"its pod group team/train fits in one domain of rack: the pending pods whose devices fit together there: rack=r1: 2 of 2 (node-1 2); rack=r2: 1 of 2 (node-2 1); it needs 2", true},
		{"three pods fit in no rack, though three fit over both", 3, 3, "rack",
			"its pod group team/train cannot run in any one domain of rack: the pending pods whose devices fit together there: rack=r1: 2 of 3 (node-1 2); rack=r2: 1 of 3 (node-2 1); it needs 3", false},
		{"a key no node carries", 2, 2, "zone",
			`its pod group team/train cannot run: no node carries its topology key "zone" as a label, and no device as an attribute`, false},
		{"a device attribute as the key: each domain is planned with its own devices, counters shared", 2, 2, gpu + "/size",
			"its pod group team/train fits in one domain of " + gpu + "/size: the pending pods whose devices fit together there: " +
				gpu + "/size=half: 2 of 2 (node-1 2); " + gpu + "/size=whole: 2 of 2 (node-1 1, node-2 1); it needs 2", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := racksCluster()
			pod := withGang(objs, tc.pods, tc.minCount)
			objs.PodGroups[0].Spec.SchedulingConstraints = &schedulingapi.PodGroupSchedulingConstraints{Topology: []schedulingapi.TopologyConstraint{{Key: tc.key}}}
			r := explainPod(t, objs, pod)
			if r.Gang == nil {
				t.Fatalf("no answer for the pod group; verdict %q", r.Verdict)
			}
			if r.Gang.Runs() != tc.wantGroupRuns || !strings.HasSuffix(r.Verdict, tc.wantSentence) {
				t.Errorf("verdict %q (runs %v)\nwant it to end %q", r.Verdict, r.Gang.Runs(), tc.wantSentence)
			}
		})
	}
}
