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

package cowbits_test

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/cowbits"
)

// TestClonesAreIndependent applies random writes to a set and to clones
// of it and of its clones, and compares each with a plain model after
// every step: a write to one set is never seen by another.
func TestClonesAreIndependent(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 5))
		n := 1 + rng.IntN(3*4096)
		sets := []*cowbits.Set{cowbits.New(n)}
		models := []map[int]bool{{}}
		for range 400 {
			k := rng.IntN(len(sets))
			switch op := rng.IntN(10); {
			case op == 0 && len(sets) < 8:
				sets = append(sets, sets[k].Clone())
				clone := map[int]bool{}
				for i := range models[k] {
					clone[i] = true
				}
				models = append(models, clone)
			case op < 6:
				i := rng.IntN(n)
				sets[k].Set(i)
				models[k][i] = true
			default:
				i := rng.IntN(n)
				sets[k].Clear(i)
				delete(models[k], i)
			}
			for j, s := range sets {
				want := make([]int, 0, len(models[j]))
				for i := range models[j] {
					want = append(want, i)
				}
				slices.Sort(want)
				if got := slices.Collect(s.All()); !slices.Equal(got, want) {
					t.Fatalf("seed %d: set %d has %v, want %v", seed, j, got, want)
				}
				for _, i := range []int{0, n - 1, rng.IntN(n)} {
					if s.Has(i) != models[j][i] {
						t.Fatalf("seed %d: set %d Has(%d) = %v, want %v", seed, j, i, s.Has(i), models[j][i])
					}
				}
			}
		}
	}
}

func TestEqualAndRange(t *testing.T) {
	a, b := cowbits.New(5000), cowbits.New(9000)
	a.Set(4097)
	b.Set(4097)
	if !a.Equal(b) || !b.Equal(a) {
		t.Errorf("sets of the same members and different lengths are not equal")
	}
	b.Set(8999)
	if a.Equal(b) || b.Equal(a) {
		t.Errorf("sets of different members are equal")
	}
	if a.Has(-1) || a.Has(5000) {
		t.Errorf("an index out of range is a member")
	}
	for name, f := range map[string]func(){"Set": func() { a.Set(5000) }, "Clear": func() { a.Clear(-1) }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s out of range did not panic", name)
				}
			}()
			f()
		}()
	}
}

// TestConcurrentClonesOfOneSet: readers and cloners of one published set,
// each cloner writing its own clone, as preemption dry runs do with the
// allocated-device state; run under -race.
func TestConcurrentClonesOfOneSet(t *testing.T) {
	base := cowbits.New(20000)
	for i := 0; i < 20000; i += 3 {
		base.Set(i)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 200 {
				c := base.Clone()
				i := (g*997 + k*31) % 20000
				c.Clear(i - i%3)
				c.Set(i - i%3 + 1)
				if base.Has(i-i%3+1) || !base.Has(i-i%3) {
					t.Errorf("a clone's write reached the set it was cloned from")
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkCloneAndChangeOneChunk(b *testing.B) {
	s := cowbits.New(40000)
	for b.Loop() {
		c := s.Clone()
		c.Set(12345)
	}
}

// TestClearWordsRemovesTheMaskedMembersOfOneSetOnly clears random masks
// from a clone, word by word, and compares it with a plain model: exactly
// the masked members go, Word reads what Has does, and the original set,
// which shares the clone's chunks, keeps all of its members.
func TestClearWordsRemovesTheMaskedMembersOfOneSetOnly(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 9))
		n := 1 + rng.IntN(3*4096)
		orig := cowbits.New(n)
		for range n / 2 {
			orig.Set(rng.IntN(n))
		}
		before := slices.Collect(orig.All())
		masks := map[int]uint64{}
		for range 1 + rng.IntN(20) {
			masks[rng.IntN((n+63)/64)] = rng.Uint64()
		}
		clone := orig.Clone()
		clone.ClearWords(func(w int) uint64 { return masks[w] })
		var want []int
		for _, i := range before {
			if masks[i/64]&(1<<(i%64)) == 0 {
				want = append(want, i)
			}
		}
		if got := slices.Collect(clone.All()); !slices.Equal(got, want) {
			t.Fatalf("seed %d: cleared set has %v, want %v", seed, got, want)
		}
		if got := slices.Collect(orig.All()); !slices.Equal(got, before) {
			t.Fatalf("seed %d: the original changed to %v, want %v", seed, got, before)
		}
		for w := range (n + 63) / 64 {
			for b := range 64 {
				if i := w*64 + b; i < n && (clone.Word(w)&(1<<b) != 0) != clone.Has(i) {
					t.Fatalf("seed %d: Word(%d) bit %d disagrees with Has(%d)", seed, w, b, i)
				}
			}
		}
	}
}
