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

package simulate

import (
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
)

// Fork is a simulation over a snapshot: pods placed into it take their
// devices and node resources, and later questions see them. Levels nest
// as in cluster-autoscaler's ClusterSnapshot: Fork opens one, Revert drops
// what was placed since, Commit keeps it. A Fork is for one goroutine at a
// time; forks of one snapshot are independent.
type Fork struct {
	snap *Snapshot
	// alloc's allocated devices are the snapshot's and the placements'
	// (allocator.WhatIf Take, one State per placement).
	alloc *allocator.Allocator
	// added is what placements take of each node.
	added map[string]nodeUsage
	log   []Placement
	// levels are the open levels, innermost last.
	levels []level
}

// level is the state a Revert goes back to.
type level struct {
	alloc  *allocator.Allocator
	placed int
}

// Fork starts a simulation over the snapshot.
func (s *Snapshot) Fork() *Fork {
	return &Fork{snap: s, alloc: s.Allocator(s.state), added: map[string]nodeUsage{}}
}

// Fork opens a level.
func (f *Fork) Fork() {
	f.levels = append(f.levels, level{alloc: f.alloc, placed: len(f.log)})
}

// Revert drops what was placed since the innermost open level and closes
// it; with no level open, it drops every placement.
func (f *Fork) Revert() {
	to := level{alloc: f.snap.Allocator(f.snap.state)}
	if n := len(f.levels); n > 0 {
		to, f.levels = f.levels[n-1], f.levels[:n-1]
	}
	for _, p := range f.log[to.placed:] {
		f.added[p.Node] = f.added[p.Node].minus(p.demand)
	}
	f.alloc, f.log = to.alloc, f.log[:to.placed]
}

// Commit closes the innermost open level, keeping what was placed since.
func (f *Fork) Commit() {
	if n := len(f.levels); n > 0 {
		f.levels = f.levels[:n-1]
	}
}

// Placements are the pods placed into the fork, in order.
func (f *Fork) Placements() []Placement { return f.log }

// used is what the snapshot's pods and the placements take of node.
func (f *Fork) used(node string) nodeUsage {
	u, added := f.snap.used[node], f.added[node]
	return nodeUsage{requested: u.requested.Plus(added.requested), pods: u.pods + added.pods}
}

// commit places p: its devices are taken, its node resources used.
func (f *Fork) commit(p Placement) {
	if len(p.results) > 0 {
		take := make([]*resourceapi.AllocationResult, len(p.results))
		for i := range p.results {
			take[i] = &p.results[i]
		}
		f.alloc = f.alloc.WhatIf(allocator.WhatIf{Take: take})
	}
	f.added[p.Node] = f.added[p.Node].plus(p.demand)
	f.log = append(f.log, p)
}
