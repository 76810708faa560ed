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

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedbench"
)

func TestSoakReportNamesTheConsistencyChecks(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rep        schedbench.SoakReport
		want       []string
		found      int
		wantPassed bool
	}{{
		name: "checks that found nothing",
		rep: schedbench.SoakReport{ConsistencyChecks: 181, Samples: []schedbench.SoakSample{
			{At: 10 * time.Second, ConsistencyChecks: 1}, {At: 20 * time.Second, ConsistencyChecks: 2}}},
		want: []string{
			"consistency: 181 checks of the plugin's state against the API, 0 differences found; 0 in the last check, after cleanup",
			"checks  differences", // the samples' columns
			"PASS",
		},
		wantPassed: true,
	}, {
		name: "differences found",
		rep: schedbench.SoakReport{ConsistencyChecks: 181, CacheDifferences: map[string]int{"allocation": 2, "slice": 1}, FinalDifferences: 1,
			DifferencesLogged: []string{`E1204 "DRAAllocator state differs from the API" kind="allocation"`},
			Problems:          []string{"the consistency check found 3 difference(s)"}},
		want: []string{
			"consistency: 181 checks of the plugin's state against the API, 3 differences found (allocation 2, slice 1); 1 in the last check, after cleanup",
			`  E1204 "DRAAllocator state differs from the API" kind="allocation"`,
			"FAIL: the consistency check found 3 difference(s)",
		},
		found: 3,
	}, {
		name:  "only the last check's",
		rep:   schedbench.SoakReport{ConsistencyChecks: 3, FinalDifferences: 2, Problems: []string{"x"}},
		want:  []string{"0 differences found; 2 in the last check"},
		found: 2,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			writeSoakReport(&out, &tc.rep)
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, out.String())
				}
			}
			if got := cacheDifferences(&tc.rep); got != tc.found {
				t.Errorf("cacheDifferences = %d, want %d", got, tc.found)
			}
			if passed := strings.Contains(out.String(), "PASS"); passed != tc.wantPassed {
				t.Errorf("PASS printed: %v, want %v", passed, tc.wantPassed)
			}
		})
	}
}
