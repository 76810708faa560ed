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

package schedbench

import (
	"math"
	"testing"
	"time"
)

func TestGrowthComparesTheLastThirdAfterWarmUpWithTheFirst(t *testing.T) {
	samples := func(values ...float64) []SoakSample {
		out := make([]SoakSample, len(values))
		for i, v := range values {
			out[i] = SoakSample{At: time.Duration(i) * time.Second, LiveHeapBytes: v}
		}
		return out
	}
	live := func(s SoakSample) float64 { return s.LiveHeapBytes }
	for _, tc := range []struct {
		name    string
		samples []SoakSample
		warmUp  time.Duration
		want    float64
	}{
		{"a flat heap has no growth", samples(10, 10, 10, 10, 10, 10), 0, 0},
		{"a heap that doubles grows 100%", samples(10, 10, 15, 15, 20, 20), 0, 1},
		{"samples before warm-up do not count", samples(1, 1, 10, 10, 10, 10, 10, 10), 2 * time.Second, 0},
		{"a shrinking heap has negative growth", samples(20, 20, 10, 10), 0, -0.5},
		{"fewer than three samples after warm-up give no verdict", samples(1, 100), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := growth(tc.samples, tc.warmUp, live); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("growth = %v, want %v", got, tc.want)
			}
		})
	}
}
