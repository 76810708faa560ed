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

// Package eviction decides what evicting pods from a node gives back of
// their devices, which pods are evicted together, and how costly a set
// of victims is: one rule each, which
// DRAAllocator's preemption (dry runs, a pod group's placements) and
// kubectl dra explain's preemption report both call, so that the two can
// never disagree about a victim.
//
// # Design
//
// A claim is given back when every consumer in its reservedFor is an
// evicted pod and no pod staying on the node uses it. Claims reserved for
// anything but pods (a PodGroup) are never given back, nor are claims a
// staying pod shares. The callers look claims up their own way (the
// scheduler's DRA manager with allocations in flight; a snapshot of the
// API) behind Claims. Which devices of a given-back allocation are local
// to the node is the allocator's business (allocator.WhatIf).
//
// Groups.Units says which pods go as one, as DefaultPreemption's victims
// do with GenericWorkload: a pod alone, or every scheduled pod of a
// PodGroup (or CompositePodGroup) whose disruptionMode is All, at its
// hierarchy's root's priority; MoreImportant orders units as its
// MoreImportantVictim does.
//
// Cost orders victim sets as DefaultPreemption orders its candidates
// (CompareCost); the callers build it from their victims (pods, or
// upstream's preemption units) and say when each started.
//
// # Invariants
//
//   - Each claim is counted once, however many evicted pods use it.
//   - The result depends only on the pods and claims passed in.
package eviction
