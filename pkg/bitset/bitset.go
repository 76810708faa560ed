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
	"math/bits"
	"slices"
	"strconv"
)

const (
	wordBits  = 64
	wordShift = 6 // log2(wordBits)
	wordMask  = wordBits - 1
)

// Set is a set of indexes in [0, Len()), one bit per index. See the package
// documentation for the invariants every method maintains. The zero value
// is an empty set of length 0.
type Set struct {
	words []uint64
	n     int // logical length in bits
}

// New returns an empty set of length n. It panics if n is negative.
func New(n int) *Set {
	if n < 0 {
		panic("bitset: negative length " + strconv.Itoa(n))
	}
	return &Set{words: make([]uint64, wordsFor(n)), n: n}
}

// wordsFor returns the number of words that hold n bits.
func wordsFor(n int) int { return (n + wordMask) >> wordShift }

// Len returns the logical length of s in bits: indexes 0..Len()-1 are valid.
func (s *Set) Len() int { return s.n }

// Cap returns the length, in bits, s can be resized to without allocating.
func (s *Set) Cap() int { return cap(s.words) * wordBits }

// Resize sets the length of s to n bits, keeping the members below
// min(n, Len()). Indexes added by growing start clear; members at n or above
// are dropped. It allocates only when n exceeds Cap, and then grows the
// storage geometrically so that repeatedly adding one device is amortised.
// It panics if n is negative.
func (s *Set) Resize(n int) {
	if n < 0 {
		panic("bitset: negative length " + strconv.Itoa(n))
	}
	old, nw := len(s.words), wordsFor(n)
	if nw > old {
		// slices.Grow reallocates only beyond cap; words between the old
		// length and the old cap may hold bits dropped by an earlier
		// shrink, so clear them either way.
		s.words = slices.Grow(s.words, nw-old)[:nw]
		clear(s.words[old:])
	} else {
		s.words = s.words[:nw]
	}
	s.n = n
	s.trim()
}

// Grow makes s at least n bits long, keeping all members. It does nothing if
// Len() >= n.
func (s *Set) Grow(n int) {
	if n > s.n {
		s.Resize(n)
	}
}

// trim clears the bits of the last word at or beyond s.n.
func (s *Set) trim() {
	if r := s.n & wordMask; r != 0 {
		s.words[len(s.words)-1] &= 1<<r - 1
	}
}

// Set adds i to s. It panics unless 0 <= i < Len().
func (s *Set) Set(i int) {
	if uint(i) >= uint(s.n) {
		panic(rangeError{i, s.n})
	}
	s.words[i>>wordShift] |= 1 << (uint(i) & wordMask)
}

// Clear removes i from s. It panics unless 0 <= i < Len().
func (s *Set) Clear(i int) {
	if uint(i) >= uint(s.n) {
		panic(rangeError{i, s.n})
	}
	s.words[i>>wordShift] &^= 1 << (uint(i) & wordMask)
}

// Has reports whether i is in s. Indexes outside [0, Len()) are never in s.
func (s *Set) Has(i int) bool {
	if uint(i) >= uint(s.n) {
		return false
	}
	return s.words[i>>wordShift]&(1<<(uint(i)&wordMask)) != 0
}

// rangeError is the panic value of Set and Clear for an index outside
// [0, Len()). Panicking with a plain value, rather than calling a
// formatting function, keeps Set and Clear within the inlining budget.
type rangeError struct{ i, n int }

func (e rangeError) Error() string {
	return fmt.Sprintf("bitset: index %d out of range [0:%d]", e.i, e.n)
}

// Clone returns a new set with the length and members of s. It allocates.
func (s *Set) Clone() *Set {
	return &Set{words: slices.Clone(s.words), n: s.n}
}

// String formats s as its members in increasing order, like "{1 5 64}". It
// allocates and is meant for tests and debugging.
func (s *Set) String() string {
	b := []byte{'{'}
	for wi, w := range s.words {
		for w != 0 {
			if len(b) > 1 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, int64(wi<<wordShift+bits.TrailingZeros64(w)), 10)
			w &= w - 1
		}
	}
	return string(append(b, '}'))
}
