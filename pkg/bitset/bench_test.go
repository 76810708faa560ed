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

package bitset

import (
	"fmt"
	"testing"
)

// benchSizes are the set lengths benchmarked: a small node, a large node,
// and a whole cluster's devices.
var benchSizes = []int{256, 4096, 65536}

// benchSets returns three sets of length n, about half full.
func benchSets(n int) (s, a, b *Set) {
	return New(n), randomSet(n, 0.5, 1), randomSet(n, 0.5, 2)
}

func bench(b *testing.B, f func(b *testing.B, s, x, y *Set)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("bits=%d", n), func(b *testing.B) {
			s, x, y := benchSets(n)
			b.ReportAllocs()
			f(b, s, x, y)
		})
	}
}

func BenchmarkAnd(b *testing.B) {
	bench(b, func(b *testing.B, s, x, y *Set) {
		for b.Loop() {
			s.And(x, y)
		}
	})
}

func BenchmarkAndNot(b *testing.B) {
	bench(b, func(b *testing.B, s, x, y *Set) {
		for b.Loop() {
			s.AndNot(x, y)
		}
	})
}

func BenchmarkCount(b *testing.B) {
	bench(b, func(b *testing.B, _, x, _ *Set) {
		for b.Loop() {
			sinkInt = x.Count()
		}
	})
}

func BenchmarkAndNotCount(b *testing.B) {
	bench(b, func(b *testing.B, _, x, y *Set) {
		for b.Loop() {
			sinkInt = x.AndNotCount(y)
		}
	})
}

// The iteration benchmarks visit every member of a half-full set.

func BenchmarkNextSet(b *testing.B) {
	bench(b, func(b *testing.B, _, x, _ *Set) {
		for b.Loop() {
			sum := 0
			for i, ok := x.NextSet(0); ok; i, ok = x.NextSet(i + 1) {
				sum += i
			}
			sinkInt = sum
		}
	})
}

func BenchmarkForEach(b *testing.B) {
	bench(b, func(b *testing.B, _, x, _ *Set) {
		for b.Loop() {
			sum := 0
			x.ForEach(func(i int) bool { sum += i; return true })
			sinkInt = sum
		}
	})
}

func BenchmarkAll(b *testing.B) {
	bench(b, func(b *testing.B, _, x, _ *Set) {
		for b.Loop() {
			sum := 0
			for i := range x.All() {
				sum += i
			}
			sinkInt = sum
		}
	})
}
