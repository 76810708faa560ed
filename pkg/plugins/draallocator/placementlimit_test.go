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
	"context"
	"fmt"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

func TestAGroupsFirstAttemptIsLimitedToTheDomainsItsDevicesFitBest(t *testing.T) {
	// Racks a-d of one node of 4 GPUs: b has 2 in use, d 1, a and c none;
	// every rack may fit the gang of two pods of one GPU.
	failed := []metav1.Condition{{Type: schedulingapi.PodGroupInitiallyScheduled, Status: metav1.ConditionFalse, Reason: schedulingapi.PodGroupReasonUnschedulable}}
	for _, tc := range []struct {
		name       string
		limit      int32
		strategy   config.PlacementScoringType
		conditions []metav1.Condition
		// reRun: the cycle is a pod group preemption's re-run.
		reRun bool
		want  []string
	}{
		{name: "MostAllocated keeps the fullest racks, in name order", limit: 2, strategy: config.PlacementMostAllocated, want: []string{"b", "d"}},
		{name: "LeastAllocated keeps the emptiest racks, ties by name", limit: 2, strategy: config.PlacementLeastAllocated, want: []string{"a", "c"}},
		{name: "a preemption's re-run keeps the racks with the most devices free now, whatever the strategy", limit: 2,
			strategy: config.PlacementMostAllocated, reRun: true, want: []string{"a", "c"}},
		{name: "a limit of every rack or more keeps them all", limit: 4, strategy: config.PlacementMostAllocated, want: []string{"a", "b", "c", "d"}},
		{name: "no limit keeps them all, as upstream", limit: 0, strategy: config.PlacementMostAllocated, want: []string{"a", "b", "c", "d"}},
		{name: "after a failed attempt every rack is tried, as upstream", limit: 1, strategy: config.PlacementMostAllocated, conditions: failed,
			want: []string{"a", "b", "c", "d"}},
		{name: "a group scheduled before is limited again", limit: 1, strategy: config.PlacementMostAllocated,
			conditions: []metav1.Condition{{Type: schedulingapi.PodGroupInitiallyScheduled, Status: metav1.ConditionTrue, Reason: "Scheduled"}},
			want:       []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPodGroups(t, false)
			nodes, objs := gpuNodes([]string{"node-a", "node-b", "node-c", "node-d"}, 4)
			for i, rack := range []string{"a", "b", "c", "d"} {
				nodes[i].Labels["rack"] = rack
			}
			for i, held := range []struct{ node, gpu string }{{"node-b", "gpu-0"}, {"node-b", "gpu-1"}, {"node-d", "gpu-0"}} {
				claim := objects.Claim(fmt.Sprintf("held-%d", i), testNamespace, objects.ClaimSpec("gpu", testDriver, 1))
				claim.Status.Allocation = allocationOf(held.node, held.gpu)
				objs = append(objs, claim)
			}
			pg := topologyGroup("rack")
			pg.Status.Conditions = tc.conditions
			objs = append(objs, pg)
			objs = append(objs, gangPodsOf([]string{"pod-0", "pod-1"}, 1)...)
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			pl := h.plugins[0]
			pl.args.MaxPlacements, pl.args.PlacementScoring = tc.limit, tc.strategy
			info := &framework.PodGroupInfo{Namespace: testNamespace, Name: pg.Name, PodGroup: pg,
				UnscheduledPods: []*v1.Pod{gangPod("pod-0"), gangPod("pod-1")}}
			gcs := framework.NewCycleState()
			if tc.reRun {
				gcs.Write(gangPreemptionKey, &gangPreemptionEntry{g: &gangPreemption{}})
			}
			got, st := pl.GeneratePlacements(h.ctx, gcs, info, &fwk.Placement{Nodes: h.nodes})
			if !st.IsSuccess() {
				t.Fatalf("status %v", st)
			}
			if names := placementNames(got); !slices.Equal(names, tc.want) {
				t.Errorf("placements %v, want %v", names, tc.want)
			}
		})
	}
}

func TestACompositeGroupIsNeverLimited(t *testing.T) {
	pl := &DRAAllocator{args: &config.DRAAllocatorArgs{MaxPlacements: 1}}
	placements := []*fwk.Placement{{Name: "a"}, {Name: "b"}}
	// No PodGroup: a composite group, whose conditions are its pod groups'.
	got := pl.limitPlacements(context.Background(), nil, nil, &framework.PodGroupInfo{Namespace: testNamespace, Name: "composite"}, placements)
	if !slices.Equal(got, placements) {
		t.Errorf("a composite group's placements were limited to %v", got)
	}
}
