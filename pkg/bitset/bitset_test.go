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
	"slices"
	"testing"
)

// of returns a set of length n with the given members.
func of(n int, members ...int) *Set {
	s := New(n)
	for _, i := range members {
		s.Set(i)
	}
	return s
}

// members lists the members of s with Has, independently of the iterators.
func members(s *Set) []int {
	var m []int
	for i := range s.Len() {
		if s.Has(i) {
			m = append(m, i)
		}
	}
	return m
}

// checkInvariants fails t if s breaks a representation invariant.
func checkInvariants(t *testing.T, s *Set) {
	t.Helper()
	if got, want := len(s.words), wordsFor(s.n); got != want {
		t.Fatalf("len(words) = %d for %d bits, want %d", got, s.n, want)
	}
	if r := s.n & wordMask; r != 0 && s.words[len(s.words)-1]>>r != 0 {
		t.Fatalf("bits beyond length %d are set: last word %#x", s.n, s.words[len(s.words)-1])
	}
}

func expectPanic(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("did not panic")
		}
	}()
	f()
}

func TestNew(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 128, 129} {
		s := New(n)
		if s.Len() != n || s.Cap() < n || s.Count() != 0 || !s.IsEmpty() || s.Any() {
			t.Errorf("New(%d): Len %d, Cap %d, Count %d, IsEmpty %v, Any %v; want an empty set of length %d",
				n, s.Len(), s.Cap(), s.Count(), s.IsEmpty(), s.Any(), n)
		}
		checkInvariants(t, s)
	}
	t.Run("the zero set is an empty set of length zero", func(t *testing.T) {
		var s Set
		if s.Len() != 0 || s.Any() || s.Has(0) {
			t.Errorf("zero Set: Len %d, Any %v, Has(0) %v", s.Len(), s.Any(), s.Has(0))
		}
		if _, ok := s.NextSet(0); ok {
			t.Error("zero Set: NextSet found a member")
		}
	})
	t.Run("a negative length panics", func(t *testing.T) {
		expectPanic(t, func() { New(-1) })
	})
}

func TestSetClearHas(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		set   []int
		clear []int
		want  []int
	}{
		{"a single bit is its own first and last index", 1, []int{0}, nil, []int{0}},
		{"the last index of one word is kept", 63, []int{0, 62}, nil, []int{0, 62}},
		{"the last index of a full word is kept", 64, []int{0, 63}, nil, []int{0, 63}},
		{"an index in a second word is kept", 65, []int{0, 63, 64}, nil, []int{0, 63, 64}},
		{"setting an index twice adds it once", 130, []int{7, 7, 129}, nil, []int{7, 129}},
		{"clearing a member removes only it", 130, []int{1, 64, 129}, []int{64}, []int{1, 129}},
		{"clearing an absent index changes nothing", 130, []int{1, 129}, []int{2, 128}, []int{1, 129}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := of(tt.n, tt.set...)
			for _, i := range tt.clear {
				s.Clear(i)
			}
			checkInvariants(t, s)
			if got := members(s); !slices.Equal(got, tt.want) {
				t.Errorf("members = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("has is false outside the length", func(t *testing.T) {
		s := New(65)
		s.SetAll()
		for _, i := range []int{-1, -64, 65, 127, 128, 1 << 40} {
			if s.Has(i) {
				t.Errorf("Has(%d) = true on a full set of length 65", i)
			}
		}
	})
	t.Run("set and clear panic outside the length", func(t *testing.T) {
		for _, c := range []struct{ n, i int }{{0, 0}, {1, 1}, {63, 63}, {64, 64}, {65, 65}, {65, 127}, {65, -1}} {
			s := New(c.n)
			expectPanic(t, func() { s.Set(c.i) })
			expectPanic(t, func() { s.Clear(c.i) })
		}
	})
}

func TestResize(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		members []int
		resize  []int
		want    []int
	}{
		{"growing keeps members and adds clear indexes", 10, []int{0, 9}, []int{200}, []int{0, 9}},
		{"shrinking drops members at or beyond the new length", 200, []int{3, 64, 65, 199}, []int{65}, []int{3, 64}},
		{"shrinking inside a word clears its upper bits", 64, []int{1, 40, 63}, []int{40}, []int{1}},
		{"shrinking then growing does not bring dropped members back", 200, []int{3, 64, 100, 199}, []int{65, 200}, []int{3, 64}},
		{"shrinking to a word boundary then growing does not bring them back", 200, []int{63, 64, 199}, []int{64, 200}, []int{63}},
		{"resizing to zero empties the set", 100, []int{0, 99}, []int{0, 100}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := of(tt.n, tt.members...)
			for _, n := range tt.resize {
				s.Resize(n)
				checkInvariants(t, s)
			}
			if got := members(s); !slices.Equal(got, tt.want) {
				t.Errorf("members = %v, want %v", got, tt.want)
			}
			if got := s.Len(); got != tt.resize[len(tt.resize)-1] {
				t.Errorf("Len = %d, want %d", got, tt.resize[len(tt.resize)-1])
			}
		})
	}
	t.Run("grow never shrinks", func(t *testing.T) {
		s := of(100, 99)
		s.Grow(10)
		if s.Len() != 100 || !s.Has(99) {
			t.Errorf("after Grow(10): Len %d, Has(99) %v; want 100, true", s.Len(), s.Has(99))
		}
		s.Grow(101)
		if s.Len() != 101 || !s.Has(99) {
			t.Errorf("after Grow(101): Len %d, Has(99) %v; want 101, true", s.Len(), s.Has(99))
		}
	})
	t.Run("growing one bit at a time keeps every member", func(t *testing.T) {
		var s Set
		for i := range 1000 {
			s.Grow(i + 1)
			if i%3 == 0 {
				s.Set(i)
			}
		}
		checkInvariants(t, &s)
		if got := s.Count(); got != 334 {
			t.Errorf("Count = %d, want 334", got)
		}
	})
	t.Run("a negative length panics", func(t *testing.T) {
		expectPanic(t, func() { New(1).Resize(-1) })
	})
}

func TestBinaryOps(t *testing.T) {
	and := func(s, a, b *Set) { s.And(a, b) }
	andNot := func(s, a, b *Set) { s.AndNot(a, b) }
	or := func(s, a, b *Set) { s.Or(a, b) }
	copyFrom := func(s, a, _ *Set) { s.CopyFrom(a) }
	tests := []struct {
		name string
		op   func(s, a, b *Set)
		s    *Set
		a, b *Set
		want []int
	}{
		{"and of disjoint sets is empty", and, of(130, 5), of(130, 1, 64), of(130, 2, 129), nil},
		{"and keeps the common members", and, New(130), of(130, 1, 64, 129), of(130, 64, 129, 2), []int{64, 129}},
		{"and overwrites the receiver's old members", and, of(130, 3, 100), of(130, 1), of(130, 1), []int{1}},
		{"and with a shorter operand reads its missing words as zero", and, New(200), of(200, 1, 70, 199), of(65, 1, 64), []int{1}},
		{"and-not of a set with itself is empty", andNot, New(130), of(130, 0, 63, 64, 129), of(130, 0, 63, 64, 129), nil},
		{"and-not removes the subtrahend's members", andNot, New(130), of(130, 0, 63, 64, 129), of(130, 63, 128), []int{0, 64, 129}},
		{"and-not with a shorter subtrahend keeps the minuend's upper words", andNot, New(200), of(200, 1, 70, 199), of(64, 1), []int{70, 199}},
		{"and-not with a shorter minuend clears the receiver's upper words", andNot, of(200, 150), of(64, 1, 2), of(200), []int{1, 2}},
		{"or with an empty set is the set", or, New(130), of(130, 0, 64, 129), New(130), []int{0, 64, 129}},
		{"or is the union", or, New(130), of(130, 0, 64), of(130, 64, 129), []int{0, 64, 129}},
		{"or with operands of different lengths keeps both", or, New(200), of(65, 64), of(200, 0, 199), []int{0, 64, 199}},
		{"or with a longer operand drops members beyond the receiver's length", or, New(65), of(200, 0, 64, 65, 127, 199), New(10), []int{0, 64}},
		{"copy from a shorter set clears the receiver's upper words", copyFrom, of(200, 1, 150), of(64, 2), nil, []int{2}},
		{"copy from a longer set stops at the receiver's length", copyFrom, New(65), of(200, 0, 64, 65, 100, 199), nil, []int{0, 64}},
		{"operations on a zero-length receiver do nothing", or, New(0), of(64, 1), of(64, 2), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.s.Len()
			tt.op(tt.s, tt.a, tt.b)
			checkInvariants(t, tt.s)
			if tt.s.Len() != n {
				t.Errorf("Len changed from %d to %d", n, tt.s.Len())
			}
			if got := members(tt.s); !slices.Equal(got, tt.want) {
				t.Errorf("members = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("the receiver may also be an operand", func(t *testing.T) {
		s, b := of(130, 1, 64, 129), of(130, 64)
		s.AndNot(s, b)
		s.Or(s, s)
		s.And(s, s)
		s.CopyFrom(s)
		if got, want := members(s), []int{1, 129}; !slices.Equal(got, want) {
			t.Errorf("members = %v, want %v", got, want)
		}
	})
	t.Run("set-all fills exactly the length", func(t *testing.T) {
		for _, n := range []int{0, 1, 63, 64, 65, 129} {
			s := New(n)
			s.SetAll()
			checkInvariants(t, s)
			if s.Count() != n {
				t.Errorf("length %d: Count after SetAll = %d", n, s.Count())
			}
			s.ClearAll()
			if s.Any() {
				t.Errorf("length %d: members after ClearAll: %v", n, s)
			}
		}
	})
}

func TestQueries(t *testing.T) {
	a := of(200, 0, 63, 64, 65, 130, 199)
	b := of(70, 1, 63, 65, 69)
	empty := New(200)
	intTests := []struct {
		name      string
		got, want int
	}{
		{"count counts every member", a.Count(), 6},
		{"count of an empty set is zero", empty.Count(), 0},
		{"and-count counts common members across lengths", a.AndCount(b), 2},
		{"and-count is symmetric", b.AndCount(a), 2},
		{"and-count with an empty set is zero", a.AndCount(empty), 0},
		{"and-not-count counts members missing from a shorter set", a.AndNotCount(b), 4},
		{"and-not-count ignores a longer set's upper words", b.AndNotCount(a), 2},
		{"and-not-count of a set with itself is zero", a.AndNotCount(a), 0},
		{"count-range counts a whole word", a.CountRange(64, 128), 2},
		{"count-range excludes its upper bound", a.CountRange(0, 63), 1},
		{"count-range within one word", a.CountRange(63, 65), 2},
		{"count-range across several words", a.CountRange(1, 200), 5},
		{"count-range clips to the length", a.CountRange(-10, 1000), 6},
		{"an inverted range counts zero", a.CountRange(100, 50), 0},
		{"an empty range counts zero", a.CountRange(64, 64), 0},
	}
	for _, tt := range intTests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %d, want %d", tt.got, tt.want)
			}
		})
	}
	boolTests := []struct {
		name      string
		got, want bool
	}{
		{"a set with members is not empty", a.IsEmpty() || !a.Any(), false},
		{"an empty set has no members", empty.Any() || !empty.IsEmpty(), false},
		{"sets sharing a member intersect", a.Intersects(b), true},
		{"a set does not intersect an empty set", a.Intersects(empty), false},
		{"sets sharing only an index beyond one's length do not intersect", of(64, 1).Intersects(of(200, 64, 199)), false},
		{"a set equals itself", a.Equal(a), true},
		{"a set equals a clone", a.Equal(a.Clone()), true},
		{"sets with the same members but different lengths are equal", of(10, 3).Equal(of(300, 3)), true},
		{"a longer set with an extra member is not equal", of(10, 3).Equal(of(300, 3, 299)), false},
		{"sets differing in one member are not equal", of(64, 3).Equal(of(64, 4)), false},
	}
	for _, tt := range boolTests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func TestNextSet(t *testing.T) {
	s := of(200, 0, 63, 64, 65, 130, 199)
	tests := []struct {
		name   string
		from   int
		want   int
		wantOK bool
	}{
		{"from a member returns that member", 0, 0, true},
		{"a negative start begins at zero", -5, 0, true},
		{"from the last index of a word finds it", 63, 63, true},
		{"the next member may be in the next word", 1, 63, true},
		{"from a word boundary finds the member there", 64, 64, true},
		{"empty words are skipped", 66, 130, true},
		{"the last index is found", 131, 199, true},
		{"from the length there is no member", 200, -1, false},
		{"from beyond the length there is no member", 1000, -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := s.NextSet(tt.from)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("NextSet(%d) = %d, %v; want %d, %v", tt.from, got, ok, tt.want, tt.wantOK)
			}
		})
	}
	t.Run("after the last member there is none", func(t *testing.T) {
		if i, ok := of(130, 5).NextSet(6); ok {
			t.Errorf("NextSet(6) = %d, true", i)
		}
	})
}

func TestIteration(t *testing.T) {
	want := []int{0, 1, 63, 64, 127, 128, 199}
	s := of(200, want...)
	t.Run("for-each visits members in increasing order", func(t *testing.T) {
		var got []int
		s.ForEach(func(i int) bool { got = append(got, i); return true })
		if !slices.Equal(got, want) {
			t.Errorf("ForEach visited %v, want %v", got, want)
		}
	})
	t.Run("for-each stops when the callback returns false", func(t *testing.T) {
		var got []int
		s.ForEach(func(i int) bool { got = append(got, i); return i < 63 })
		if !slices.Equal(got, want[:3]) {
			t.Errorf("ForEach visited %v, want %v", got, want[:3])
		}
	})
	t.Run("all yields members in increasing order", func(t *testing.T) {
		if got := slices.Collect(s.All()); !slices.Equal(got, want) {
			t.Errorf("All yielded %v, want %v", got, want)
		}
	})
	t.Run("breaking out of a range over all stops it", func(t *testing.T) {
		var got []int
		for i := range s.All() {
			if i > 64 {
				break
			}
			got = append(got, i)
		}
		if !slices.Equal(got, want[:4]) {
			t.Errorf("range visited %v, want %v", got, want[:4])
		}
	})
	t.Run("an empty set yields nothing", func(t *testing.T) {
		for i := range New(300).All() {
			t.Errorf("yielded %d", i)
		}
		New(0).ForEach(func(i int) bool { t.Errorf("visited %d", i); return true })
	})
}

func TestCloneAndString(t *testing.T) {
	t.Run("a clone is independent of the original", func(t *testing.T) {
		s := of(100, 1, 99)
		c := s.Clone()
		c.Set(50)
		s.Clear(1)
		if got := members(c); !slices.Equal(got, []int{1, 50, 99}) || c.Len() != 100 {
			t.Errorf("clone: members %v, Len %d", got, c.Len())
		}
		if got := members(s); !slices.Equal(got, []int{99}) {
			t.Errorf("original: members %v", got)
		}
	})
	t.Run("string lists members in braces", func(t *testing.T) {
		if got := of(100, 0, 5, 64).String(); got != "{0 5 64}" {
			t.Errorf("String = %q", got)
		}
		if got := New(10).String(); got != "{}" {
			t.Errorf("String of an empty set = %q", got)
		}
	})
}
