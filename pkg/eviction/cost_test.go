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

package eviction

import (
	"testing"
	"time"
)

// costOf is the cost of one-pod victims of the priorities, started age
// before a fixed moment, the first violations of them violating a budget.
func costOf(age time.Duration, violations int, priorities ...int32) Cost {
	c := Cost{PDBViolations: violations}
	for _, p := range priorities {
		c.Victims = append(c.Victims, Victim{Priority: p, Pods: 1, Start: time.Unix(1_000_000, 0).Add(-age)})
	}
	return c
}

func TestCostsAreOrderedAsDefaultPreemptionOrdersCandidates(t *testing.T) {
	group := Cost{Victims: []Victim{{Priority: 10, Pods: 3, Start: time.Unix(1_000_000, 0)}}}
	for _, tc := range []struct {
		name            string
		cheaper, dearer Cost
	}{
		{"no victims are cheaper than one", costOf(time.Hour, 0), costOf(time.Hour, 0, 1)},
		{"fewer budget violations win over fewer victims", costOf(time.Hour, 0, 1, 1, 1), costOf(time.Hour, 1, 1)},
		{"a lower highest priority wins over fewer victims", costOf(time.Hour, 0, 10, 10), costOf(time.Hour, 0, 50)},
		{"the highest priority is found wherever it is", costOf(time.Hour, 0, 10, 40), costOf(time.Hour, 0, 10, 50)},
		{"at the same highest priority a lower sum wins", costOf(time.Hour, 0, 50, 10), costOf(time.Hour, 0, 50, 40)},
		{"at the same priorities fewer victims win", costOf(time.Hour, 0, 10, 10), costOf(time.Hour, 0, 10, 10, 10)},
		{"a group's pods count one by one", costOf(time.Hour, 0, 10, 10), group},
		{"negative priorities do not make more victims cheaper", costOf(time.Hour, 0, -5), costOf(time.Hour, 0, -5, -5)},
		{"at equal victims those started later win", costOf(time.Minute, 0, 10, 10), costOf(time.Hour, 0, 10, 10)},
		{"the earliest start of the highest-priority victims decides", costOf(time.Hour, 0, 10, 10),
			Cost{Victims: []Victim{{Priority: 10, Pods: 1, Start: time.Unix(1_000_000, 0)}, {Priority: 10, Pods: 1, Start: time.Unix(1_000_000, 0).Add(-2 * time.Hour)}}}},
		{"lower-priority victims' starts do not count", costOf(time.Hour, 0, 10, 5),
			Cost{Victims: []Victim{{Priority: 10, Pods: 1, Start: time.Unix(1_000_000, 0).Add(-2 * time.Hour)}, {Priority: 5, Pods: 1, Start: time.Unix(1_000_000, 0)}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CompareCost(tc.cheaper, tc.dearer); got >= 0 {
				t.Errorf("CompareCost(cheaper, dearer) = %d, want < 0", got)
			}
			if got := CompareCost(tc.dearer, tc.cheaper); got <= 0 {
				t.Errorf("CompareCost(dearer, cheaper) = %d, want > 0", got)
			}
			if got := CompareCost(tc.cheaper, tc.cheaper); got != 0 {
				t.Errorf("CompareCost(cheaper, cheaper) = %d, want 0", got)
			}
		})
	}
}
