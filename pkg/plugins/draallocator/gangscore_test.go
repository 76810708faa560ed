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
	"testing"

	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestAGangIsPlannedWhereTheScoringStrategyWouldPutIt: two nodes of four
// devices, two of node-2's taken; a gang of two pods of one device each
// fits on either. The plan puts it where the strategy ranks first —
// MostAllocated on the fuller node-2, LeastAllocated on node-1,
// FirstAvailable (which ranks alternatives, not nodes) on node-1 by name —
// and Score, normalized, ranks the planned node highest, winning the tie
// where the strategy sees none.
func TestAGangIsPlannedWhereTheScoringStrategyWouldPutIt(t *testing.T) {
	for _, tc := range []struct {
		strategy config.ScoringStrategyType
		want     string
	}{
		{config.MostAllocated, "node-2"},
		{config.LeastAllocated, "node-1"},
		{config.FirstAvailable, "node-1"},
	} {
		t.Run(fmt.Sprintf("%s plans the gang on %s", tc.strategy, tc.want), func(t *testing.T) {
			withPodGroups(t, false)
			nodes, objs := gpuNodes([]string{"node-1", "node-2"}, 4)
			objs = append(append(objs, gangGroup(2)), gangPodsOf([]string{"pod-0", "pod-1"}, 1)...)
			for d := range 2 {
				held := objects.Claim(fmt.Sprintf("held-%d", d), testNamespace, objects.ClaimSpec("dev", testDriver, 1))
				held.Status.Allocation = allocationOf("node-2", fmt.Sprintf("gpu-%d", d))
				objs = append(objs, held)
			}
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			pl := h.plugins[0]
			pl.args.ScoringStrategy.Type = tc.strategy

			c, st := h.filterInGroup(pl, gangPod("pod-0"), framework.NewCycleState())
			if st != nil || len(c.feasible) != 2 {
				t.Fatalf("PreFilter %v, feasible %v; want both nodes", st, c.feasible)
			}
			s, err := getState(c.state)
			if err != nil || s.gang == nil {
				t.Fatalf("no plan for the pod (%v)", err)
			}
			for uid, node := range s.gang.plan.planned {
				if node != tc.want {
					t.Errorf("%s planned on %s, want %s", uid, node, tc.want)
				}
			}
			if len(s.gang.plan.planned) != 2 {
				t.Errorf("plan %v, want both pods", s.gang.plan.planned)
			}
			scores := c.scores()
			best := scores[0]
			for _, sc := range scores[1:] {
				if sc.Score == best.Score {
					t.Errorf("nodes %s and %s tie at %d: the planned node must win", best.Name, sc.Name, sc.Score)
				}
				if sc.Score > best.Score {
					best = sc
				}
			}
			if best.Name != tc.want {
				t.Errorf("scores %v rank %s first, want the planned %s", scores, best.Name, tc.want)
			}
		})
	}
}

// scores runs PreScore, Score on every feasible node and NormalizeScore,
// as the framework does; a skipped PreScore scores every node 0.
func (c *cycle) scores() fwk.NodeScoreList {
	c.h.t.Helper()
	var infos []fwk.NodeInfo
	for _, name := range c.feasible {
		infos = append(infos, c.h.nodeInfo(name))
	}
	scores := make(fwk.NodeScoreList, len(infos))
	st := c.pl.PreScore(c.h.ctx, c.state, c.pod, infos)
	for i, info := range infos {
		scores[i].Name = info.Node().Name
		if st.IsSkip() {
			continue
		}
		score, st := c.pl.Score(c.h.ctx, c.state, c.pod, info)
		if !st.IsSuccess() {
			c.h.t.Fatalf("Score on %s: %v", scores[i].Name, st)
		}
		scores[i].Score = score
	}
	if !st.IsSkip() {
		if st := c.pl.NormalizeScore(c.h.ctx, c.state, c.pod, scores); !st.IsSuccess() {
			c.h.t.Fatalf("NormalizeScore: %v", st)
		}
	}
	return scores
}

func TestPreferPlannedNode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		planned string
		scores  []int64 // of node-a, node-b, node-c
		want    []int64
	}{
		{"a planned node tied with another gets one point more", "node-b", []int64{40, 40, 10}, []int64{40, 41, 10}},
		{"a planned node tied at the maximum leaves the others one point below", "node-a", []int64{100, 100, 100}, []int64{100, 99, 99}},
		{"a planned node that scores lower stays lower", "node-c", []int64{90, 50, 20}, []int64{90, 50, 20}},
		{"a planned node tied below the best is not raised to tie with it", "node-a", []int64{40, 40, 41}, []int64{40, 40, 41}},
		{"a planned node that wins already is left alone", "node-a", []int64{90, 50, 20}, []int64{90, 50, 20}},
		{"no planned node changes nothing", "", []int64{0, 0, 0}, []int64{0, 0, 0}},
		{"a planned node not among the scored changes nothing", "node-z", []int64{7, 7, 7}, []int64{7, 7, 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scores := make(fwk.NodeScoreList, len(tc.scores))
			for i, s := range tc.scores {
				scores[i] = fwk.NodeScore{Name: "node-" + string(rune('a'+i)), Score: s}
			}
			preferPlannedNode(scores, tc.planned)
			for i, s := range scores {
				if s.Score != tc.want[i] {
					t.Errorf("score of %s = %d, want %d", s.Name, s.Score, tc.want[i])
				}
			}
		})
	}
}
