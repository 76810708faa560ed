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
	"iter"
	"math/bits"
)

// ForEach calls f with each member of s in increasing order until f returns
// false. It does not allocate. f must not resize s; changing which members
// s has is allowed, but the word being visited has already been read, so
// a change to it is seen only from the next word on.
func (s *Set) ForEach(f func(i int) bool) {
	for wi, w := range s.words {
		base := wi << wordShift
		for w != 0 {
			if !f(base + bits.TrailingZeros64(w)) {
				return
			}
			w &= w - 1
		}
	}
}

// All returns an iterator over the members of s in increasing order, for
// use as "for i := range s.All()". Ranging over it does not allocate. The
// same rules as for ForEach apply to changing s during the loop.
func (s *Set) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for wi, w := range s.words {
			base := wi << wordShift
			for w != 0 {
				if !yield(base + bits.TrailingZeros64(w)) {
					return
				}
				w &= w - 1
			}
		}
	}
}
