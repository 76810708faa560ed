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

package allocbench

import (
	"slices"
	"testing"
	"time"
)

func durations(ns ...int) []time.Duration {
	out := make([]time.Duration, len(ns))
	for i, n := range ns {
		out[i] = time.Duration(n)
	}
	return out
}

func TestPercentile(t *testing.T) {
	oneToTen := durations(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i + 1)
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"the median of ten samples is the fifth", oneToTen, 50, 5},
		{"p90 of ten samples is the ninth", oneToTen, 90, 9},
		{"p99 of ten samples is the largest", oneToTen, 99, 10},
		{"p99 of a hundred samples is the 99th", hundred, 99, 99},
		{"p100 is the largest sample", hundred, 100, 100},
		{"a tiny percentile is the smallest sample", oneToTen, 0.01, 1},
		{"every percentile of one sample is that sample", durations(42), 99, 42},
		{"no samples give zero", nil, 50, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percentile(tc.sorted, tc.p); got != tc.want {
				t.Errorf("Percentile(p%v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name    string
		samples []time.Duration
		want    Latency
	}{
		{
			name:    "unsorted samples are summarized by rank",
			samples: durations(40, 10, 30, 20),
			want:    Latency{Samples: 4, P50Ns: 20, P90Ns: 40, P99Ns: 40, MeanNs: 25, MinNs: 10, MaxNs: 40},
		},
		{
			name:    "one outlier moves p99 and the mean but not the median",
			samples: append(slices.Repeat(durations(100), 99), 100000),
			want:    Latency{Samples: 100, P50Ns: 100, P90Ns: 100, P99Ns: 100, MeanNs: 1099, MinNs: 100, MaxNs: 100000},
		},
		{
			name: "no samples give an empty summary",
			want: Latency{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.samples)
			if got := Summarize(tc.samples); got != tc.want {
				t.Errorf("Summarize = %+v, want %+v", got, tc.want)
			}
			if !slices.Equal(in, tc.samples) {
				t.Error("Summarize reordered the caller's samples")
			}
		})
	}
}

func TestRatio(t *testing.T) {
	tests := []struct {
		name           string
		upstream, ours float64
		want           float64
	}{
		{"a slower upstream gives a ratio above one", 30, 10, 3},
		{"a faster upstream gives a ratio below one", 10, 40, 0.25},
		{"a missing measurement gives zero rather than infinity", 10, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ratio(tc.upstream, tc.ours); got != tc.want {
				t.Errorf("ratio(%v, %v) = %v, want %v", tc.upstream, tc.ours, got, tc.want)
			}
		})
	}
}
