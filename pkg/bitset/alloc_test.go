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
	"math/rand/v2"
	"testing"
)

// randomSet returns a set of length n in which each index is a member with
// probability p, drawn from a fixed seed.
func randomSet(n int, p float64, seed uint64) *Set {
	r := rand.New(rand.NewPCG(seed, 0))
	s := New(n)
	for i := range n {
		if r.Float64() < p {
			s.Set(i)
		}
	}
	return s
}

// Sinks keep results alive so the compiler cannot drop the calls measured.
var (
	sinkInt  int
	sinkBool bool
)

func TestZeroAllocations(t *testing.T) {
	const n = 4096 + 65 // several words and a partial last word
	s, a, b := randomSet(n, 0.5, 1), randomSet(n, 0.5, 2), randomSet(n, 0.3, 3)
	short := randomSet(700, 0.5, 4)
	long := randomSet(2*n, 0.5, 5)
	growable := New(n)
	growable.Resize(64)
	tests := []struct {
		name string
		f    func()
	}{
		{"set, clear and has", func() { s.Set(7); s.Clear(n - 1); sinkBool = s.Has(64) }},
		{"and", func() { s.And(a, b) }},
		{"and-not", func() { s.AndNot(a, b) }},
		{"or", func() { s.Or(a, b) }},
		{"and with shorter and longer operands", func() { s.And(short, long) }},
		{"and-not with shorter and longer operands", func() { s.AndNot(long, short) }},
		{"or with shorter and longer operands", func() { s.Or(short, long) }},
		{"copy-from", func() { s.CopyFrom(long) }},
		{"clear-all and set-all", func() { s.ClearAll(); s.SetAll() }},
		{"count, any and is-empty", func() { sinkInt = s.Count(); sinkBool = s.Any() || s.IsEmpty() }},
		{"next-set over every member", func() {
			for i, ok := a.NextSet(0); ok; i, ok = a.NextSet(i + 1) {
				sinkInt += i
			}
		}},
		{"fused counts and intersects", func() {
			sinkInt = a.AndCount(b) + a.AndNotCount(short)
			sinkBool = a.Intersects(long) && a.Equal(b)
		}},
		{"count-range", func() { sinkInt = a.CountRange(13, n-70) }},
		{"for-each", func() { a.ForEach(func(i int) bool { sinkInt += i; return true }) }},
		{"range over all", func() {
			for i := range a.All() {
				sinkInt += i
			}
		}},
		{"resize within capacity", func() { growable.Resize(n); growable.Resize(64) }},
		{"grow to a smaller length", func() { s.Grow(10) }},
	}
	for _, tt := range tests {
		t.Run(tt.name+" does not allocate", func(t *testing.T) {
			if got := testing.AllocsPerRun(20, tt.f); got != 0 {
				t.Errorf("%v allocations per run, want 0", got)
			}
		})
	}
}
