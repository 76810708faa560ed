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

package cowbits

import (
	"fmt"
	"iter"
	"math/bits"
	"slices"
	"sync/atomic"
)

const (
	chunkShift = 12 // 4096 bits per chunk
	chunkBits  = 1 << chunkShift
	chunkWords = chunkBits / 64
)

// chunk holds chunkBits bits and who may write them in place.
type chunk struct {
	words [chunkWords]uint64
	owner atomic.Pointer[Set]
}

// Set is a set of indexes in [0, Len()). The zero value is an empty set of
// length 0.
type Set struct {
	chunks []*chunk
	n      int
}

// New returns an empty set of length n. It panics if n is negative.
func New(n int) *Set {
	if n < 0 {
		panic(fmt.Sprintf("cowbits: negative length %d", n))
	}
	s := &Set{chunks: make([]*chunk, (n+chunkBits-1)>>chunkShift), n: n}
	for i := range s.chunks {
		s.chunks[i] = &chunk{}
		s.chunks[i].owner.Store(s)
	}
	return s
}

// Len returns the length of s: indexes 0..Len()-1 are valid.
func (s *Set) Len() int { return s.n }

// Has reports whether i is in s; indexes outside [0, Len()) never are.
func (s *Set) Has(i int) bool {
	if uint(i) >= uint(s.n) {
		return false
	}
	return s.chunks[i>>chunkShift].words[(i>>6)&(chunkWords-1)]&(1<<(uint(i)&63)) != 0
}

// Set adds i to s. It panics unless 0 <= i < Len().
func (s *Set) Set(i int) {
	if !s.Has(i) { // a member already: nothing to write, the chunk stays shared
		*s.word(i) |= 1 << (uint(i) & 63)
	}
}

// Clear removes i from s. It panics unless 0 <= i < Len().
func (s *Set) Clear(i int) {
	if s.Has(i) {
		*s.word(i) &^= 1 << (uint(i) & 63)
	} else if uint(i) >= uint(s.n) {
		panic(fmt.Sprintf("cowbits: index %d out of range [0, %d)", i, s.n))
	}
}

// word returns i's word for writing, copying its chunk first unless s owns
// it.
func (s *Set) word(i int) *uint64 {
	if uint(i) >= uint(s.n) {
		panic(fmt.Sprintf("cowbits: index %d out of range [0, %d)", i, s.n))
	}
	c := s.chunks[i>>chunkShift]
	if c.owner.Load() != s {
		own := &chunk{words: c.words}
		own.owner.Store(s)
		s.chunks[i>>chunkShift] = own
		c = own
	}
	return &c.words[(i>>6)&(chunkWords-1)]
}

// Word returns the w-th word of s: bit b of it is index w*64+b. Words
// beyond the set are zero.
func (s *Set) Word(w int) uint64 {
	if w < 0 || w >= len(s.chunks)*chunkWords {
		return 0
	}
	return s.chunks[w/chunkWords].words[w%chunkWords]
}

// ClearWords removes from s, word by word, the members mask(w) gives for
// word w (bit b: index w*64+b). Only chunks that change are copied.
func (s *Set) ClearWords(mask func(w int) uint64) {
	for w := range len(s.chunks) * chunkWords {
		if m := mask(w) & s.chunks[w/chunkWords].words[w%chunkWords]; m != 0 {
			*s.word(w << 6) &^= m
		}
	}
}

// Clone returns a set with the same members and length. Both share every
// chunk until one of them writes it.
func (s *Set) Clone() *Set {
	for _, c := range s.chunks {
		if c.owner.Load() != nil {
			c.owner.Store(nil)
		}
	}
	return &Set{chunks: slices.Clone(s.chunks), n: s.n}
}

// Equal reports whether s and b have the same members; lengths are not
// compared.
func (s *Set) Equal(b *Set) bool {
	var zero [chunkWords]uint64
	words := func(x *Set, i int) *[chunkWords]uint64 {
		if i < len(x.chunks) {
			return &x.chunks[i].words
		}
		return &zero
	}
	for i := range max(len(s.chunks), len(b.chunks)) {
		if *words(s, i) != *words(b, i) {
			return false
		}
	}
	return true
}

// All yields the members of s in increasing order.
func (s *Set) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for ci, c := range s.chunks {
			for wi, w := range c.words {
				for w != 0 {
					b := bits.TrailingZeros64(w)
					if !yield(ci<<chunkShift | wi<<6 | b) {
						return
					}
					w &= w - 1
				}
			}
		}
	}
}
