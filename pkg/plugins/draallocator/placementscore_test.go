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
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// proposed is a pod's proposed node in a placement, as the pod-group
// cycle hands it to ScorePlacement.
type proposed struct {
	pod   *v1.Pod
	node  string
	state fwk.CycleState
}

func (p proposed) GetPod() *v1.Pod               { return p.pod }
func (p proposed) GetPodInfo() fwk.PodInfo       { return nil }
func (p proposed) GetNodeName() string           { return p.node }
func (p proposed) GetCycleState() fwk.CycleState { return p.state }

// assignments are the trial's pods on the nodes they were reserved on.
func (tr *trial) assignments(placement *fwk.Placement) *fwk.PodGroupAssignments {
	a := &fwk.PodGroupAssignments{Placement: placement}
	for _, c := range tr.cycles {
		if len(c.feasible) > 0 {
			a.ProposedAssignments = append(a.ProposedAssignments, proposed{pod: c.pod, node: c.feasible[0], state: c.state})
		}
	}
	return a
}

// TestPlacementsAreRankedByTheirDevicesOnceTheGroupHasItsOwn is the
// issue's second scenario: two racks of two nodes with two GPUs each, one
// GPU of rack-1 in use, a gang of two one-GPU pods that fits in either.
// MostAllocated sends it to rack-1 (3 of 4 GPUs used after, against 2 of
// 4), keeping rack-2 whole for a gang that needs a rack; LeastAllocated to
// rack-2.
func TestPlacementsAreRankedByTheirDevicesOnceTheGroupHasItsOwn(t *testing.T) {
	for _, tc := range []struct {
		name     string
		strategy config.PlacementScoringType
		// want are the raw scores of rack-1 and rack-2, then normalized.
		want, wantNormalized []int64
	}{
		{name: "MostAllocated prefers the rack that is partly used already", strategy: config.PlacementMostAllocated,
			want: []int64{75, 50}, wantNormalized: []int64{100, 0}},
		{name: "LeastAllocated prefers the empty rack", strategy: config.PlacementLeastAllocated,
			want: []int64{25, 50}, wantNormalized: []int64{0, 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPodGroups(t, false)
			names := []string{"rack-1-a", "rack-1-b", "rack-2-a", "rack-2-b"}
			nodes, objs := gpuNodes(names, 2)
			held := objects.Claim("held", testNamespace, objects.ClaimSpec("gpu", testDriver, 1))
			held.Status.Allocation = allocationOf("rack-1-a", "gpu-0")
			objs = append(objs, held, gangGroup(2))
			objs = append(objs, gangPodsOf([]string{"pod-0", "pod-1"}, 1)...)
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			pl := h.plugins[0]
			pl.args.PlacementScoring = tc.strategy
			pods := []*v1.Pod{gangPod("pod-0"), gangPod("pod-1")}
			group := framework.NewCycleState()
			placements := []*fwk.Placement{h.placementOf("rack-1", "rack-1-a", "rack-1-b"), h.placementOf("rack-2", "rack-2-a", "rack-2-b")}

			var scores []fwk.PlacementScore
			for _, p := range placements {
				tr := h.tryPlacement(pl, group, p, pods)
				if len(tr.failures) != 0 {
					t.Fatalf("%s: pods failed: %v", p.Name, tr.failures)
				}
				score, st := pl.ScorePlacement(h.ctx, tr.state, &framework.PodGroupInfo{Namespace: testNamespace, Name: "gang"}, tr.assignments(p))
				if !st.IsSuccess() {
					t.Fatalf("%s: ScorePlacement: %v", p.Name, st)
				}
				scores = append(scores, fwk.PlacementScore{Placement: p, Score: score})
			}
			got := func() []int64 {
				var s []int64
				for _, ps := range scores {
					s = append(s, ps.Score)
				}
				return s
			}
			if !slices.Equal(got(), tc.want) {
				t.Errorf("scores of rack-1, rack-2 = %v, want %v", got(), tc.want)
			}
			if st := pl.NormalizePlacementScore(h.ctx, group, nil, scores); !st.IsSuccess() {
				t.Fatalf("NormalizePlacementScore: %v", st)
			}
			if !slices.Equal(got(), tc.wantNormalized) {
				t.Errorf("normalized scores of rack-1, rack-2 = %v, want %v", got(), tc.wantNormalized)
			}
		})
	}
}

func TestPlacementScoresAreStretchedOverTheCyclesPlacements(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in, want []int64
	}{
		{name: "the best gets the maximum and the worst zero", in: []int64{40, 60, 50}, want: []int64{0, 100, 50}},
		{name: "equal scores give no preference", in: []int64{70, 70}, want: []int64{0, 0}},
		{name: "one placement is no preference", in: []int64{30}, want: []int64{0}},
		{name: "no placements is nothing to do", in: nil, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var scores []fwk.PlacementScore
			for _, s := range tc.in {
				scores = append(scores, fwk.PlacementScore{Score: s})
			}
			normalizePlacementScores(scores)
			var got []int64
			for _, s := range scores {
				got = append(got, s.Score)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("normalized %v = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
