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
	"math"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

func TestNodePodsMemoReadsANodesPodsAgainOnceTheyChange(t *testing.T) {
	var memo nodePodsMemo
	ni := framework.NewNodeInfo()
	ni.SetNode(objects.MakeNode("node-1").Obj())
	want := func(step string, topStaying int32, withClaims bool) *nodePods {
		t.Helper()
		got := memo.of(ni)
		if got.topStaying != topStaying || got.withClaims != withClaims {
			t.Errorf("%s: top staying priority %d, pods with claims %v; want %d, %v", step, got.topStaying, got.withClaims, topStaying, withClaims)
		}
		return got
	}

	want("an empty node", math.MinInt32, false)
	ni.AddPod(boundPod("low", "node-1", lowPriority, "low"))
	first := want("a pod of low priority with a claim", lowPriority, true)
	if again := memo.of(ni); again != first {
		t.Errorf("the node did not change, yet its pods were read again")
	}
	if clone := memo.of(ni.Snapshot()); clone != first {
		t.Errorf("a snapshot of the same version of the node was read again")
	}

	terminating := boundPod("terminating", "node-1", highPriority+1)
	terminating.DeletionTimestamp = &metav1.Time{}
	ni.AddPod(terminating)
	want("a terminating pod of the highest priority, which leaves", lowPriority, true)
	ni.AddPod(boundPod("high", "node-1", highPriority))
	want("a pod of high priority without claims, which stays", highPriority, true)
	for _, name := range []string{"low", "terminating"} {
		if err := ni.RemovePod(logr.Discard(), podNamed(ni, name)); err != nil {
			t.Fatal(err)
		}
	}
	want("only the pod without claims left", highPriority, false)
}

// podNamed returns the pod of ni named name.
func podNamed(ni fwk.NodeInfo, name string) *v1.Pod {
	for _, pi := range ni.GetPods() {
		if pi.GetPod().Name == name {
			return pi.GetPod()
		}
	}
	return nil
}
