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

// Package bitset provides fixed-width sets of small, dense, non-negative
// integers (device indexes in the DRA allocator), stored one bit per index
// in 64-bit words.
//
// It is the bottom layer of the scheduler's Filter hot path, so every query
// and every in-place operation works a word (64 indexes) at a time and
// allocates nothing. Only New, Clone, String and a Resize or Grow beyond
// Cap allocate.
//
// # Representation
//
// A Set is a struct holding a []uint64 and a logical length in bits, rather
// than a bare []uint64. A bare slice knows its length only in whole words,
// so a set of 65 devices would silently accept, count and iterate indexes
// 65..127; with an explicit length Set, Clear and Resize can reject or drop
// indexes past the last device, and SetAll can fill exactly Len bits. The
// price is one int per set. Methods take a pointer receiver and binary
// operations take *Set operands, so nothing is copied per call. The zero
// Set is an empty set of length 0, ready to use.
//
// # Invariants
//
//   - len(words) == ceil(Len/64): the slice never holds a word that lies
//     wholly past the logical length.
//   - Every bit at an index >= Len is zero. Set and Clear touch only
//     indexes below Len; Resize and Grow clear whatever they drop or add;
//     SetAll, And, AndNot, Or and CopyFrom mask the receiver's last word,
//     because an operand longer than the receiver may carry bits there.
//     Count, Any, NextSet, Equal, the iterators and the fused counts rely
//     on it and never mask.
//   - Operations never change the receiver's length. Only Resize and Grow
//     do.
//
// # Different lengths
//
// Operands may have any length. A word an operand does not have reads as
// zero, and results are truncated to the receiver's length. So s.And(a, b)
// with a longer than s keeps only indexes below s.Len(), and s.Or(a, b) with
// a shorter than s leaves s's upper words equal to b's. Queries that compare
// two sets (AndCount, AndNotCount, Intersects, Equal) likewise treat missing
// words as zero: Equal compares members, not lengths. Call Resize first when
// a result must cover a longer operand.
//
// # Ranges
//
// A sub-range [lo, hi) of indexes, such as one node's devices, is read with
// CountRange, or by iterating NextSet from lo until an index reaches hi. A
// separate view type is not provided: an unaligned view would have to shift
// every word it reads.
//
// A Set is not safe for concurrent mutation. Concurrent readers are fine.
package bitset
