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
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// hintFor returns the queueing hint the plugin registers for resource.
func hintFor(t *testing.T, h *harness, resource fwk.EventResource) fwk.QueueingHintFn {
	t.Helper()
	events, err := h.plugins[0].EventsToRegister(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if ev.Event.Resource == resource {
			return ev.QueueingHintFn
		}
	}
	t.Fatalf("no event registered for %s", resource)
	return nil
}

func TestThePodUpdateHintQueuesATemplatePodOnceItsClaimIsUsable(t *testing.T) {
	owned := ownedClaim("owned-dev", "owner")
	owned.OwnerReferences[0].UID = templatePod("owner", "").UID
	nodes, objs := oneDeviceCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, append(objs, owned, ownedClaim("stolen-dev", "someone-else"))...)
	hint := hintFor(t, h, fwk.TargetPod)
	for _, tc := range []struct {
		name      string
		old, new_ *v1.Pod
		want      fwk.QueueingHint
	}{
		{"a pod whose generated claim is recorded and exists is queued",
			templatePod("owner", ""), templatePod("owner", "owned-dev"), fwk.Queue},
		{"a pod whose status still names no claim is skipped",
			templatePod("owner", ""), templatePod("owner", ""), fwk.QueueSkip},
		{"a pod whose recorded claim is not in the cache yet is skipped",
			templatePod("late", ""), templatePod("late", "late-dev"), fwk.QueueSkip},
		{"a pod whose recorded claim belongs to another pod is skipped",
			templatePod("thief", ""), templatePod("thief", "stolen-dev"), fwk.QueueSkip},
		{"a pod naming an existing claim in its spec is queued",
			claimPod("owned-dev"), claimPod("owned-dev"), fwk.Queue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := hint(klog.Background(), tc.new_, tc.old, tc.new_)
			if err != nil {
				t.Fatalf("hint: %v", err)
			}
			if got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("an object that is not a pod is queued with an error", func(t *testing.T) {
		got, err := hint(klog.Background(), claimPod("x"), nil, owned)
		if err == nil || got != fwk.Queue {
			t.Errorf("hint = %v, %v; want Queue and an error", got, err)
		}
	})
}

func TestScoreRanksNodesByTheFirstAvailableAlternativeTheyOffer(t *testing.T) {
	// One node with H100s, one with A100s; the claim prefers one H100,
	// else two A100.
	cluster := inventorygen.NvidiaH100(1).Merge(inventorygen.NvidiaA100(1))
	claim := inventorygen.PreferH100ElseTwoA100Claim("prefer")
	objs := []runtime.Object{claim}
	for _, c := range cluster.Classes {
		objs = append(objs, c)
	}
	for _, s := range cluster.Slices {
		objs = append(objs, s)
	}
	h := newHarness(t, nil, []string{"default"}, cluster.Nodes, objs...)
	pl := h.plugins[0]
	pod := objects.MakePod("prefer", inventorygen.ClaimNamespace).Claim("dev", "prefer").Obj()
	pod.UID = types.UID("pod-prefer")

	c, st := h.filter(pl, pod)
	if st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	if len(c.feasible) != 2 {
		t.Fatalf("feasible nodes %v, want both", c.feasible)
	}
	if st := pl.PreScore(h.ctx, c.state, pod, h.nodes); !st.IsSuccess() {
		t.Fatalf("PreScore = %v, want success: the nodes offer different alternatives", st)
	}
	var scores fwk.NodeScoreList
	for _, node := range h.nodes {
		score, st := pl.Score(h.ctx, c.state, pod, node)
		if !st.IsSuccess() {
			t.Fatalf("Score on %s: %v", node.Node().Name, st)
		}
		scores = append(scores, fwk.NodeScore{Name: node.Node().Name, Score: score})
	}
	if st := pl.NormalizeScore(h.ctx, c.state, pod, scores); !st.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", st)
	}
	got := map[string]int64{}
	for _, s := range scores {
		got[s.Name] = s.Score
	}
	if got["h100-0"] != fwk.MaxNodeScore || got["a100-0"] >= got["h100-0"] {
		t.Errorf("normalized scores %v: want h100-0 at %d and a100-0 below it", got, fwk.MaxNodeScore)
	}

	t.Run("a pod without firstAvailable scores every node the same", func(t *testing.T) {
		exact := inventorygen.ExactClaim("exact", inventorygen.ClassNvidiaGPU, 1)
		h.create(exact)
		h.eventually("the assume cache to have the claim", func() bool {
			_, err := h.manager.ResourceClaims().Get(exact.Namespace, exact.Name)
			return err == nil
		})
		pod := objects.MakePod("exact", inventorygen.ClaimNamespace).Claim("dev", "exact").Obj()
		pod.UID = types.UID("pod-exact")
		c, st := h.filter(pl, pod)
		if st != nil || len(c.feasible) != 2 {
			t.Fatalf("PreFilter %v, feasible %v; want both nodes", st, c.feasible)
		}
		if st := pl.PreScore(h.ctx, c.state, pod, h.nodes); st.Code() != fwk.Skip {
			t.Errorf("PreScore = %v, want Skip: Score need not run", st)
		}
		for _, node := range h.nodes {
			if score, st := pl.Score(h.ctx, c.state, pod, node); !st.IsSuccess() || score != 0 {
				t.Errorf("Score on %s = %d, %v; want 0", node.Node().Name, score, st)
			}
		}
	})
}
