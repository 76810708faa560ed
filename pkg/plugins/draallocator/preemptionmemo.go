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

package draallocator

import (
	"maps"
	"sync"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// A preemptor's cycle asks the same questions on node after node: Filter
// on every node whether preemption may help (preemptionMayHelp), then
// DefaultPreemption's dry runs on hundreds of nodes, removing and giving
// back the same pods step after step. preemptionMemo keeps what the first
// answers share, for one cycle (in stateData, which every copy of the
// cycle state shares; dry runs run in parallel); dryRunReleases keeps
// what one node's dry run shares, and the plugin's kept placements
// (keptPlacements, prefilter.go) what cycles share.
type preemptionMemo struct {
	// vacatedOnce builds vacatedAlloc: the cycle's allocator with every
	// node's own devices free.
	vacatedOnce  sync.Once
	vacatedAlloc *allocator.Allocator
}

// vacated returns alloc with every node's own devices free
// (allocator.WhatIf's VacateNodes), built once: on any node it answers as
// alloc would with that node vacated, without a copy of the allocated
// devices per node. alloc must be the same on every call: the cycle's.
func (m *preemptionMemo) vacated(alloc *allocator.Allocator) *allocator.Allocator {
	m.vacatedOnce.Do(func() { m.vacatedAlloc = alloc.WhatIf(allocator.WhatIf{VacateNodes: true}) })
	return m.vacatedAlloc
}

// dryRunReleases is what the pods a dry run removed from one node free
// there (eviction.ReleasesBy), found once per widest set of removed pods:
// DefaultPreemption removes every lower-priority pod, asks, then gives
// the pods back one at a time and asks again, each time for a subset of
// the first set, which frees exactly the releases the subset still frees
// (eviction.Release.FreedBy). It holds only while the dry run adds no
// pod, and is never changed once made, so clones of the dry run share
// it.
type dryRunReleases struct {
	removed  map[types.UID]*v1.Pod
	releases []eviction.Release
}

// newDryRunReleases records releases as what the pods of removed free.
func newDryRunReleases(removed map[types.UID]*v1.Pod, releases []eviction.Release) *dryRunReleases {
	return &dryRunReleases{removed: maps.Clone(removed), releases: releases}
}

// cover reports whether r answers for removed: every pod of removed was
// among those r was found for.
func (r *dryRunReleases) cover(removed map[types.UID]*v1.Pod) bool {
	if r == nil || len(removed) > len(r.removed) {
		return false
	}
	for uid := range removed {
		if _, ok := r.removed[uid]; !ok {
			return false
		}
	}
	return true
}

// freedBy returns the allocations that removing only the pods of removed
// (which r covers) frees.
func (r *dryRunReleases) freedBy(removed map[types.UID]*v1.Pod) []*resourceapi.AllocationResult {
	out := make([]*resourceapi.AllocationResult, 0, len(r.releases))
	for _, rel := range r.releases {
		if rel.FreedBy(removed) {
			out = append(out, rel.Allocation)
		}
	}
	return out
}
