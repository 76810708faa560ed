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

package allocator

import (
	"sync"
	"sync/atomic"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// summary is what the answer from counts (count.go) needs of one selection: the
// matches as inventory indexes and view positions, and whether they are
// all plain. Summaries live in dense per-chain tables indexed by view slot
// and are carved from per-chain slabs, so that checking node after node
// reads adjacent memory instead of chasing the view, its memo and the
// selection's bit sets for every node.
type summary struct {
	// serial is the ID.Serial of the view the summary is for.
	serial uint64
	// plain: no candidate failed and every match is plain (isPlain).
	plain bool
	// partitions: no candidate failed, every match is plain or a plain
	// partition (isPlainPartition), and some are partitions.
	partitions bool
	// invalidPools copies the view's InvalidPools.
	invalidPools bool
	// idx and pos are the inventory indexes and view positions of the
	// matches, in search order.
	idx, pos []int32
}

// chainSummaries holds one selector chain's summaries by view slot.
// Readers load without locking; writers hold mu.
type chainSummaries struct {
	slots atomic.Pointer[[]atomic.Pointer[summary]]

	mu   sync.Mutex
	slab []summary
	ints []int32
	// stored counts the summaries stored, so that slabs start small for
	// chains asked about few nodes and grow to the full size.
	stored int
}

// Slab sizes: summaries and index words are allocated up to this many at
// a time, starting at a sixteenth.
const (
	summarySlab = 256
	intSlab     = 4096
)

// slabSize is the next slab's size: the summaries stored so far, between
// a sixteenth of full and full.
func slabSize(full, stored int) int { return min(full, max(full/16, stored)) }

// lookup returns the summary for the view with that ID, or nil.
func (cs *chainSummaries) lookup(id inventory.ViewID) *summary {
	t := cs.slots.Load()
	if t == nil || int(id.Slot) >= len(*t) {
		return nil
	}
	s := (*t)[id.Slot].Load()
	if s == nil || s.serial != id.Serial {
		return nil
	}
	return s
}

// store summarizes the chain's selection on view and keeps the summary.
// It also returns the bytes by which the table grew, if it did.
func (cs *chainSummaries) store(view *inventory.NodeView, sel *selection) (*summary, int64) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.slab) == 0 {
		cs.slab = make([]summary, slabSize(summarySlab, cs.stored))
	}
	s := &cs.slab[0]
	cs.slab = cs.slab[1:]
	cs.stored++
	n := sel.match.Count()
	*s = summary{serial: view.ID.Serial, plain: !sel.failed.Any(), invalidPools: view.InvalidPools,
		idx: cs.take(n), pos: cs.take(n)}
	// Until a match says otherwise, both hold exactly when no candidate
	// failed.
	plainOrPartition := s.plain
	for i := range sel.match.All() {
		d := view.Devices[i]
		s.idx = append(s.idx, int32(d.Index))
		s.pos = append(s.pos, int32(i))
		if !isPlain(d) {
			s.plain = false
			// A partition's fit depends on its peers' groups where the
			// pool uses compatibility groups: only the search knows.
			plainOrPartition = plainOrPartition && isPlainPartition(d) && !view.Pools[view.PoolOf[i]].CompatibilityGroups
		}
	}
	s.partitions = plainOrPartition && !s.plain
	var grown int64
	t := cs.slots.Load()
	if t == nil || int(view.ID.Slot) >= len(*t) {
		var cur []atomic.Pointer[summary]
		if t != nil {
			cur = *t
		}
		next := make([]atomic.Pointer[summary], max(2*len(cur), int(view.ID.Slot)+1, 64))
		grown += 8 * int64(len(next)-len(cur))
		for i := range cur {
			next[i].Store(cur[i].Load())
		}
		cs.slots.Store(&next)
		t = &next
	}
	(*t)[view.ID.Slot].Store(s)
	return s, grown
}

// take returns an empty slice with room for n words from the slab.
func (cs *chainSummaries) take(n int) []int32 {
	if n > intSlab/4 {
		return make([]int32, 0, n)
	}
	if cap(cs.ints)-len(cs.ints) < n {
		cs.ints = make([]int32, 0, max(n, slabSize(intSlab, 8*cs.stored)))
	}
	start := len(cs.ints)
	cs.ints = cs.ints[:start+n]
	return cs.ints[start : start : start+n]
}
