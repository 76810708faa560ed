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

import "math/bits"

// The queries in this file never allocate. The fused counts and tests
// (AndCount, AndNotCount, Intersects) combine two sets word by word without
// materialising the combined set.

// Count returns the number of members of s.
func (s *Set) Count() int {
	c := 0
	for _, w := range s.words {
		c += bits.OnesCount64(w)
	}
	return c
}

// Any reports whether s has at least one member.
func (s *Set) Any() bool {
	for _, w := range s.words {
		if w != 0 {
			return true
		}
	}
	return false
}

// IsEmpty reports whether s has no members.
func (s *Set) IsEmpty() bool { return !s.Any() }

// NextSet returns the smallest member of s that is >= from, and true; or
// -1 and false if there is none. A negative from is treated as 0. To visit
// the members in [lo, hi):
//
//	for i, ok := s.NextSet(lo); ok && i < hi; i, ok = s.NextSet(i + 1) { ... }
func (s *Set) NextSet(from int) (int, bool) {
	from = max(from, 0)
	if from >= s.n {
		return -1, false
	}
	wi := from >> wordShift
	if w := s.words[wi] >> (uint(from) & wordMask); w != 0 {
		return from + bits.TrailingZeros64(w), true
	}
	for wi++; wi < len(s.words); wi++ {
		if w := s.words[wi]; w != 0 {
			return wi<<wordShift + bits.TrailingZeros64(w), true
		}
	}
	return -1, false
}

// AndCount returns the number of members s and b have in common, that is
// the Count of their intersection.
func (s *Set) AndCount(b *Set) int {
	n := min(len(s.words), len(b.words))
	sw, bw := s.words[:n], b.words[:n]
	c := 0
	for i := range sw {
		c += bits.OnesCount64(sw[i] & bw[i])
	}
	return c
}

// AndNotCount returns the number of members of s that are not in b.
func (s *Set) AndNotCount(b *Set) int {
	n := min(len(s.words), len(b.words))
	sw, bw := s.words[:n], b.words[:n]
	c := 0
	for i := range sw {
		c += bits.OnesCount64(sw[i] &^ bw[i])
	}
	for _, w := range s.words[n:] {
		c += bits.OnesCount64(w)
	}
	return c
}

// Intersects reports whether s and b have at least one member in common.
// It stops at the first common word.
func (s *Set) Intersects(b *Set) bool {
	n := min(len(s.words), len(b.words))
	sw, bw := s.words[:n], b.words[:n]
	for i := range sw {
		if sw[i]&bw[i] != 0 {
			return true
		}
	}
	return false
}

// Equal reports whether s and b have the same members. Lengths are not
// compared: a missing word reads as zero.
func (s *Set) Equal(b *Set) bool {
	short, long := s.words, b.words
	if len(short) > len(long) {
		short, long = long, short
	}
	lw := long[:len(short)]
	for i := range short {
		if short[i] != lw[i] {
			return false
		}
	}
	for _, w := range long[len(short):] {
		if w != 0 {
			return false
		}
	}
	return true
}

// CountRange returns the number of members of s in [lo, hi). The range is
// clipped to [0, Len()); an empty or inverted range counts 0.
func (s *Set) CountRange(lo, hi int) int {
	lo, hi = max(lo, 0), min(hi, s.n)
	if lo >= hi {
		return 0
	}
	first, last := lo>>wordShift, (hi-1)>>wordShift
	loMask := ^uint64(0) << (uint(lo) & wordMask)
	hiMask := ^uint64(0) >> (wordMask - uint(hi-1)&wordMask)
	if first == last {
		return bits.OnesCount64(s.words[first] & loMask & hiMask)
	}
	c := bits.OnesCount64(s.words[first]&loMask) + bits.OnesCount64(s.words[last]&hiMask)
	for _, w := range s.words[first+1 : last] {
		c += bits.OnesCount64(w)
	}
	return c
}

// Word returns the w-th word of s: bit b of it is index w*64+b. Words
// beyond the set are zero.
func (s *Set) Word(w int) uint64 {
	if w < 0 || w >= len(s.words) {
		return 0
	}
	return s.words[w]
}
