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

// The operations in this file write their result into the receiver, never
// change its length, and never allocate. Operands may be the receiver
// itself. Missing operand words read as zero; see the package documentation.

// ClearAll removes every member of s.
func (s *Set) ClearAll() {
	clear(s.words)
}

// SetAll adds every index in [0, Len()) to s.
func (s *Set) SetAll() {
	w := s.words
	for i := range w {
		w[i] = ^uint64(0)
	}
	s.trim()
}

// CopyFrom makes the members of s those of a, truncated to Len().
func (s *Set) CopyFrom(a *Set) {
	n := copy(s.words, a.words)
	clear(s.words[n:])
	s.trim()
}

// And sets s to the intersection of a and b, truncated to Len().
func (s *Set) And(a, b *Set) {
	dst := s.words
	n := min(len(dst), len(a.words), len(b.words))
	d, aw, bw := dst[:n], a.words[:n], b.words[:n]
	for i := range d {
		d[i] = aw[i] & bw[i]
	}
	clear(dst[n:])
	s.trim()
}

// AndNot sets s to the members of a that are not in b, truncated to Len().
func (s *Set) AndNot(a, b *Set) {
	dst := s.words
	na := min(len(dst), len(a.words))
	n := min(na, len(b.words))
	d, aw, bw := dst[:n], a.words[:n], b.words[:n]
	for i := range d {
		d[i] = aw[i] &^ bw[i]
	}
	copy(dst[n:na], a.words[n:na])
	clear(dst[na:])
	s.trim()
}

// Or sets s to the union of a and b, truncated to Len().
func (s *Set) Or(a, b *Set) {
	long, short := a.words, b.words
	if len(long) < len(short) {
		long, short = short, long
	}
	dst := s.words
	nl := min(len(dst), len(long))
	n := min(nl, len(short))
	d, lw, sw := dst[:n], long[:n], short[:n]
	for i := range d {
		d[i] = lw[i] | sw[i]
	}
	copy(dst[n:nl], long[n:nl])
	clear(dst[nl:])
	s.trim()
}
