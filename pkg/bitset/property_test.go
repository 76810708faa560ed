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
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// model is the naive reference a Set is checked against: one bool per index.
type model []bool

func (m model) has(i int) bool { return i >= 0 && i < len(m) && m[i] }

func (m model) count() int {
	c := 0
	for _, b := range m {
		if b {
			c++
		}
	}
	return c
}

func (m model) members() []int {
	var r []int
	for i, b := range m {
		if b {
			r = append(r, i)
		}
	}
	return r
}

// resized returns m at length n, keeping members below n.
func (m model) resized(n int) model {
	r := make(model, n)
	copy(r, m)
	return r
}

// propertyLengths are the lengths sets take in the property test: word
// boundaries and their neighbours, plus zero.
var propertyLengths = []int{0, 1, 2, 63, 64, 65, 127, 128, 129, 191, 192, 193, 250, 320}

// TestAgainstModel runs seeded random sequences of operations on a few
// sets and checks every result and every set, after every step, against
// the []bool model. A failure names the seed and step that reproduce it.
func TestAgainstModel(t *testing.T) {
	const seeds, steps, nsets = 24, 600, 3
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		sets := make([]*Set, nsets)
		models := make([]model, nsets)
		for k := range sets {
			n := propertyLengths[r.IntN(len(propertyLengths))]
			sets[k], models[k] = New(n), make(model, n)
		}
		for step := range steps {
			op := runStep(t, r, sets, models)
			for k := range sets {
				if err := compare(sets[k], models[k]); err != "" {
					t.Fatalf("seed %d step %d after %s: set %d: %s", seed, step, op, k, err)
				}
			}
		}
	}
}

// runStep applies one random operation to sets and models, checks any
// query result against the model, and returns a description of the step.
func runStep(t *testing.T, r *rand.Rand, sets []*Set, models []model) string {
	t.Helper()
	k, x, y := r.IntN(len(sets)), r.IntN(len(sets)), r.IntN(len(sets))
	s, m := sets[k], models[k]
	n := len(m)
	// index returns an index in [-2, n+2), beyond the valid range at both ends.
	index := func() int { return r.IntN(n+4) - 2 }
	fail := func(op string, got, want any) {
		t.Helper()
		t.Fatalf("%s on set %d (%v, operands %v %v): got %v, want %v", op, k, s, sets[x], sets[y], got, want)
	}
	switch op := r.IntN(24); op {
	case 0, 1, 2: // Set; weighted so that sets fill up
		if n > 0 {
			i := r.IntN(n)
			s.Set(i)
			m[i] = true
		}
		return "Set"
	case 3:
		if n > 0 {
			i := r.IntN(n)
			s.Clear(i)
			m[i] = false
		}
		return "Clear"
	case 4:
		// Fill with a random density, sparse to nearly full.
		p := []float64{0.02, 0.5, 0.98}[r.IntN(3)]
		for i := range m {
			m[i] = r.Float64() < p
			if m[i] {
				s.Set(i)
			} else {
				s.Clear(i)
			}
		}
		return "Fill"
	case 5:
		nn := propertyLengths[r.IntN(len(propertyLengths))]
		s.Resize(nn)
		models[k] = m.resized(nn)
		return fmt.Sprintf("Resize(%d)", nn)
	case 6:
		nn := propertyLengths[r.IntN(len(propertyLengths))]
		s.Grow(nn)
		models[k] = m.resized(max(n, nn))
		return fmt.Sprintf("Grow(%d)", nn)
	case 7, 8, 9, 10:
		a, b := models[x], models[y]
		want := make(model, n)
		for i := range want {
			switch op {
			case 7:
				want[i] = a.has(i) && b.has(i)
			case 8:
				want[i] = a.has(i) && !b.has(i)
			case 9:
				want[i] = a.has(i) || b.has(i)
			case 10:
				want[i] = a.has(i)
			}
		}
		name := [...]string{"And", "AndNot", "Or", "CopyFrom"}[op-7]
		switch op {
		case 7:
			s.And(sets[x], sets[y])
		case 8:
			s.AndNot(sets[x], sets[y])
		case 9:
			s.Or(sets[x], sets[y])
		case 10:
			s.CopyFrom(sets[x])
		}
		copy(m, want)
		return fmt.Sprintf("set %d = %s(set %d, set %d)", k, name, x, y)
	case 11:
		s.ClearAll()
		clear(m)
		return "ClearAll"
	case 12:
		s.SetAll()
		for i := range m {
			m[i] = true
		}
		return "SetAll"
	case 13:
		if x != k {
			sets[k], models[k] = sets[x].Clone(), slices.Clone(models[x])
		}
		return fmt.Sprintf("set %d = set %d.Clone()", k, x)
	case 14:
		if got, want := s.Count(), m.count(); got != want {
			fail("Count", got, want)
		}
		if got, want := s.Any(), m.count() > 0; got != want || s.IsEmpty() == want {
			fail("Any/IsEmpty", got, want)
		}
		return "Count/Any/IsEmpty"
	case 15:
		from := index()
		got, ok := s.NextSet(from)
		want, wantOK := -1, false
		for i := max(from, 0); i < n; i++ {
			if m[i] {
				want, wantOK = i, true
				break
			}
		}
		if got != want || ok != wantOK {
			fail(fmt.Sprintf("NextSet(%d)", from), fmt.Sprint(got, ok), fmt.Sprint(want, wantOK))
		}
		return "NextSet"
	case 16, 17, 18, 19:
		b := models[x]
		and, andNot, equal := 0, 0, true
		for i := range max(n, len(b)) {
			switch {
			case m.has(i) && b.has(i):
				and++
			case m.has(i):
				andNot++
			}
			if m.has(i) != b.has(i) {
				equal = false
			}
		}
		if got := s.AndCount(sets[x]); got != and {
			fail("AndCount", got, and)
		}
		if got := s.AndNotCount(sets[x]); got != andNot {
			fail("AndNotCount", got, andNot)
		}
		if got := s.Intersects(sets[x]); got != (and > 0) {
			fail("Intersects", got, and > 0)
		}
		if got := s.Equal(sets[x]); got != equal {
			fail("Equal", got, equal)
		}
		return fmt.Sprintf("fused queries of set %d with set %d", k, x)
	case 20:
		lo, hi := index(), index()
		want := 0
		for i := lo; i < hi; i++ {
			if m.has(i) {
				want++
			}
		}
		if got := s.CountRange(lo, hi); got != want {
			fail(fmt.Sprintf("CountRange(%d, %d)", lo, hi), got, want)
		}
		return "CountRange"
	case 21, 22:
		// Iterate, stopping after limit members; limit len(all)+1 never stops.
		all := m.members()
		limit := 1 + r.IntN(len(all)+1)
		var got []int
		if op == 21 {
			s.ForEach(func(i int) bool { got = append(got, i); return len(got) < limit })
		} else {
			for i := range s.All() {
				if got = append(got, i); len(got) == limit {
					break
				}
			}
		}
		if want := all[:min(limit, len(all))]; !slices.Equal(got, want) {
			fail([...]string{"ForEach", "All"}[op-21], got, want)
		}
		return "iterate"
	default:
		want := strings.Trim(fmt.Sprint(m.members()), "[]")
		if got := s.String(); got != "{"+want+"}" {
			fail("String", got, "{"+want+"}")
		}
		return "String"
	}
}

// compare returns a description of how s differs from m, or "".
func compare(s *Set, m model) string {
	if s.Len() != len(m) {
		return fmt.Sprintf("Len %d, model length %d", s.Len(), len(m))
	}
	if len(s.words) != wordsFor(s.n) {
		return fmt.Sprintf("%d words for %d bits", len(s.words), s.n)
	}
	if r := s.n & wordMask; r != 0 && s.words[len(s.words)-1]>>r != 0 {
		return fmt.Sprintf("bits beyond the length are set: last word %#x", s.words[len(s.words)-1])
	}
	for i := -2; i < len(m)+66; i++ {
		if s.Has(i) != m.has(i) {
			return fmt.Sprintf("Has(%d) = %v, model %v", i, s.Has(i), m.has(i))
		}
	}
	return ""
}
