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
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestTheReprieveGivesANodesLastAnswersWhileTheyHoldStill: steps are
// sequences of "pod@node" asks ("!" after one: its answer may not hold
// still, "+node" between them: a victim of that node changes sides); the
// result names the asks answered from the memo.
func TestTheReprieveGivesANodesLastAnswersWhileTheyHoldStill(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []string
		want  []string
	}{
		{"the pods of a node get their answers again in the next step",
			[]string{"a@n1 b@n1 c@n2", "a@n1 b@n1 c@n2"}, []string{"", "a@n1 b@n1 c@n2"}},
		{"a victim of the node changing sides has every pod of it asked again",
			[]string{"a@n1 b@n1 c@n2", "+n1 a@n1 b@n1 c@n2", "a@n1 b@n1 c@n2"}, []string{"", "c@n2", "a@n1 b@n1 c@n2"}},
		{"the pods after an answer that may not hold still are asked again",
			[]string{"a@n1! b@n1 c@n2", "a@n1 b@n1 c@n2"}, []string{"", "c@n2"}},
		{"a step that ends early leaves the node's later answers for the next",
			[]string{"a@n1 b@n1 c@n2", "a@n1", "a@n1 b@n1 c@n2"}, []string{"", "a@n1", "a@n1 b@n1 c@n2"}},
		{"a pod asked in another place than before is asked again, and so are those after it",
			[]string{"a@n1 b@n1 c@n1", "a@n1 c@n1 b@n1", "a@n1 c@n1 b@n1"}, []string{"", "a@n1", "a@n1 c@n1 b@n1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m reprieveMemo
			m.changes = map[string]uint64{}
			found := []resourceapi.AllocationResult{{}}
			for i, step := range tc.steps {
				var hits []string
				for _, ask := range strings.Fields(step) {
					if node, ok := strings.CutPrefix(ask, "+"); ok {
						m.changes[node]++
						continue
					}
					ask, unsteady := strings.CutSuffix(ask, "!")
					pod, node, _ := strings.Cut(ask, "@")
					answer, at := m.recall(types.UID(pod), node)
					if answer != nil {
						if answer.pod != types.UID(pod) {
							t.Fatalf("step %d: %s answered with %s's answer", i, ask, answer.pod)
						}
						hits = append(hits, ask)
						continue
					}
					m.keep(node, at, reprieveAnswer{pod: types.UID(pod), results: found}, !unsteady)
				}
				if got := strings.Join(hits, " "); got != tc.want[i] {
					t.Errorf("step %d (%s): answered from the memo %q, want %q", i, step, got, tc.want[i])
				}
			}
		})
	}
}

// TestAReprieveStepHoldsEachClaimUntilItsLastPodGivesItBack: ops are
// "hold pod claim" and "back pod"; the result is the claims held after
// all of them, each once.
func TestAReprieveStepHoldsEachClaimUntilItsLastPodGivesItBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []string
		want string
	}{
		{"a pod's claims are held until it gives them back",
			[]string{"hold a c1", "hold a c2", "hold b c3", "back a"}, "c3"},
		{"a claim two pods share is held once and until both gave it back",
			[]string{"hold a shared", "hold b shared", "back a"}, "shared"},
		{"a claim goes once every pod sharing it gave it back",
			[]string{"hold a shared", "hold b shared", "back a", "back b"}, ""},
		{"holding a claim twice for one pod needs one give-back",
			[]string{"hold a c1", "hold a c1", "back a"}, ""},
		{"giving back what a pod never held changes nothing",
			[]string{"hold a c1", "back b"}, "c1"},
		{"the claims are held in the order of their UIDs",
			[]string{"hold a c3", "hold b c1", "hold c c2"}, "c1 c2 c3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h reprieveHolds
			allocations := map[*resourceapi.AllocationResult]string{}
			for _, op := range tc.ops {
				f := strings.Fields(op)
				switch f[0] {
				case "hold":
					a := &resourceapi.AllocationResult{}
					allocations[a] = f[2]
					h.hold(types.UID(f[2]), types.UID(f[1]), a)
				case "back":
					h.giveBack(types.UID(f[1]))
				}
			}
			var got []string
			for _, a := range h.allocations() {
				got = append(got, allocations[a])
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("held %q, want %q", s, tc.want)
			}
		})
	}
}
