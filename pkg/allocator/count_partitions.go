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

import "github.com/dra-scheduler/dra-scheduler/pkg/inventory"

// Answering for one partition without a search.
//
// A request for one device among partitions (Dynamic MIG: one 1g.10gb
// slice among a node's profiles) is not interchangeable: a partition
// fits only if its pool's counters have room for it. But a single device
// competes with nothing else in the call, so the search takes the first
// free match whose own consumption fits what the allocated devices left —
// which the pool's counter snapshot already records (poolCounters.blocked).
// For claims of exactly one device, whose matches are plain or plain
// partitions, Fits and Allocate read that answer off the summary. Anything
// else — several devices sharing counters, a pool with negative
// consumption, a persisted share — takes the search.

// isPlainPartition reports a device that is plain but for consuming
// counters, each counter set named once (so that checking each
// consumption alone is checking their sum).
func isPlainPartition(d *inventory.Device) bool {
	spec := d.Spec
	if len(spec.ConsumesCounters) == 0 || !plainButCounters(d) {
		return false
	}
	for i, use := range spec.ConsumesCounters {
		for _, other := range spec.ConsumesCounters[:i] {
			if other.CounterSet == use.CounterSet {
				return false
			}
		}
	}
	return true
}

// firstPartition finds, for a plan of one device without constraint on a
// summary of partitions, the position in s.idx of the device the search
// would take, -1 if none fits; ok is false when it cannot tell.
func (a *Allocator) firstPartition(q *countPlan, s *summary, view *inventory.NodeView) (k int, ok bool) {
	if !s.partitions || q.total != 1 || q.covered != 0 || !a.features.PartitionableDevices {
		return -1, false
	}
	st := a.state
	capacity := a.features.ConsumableCapacity
	// Matches of one pool are adjacent in search order: its counters are
	// looked up once per run of them.
	var (
		pool *inventory.Pool
		pc   poolCounters
	)
	for k, i := range s.idx {
		if st.dedicated.Has(int(i)) {
			continue
		}
		if capacity && st.shared.Has(int(i)) {
			return -1, false
		}
		d := view.Devices[s.pos[k]]
		if len(d.Spec.ConsumesCounters) == 0 {
			return k, true
		}
		if p := view.Pools[view.PoolOf[s.pos[k]]]; p != pool {
			pool, pc = p, a.available(p)
		}
		if !pc.blockedKnown {
			return -1, false
		}
		if pc.overConsumed || pc.blocked.has(int(i)) {
			continue
		}
		return k, true
	}
	return -1, true
}
