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
