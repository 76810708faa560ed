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

package benchcompare

import (
	"math"
	"sort"
)

// MannWhitneyP is the two-sided p-value of the Mann-Whitney U test that
// samples a and b come from the same distribution. With at most
// exactLimit samples together it is exact (every split of the pooled
// ranks enumerated, ties at their mid-rank); beyond, the normal
// approximation with tie correction.
func MannWhitneyP(a, b []float64) float64 {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return math.NaN()
	}
	ranks, tieTerm := midRanks(append(append([]float64(nil), a...), b...))
	var r1 float64
	for i := 0; i < n1; i++ {
		r1 += ranks[i]
	}
	u := r1 - float64(n1*(n1+1))/2
	mean := float64(n1*n2) / 2
	if n1+n2 <= exactLimit {
		return exactP(ranks, n1, math.Abs(u-mean))
	}
	n := float64(n1 + n2)
	variance := float64(n1*n2) / 12 * ((n + 1) - tieTerm/(n*(n-1)))
	if variance <= 0 {
		return 1
	}
	z := (math.Abs(u-mean) - 0.5) / math.Sqrt(variance)
	return math.Min(1, math.Erfc(math.Max(z, 0)/math.Sqrt2))
}

// exactLimit bounds the exact test: C(16, 8) = 12870 splits.
const exactLimit = 16

// midRanks ranks v (1-based, ties share their mean rank) and returns the
// tie correction term, the sum of t³-t over groups of t ties.
func midRanks(v []float64) ([]float64, float64) {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return v[idx[i]] < v[idx[j]] })
	ranks := make([]float64, len(v))
	var tie float64
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = r
		}
		t := float64(j - i + 1)
		tie += t*t*t - t
		i = j + 1
	}
	return ranks, tie
}

// exactP counts the splits of ranks into n1 and the rest whose U is at
// least dist from its mean, over all splits.
func exactP(ranks []float64, n1 int, dist float64) float64 {
	n := len(ranks)
	mean := float64(n1*(n-n1)) / 2
	offset := float64(n1*(n1+1)) / 2
	var extreme, total float64
	var walk func(start, left int, sum float64)
	walk = func(start, left int, sum float64) {
		if left == 0 {
			total++
			if math.Abs(sum-offset-mean) >= dist-1e-9 {
				extreme++
			}
			return
		}
		for i := start; i <= n-left; i++ {
			walk(i+1, left-1, sum+ranks[i])
		}
	}
	walk(0, n1, 0)
	return extreme / total
}
