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
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"

	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// victimsAt builds the victim set of one placement: a pod per priority,
// started age ago, the first violations of them violating a budget.
func victimsAt(t *testing.T, age time.Duration, violations int, priorities ...int32) placementVictims {
	t.Helper()
	out := placementVictims{pdbViolations: violations}
	for i, p := range priorities {
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("victim-%d", i), UID: types.UID(fmt.Sprintf("uid-%d-%d", p, i))}}
		pod.Spec.Priority = &p
		pod.Status.StartTime = &metav1.Time{Time: time.Unix(1_000_000, 0).Add(-age)}
		pi, err := framework.NewPodInfo(pod)
		if err != nil {
			t.Fatal(err)
		}
		v, err := preemption.NewVictim([]fwk.PodInfo{pi}, p, fwk.PodKeyType)
		if err != nil {
			t.Fatal(err)
		}
		out.victims = append(out.victims, v)
	}
	sortByImportance(out.victims)
	return out
}

func TestAPlacementsVictimsCostTheirPriorityPodsAndStart(t *testing.T) {
	// The order itself is eviction.CompareCost's (its tests); this is what
	// the plugin hands it.
	got := victimsAt(t, time.Hour, 1, 10, 50).cost()
	start := time.Unix(1_000_000, 0).Add(-time.Hour)
	want := eviction.Cost{PDBViolations: 1, Victims: []eviction.Victim{{Priority: 50, Pods: 1, Start: start}, {Priority: 10, Pods: 1, Start: start}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cost %+v, want %+v", got, want)
	}
	if cheaperVictims(victimsAt(t, time.Hour, 0, 10, 10), victimsAt(t, time.Hour, 0, 50)) >= 0 {
		t.Error("two victims of priority 10 are not cheaper than one of 50")
	}
}

func TestTheReRunsPlacementsWithTheCheapestVictimsGetTheMaximumScore(t *testing.T) {
	r1, r2, r3 := &fwk.Placement{Name: "rack-1"}, &fwk.Placement{Name: "rack-2"}, &fwk.Placement{Name: "rack-3"}
	g := &gangPreemption{}
	g.keepVictims(r1, victimsAt(t, time.Hour, 0, 10, 10, 10))
	g.keepVictims(r2, victimsAt(t, time.Hour, 0, 10, 10))
	g.keepVictims(r3, victimsAt(t, time.Hour, 0, 10, 10))
	scores := []fwk.PlacementScore{{Placement: r1, Score: 100}, {Placement: r2, Score: 3}, {Placement: r3, Score: 0}}
	ranked := g.rankByVictims(scores)
	if len(ranked) != 3 || ranked[0].placement != r2 || !ranked[0].cheapest || ranked[1].placement != r3 || !ranked[1].cheapest || ranked[2].placement != r1 || ranked[2].cheapest {
		t.Fatalf("placements ranked %v, want rack-2 and rack-3 cheapest, then rack-1", ranked)
	}
	for i, want := range []int64{0, fwk.MaxScore, fwk.MaxScore} {
		if scores[i].Score != want {
			t.Errorf("%s scores %d, want %d", scores[i].Placement.Name, scores[i].Score, want)
		}
	}
	unknown := []fwk.PlacementScore{{Placement: r1, Score: 7}, {Placement: &fwk.Placement{Name: "rack-4"}, Score: 9}}
	if g.rankByVictims(unknown) != nil || unknown[0].Score != 7 || unknown[1].Score != 9 {
		t.Errorf("scores with a placement not estimated were changed: %v", unknown)
	}
}

func TestAPreemptionDomainEventSaysWhatEachDomainCosts(t *testing.T) {
	rack := &fwk.Placement{Name: "rack-2"}
	many := make([]int32, victimsNamed+2)
	for i := range many {
		many[i] = 100
	}
	for _, tc := range []struct {
		name, key string
		ranked    rankedPlacement
		named     bool
		want      string
	}{
		{"a domain without victims says so", "rack", rankedPlacement{placement: rack, victims: victimsAt(t, time.Hour, 0), cheapest: true}, true,
			"rack=rack-2 (cheapest): no victims"},
		{"the cheapest domain names its victims and their highest priority", "rack", rankedPlacement{placement: rack, victims: victimsAt(t, time.Hour, 0, 100, 50), cheapest: true}, true,
			"rack=rack-2 (cheapest): 2 victims, priority up to 100: victim-0, victim-1"},
		{"another domain counts its victims", "rack", rankedPlacement{placement: rack, victims: victimsAt(t, time.Hour, 0, 100, 50)}, false,
			"rack=rack-2: 2 victims, priority up to 100"},
		{"budget violations are counted", "rack", rankedPlacement{placement: rack, victims: victimsAt(t, time.Hour, 1, 100)}, true,
			"rack=rack-2: 1 victim, priority up to 100, 1 violating a PodDisruptionBudget: victim-0"},
		{"a group without a topology constraint preempts in the cluster", "", rankedPlacement{placement: &fwk.Placement{}, victims: victimsAt(t, time.Hour, 0, 100), cheapest: true}, true,
			"the cluster (cheapest): 1 victim, priority up to 100: victim-0"},
		{"many victims are counted, not all named", "rack", rankedPlacement{placement: rack, victims: victimsAt(t, time.Hour, 0, many...), cheapest: true}, true,
			"rack=rack-2 (cheapest): 7 victims, priority up to 100: victim-0, victim-1, victim-2, victim-3, victim-4 and 2 more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := describeDomainVictims(tc.key, tc.ranked, tc.named); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestAPreemptionDomainEventFitsTheAPIServersLimit(t *testing.T) {
	var parts []string
	for i := range 60 {
		parts = append(parts, fmt.Sprintf("rack=rack-%03d: 12 victims, priority up to 100", i))
	}
	note := fitNote("pod group team/train preempts where its victims cost least: ", parts)
	if len(note) > eventNoteLimit {
		t.Errorf("the note has %d characters, more than %d", len(note), eventNoteLimit)
	}
	if !strings.HasPrefix(note, "pod group team/train preempts where its victims cost least: rack=rack-000: 12 victims") || !strings.Contains(note, " more domains") {
		t.Errorf("the note %q does not start with the cheapest domain and count the rest", note)
	}
	if got := fitNote("head: ", parts[:2]); got != "head: "+parts[0]+"; "+parts[1] {
		t.Errorf("a short note is %q, want every part", got)
	}
}
