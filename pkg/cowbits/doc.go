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

// Package cowbits is a bit set whose copies share storage until written:
// the allocated-device sets of allocator.State, which a preemption dry run
// or a tracker update copies whole to change a few bits of one node.
//
// Design: the bits live in chunks of 4096; a Set is a list of chunk
// pointers. Clone copies the list and gives up ownership of every chunk on
// both sides, so the first write to a chunk by either set copies that
// chunk (512 bytes) and owns the copy. A clone of a set of 40,000 bits
// costs 10 pointers instead of 5 KB, and changing one node's devices
// copies a chunk or two.
//
// Invariants: a chunk is written in place only by the set that owns it,
// and a chunk shared by two sets is owned by neither; Clone may run
// concurrently with reads and with other Clones of the same set (ownership
// is atomic), but not with writes to it, like any set.
package cowbits
