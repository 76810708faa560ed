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
	"math"
	"slices"
	"time"
)

// Latency summarizes the timed calls of one allocator on one workload.
// All durations are nanoseconds. Percentiles use the nearest-rank method:
// pN is the smallest sample that at least N % of the samples do not
// exceed, so it is always one of the measured samples.
type Latency struct {
	// Samples is the number of timed calls.
	Samples int `json:"samples"`
	// P50Ns, P90Ns and P99Ns are percentiles of the samples.
	P50Ns int64 `json:"p50Ns"`
	P90Ns int64 `json:"p90Ns"`
	P99Ns int64 `json:"p99Ns"`
	// MeanNs is the arithmetic mean; MinNs and MaxNs the extremes.
	MeanNs float64 `json:"meanNs"`
	MinNs  int64   `json:"minNs"`
	MaxNs  int64   `json:"maxNs"`
	// AllocsPerOp and BytesPerOp are heap allocations and bytes per call
	// (runtime.MemStats Mallocs and TotalAlloc deltas over untimed calls).
	AllocsPerOp float64 `json:"allocsPerOp"`
	BytesPerOp  float64 `json:"bytesPerOp"`
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// samples sorted in increasing order, or 0 for no samples.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// Summarize computes the latency summary of samples (which it does not
// modify); allocation figures are left zero.
func Summarize(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	var sum float64
	for _, s := range sorted {
		sum += float64(s)
	}
	return Latency{
		Samples: len(sorted),
		P50Ns:   int64(Percentile(sorted, 50)),
		P90Ns:   int64(Percentile(sorted, 90)),
		P99Ns:   int64(Percentile(sorted, 99)),
		MeanNs:  sum / float64(len(sorted)),
		MinNs:   int64(sorted[0]),
		MaxNs:   int64(sorted[len(sorted)-1]),
	}
}

// ratio is upstream/ours, or 0 when either is missing.
func ratio(upstream, ours float64) float64 {
	if upstream <= 0 || ours <= 0 {
		return 0
	}
	return upstream / ours
}

// timerOverhead is the median cost of one time.Now/time.Since pair, which
// every timed call includes.
func timerOverhead() time.Duration {
	samples := make([]time.Duration, 1001)
	for i := range samples {
		start := time.Now()
		samples[i] = time.Since(start)
	}
	slices.Sort(samples)
	return samples[len(samples)/2]
}
