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

// Package allocator decides which DRA devices (resource.k8s.io/v1) satisfy
// a pod's ResourceClaims on a node.
//
// In its default FirstFit policy it returns exactly what the "incubating"
// allocator of k8s.io/dynamic-resource-allocation/structured (Kubernetes
// 1.37) returns for the same inputs — same devices in the same order, same
// node selector, same configuration, same errors — so it is a drop-in
// replacement and every test can run the same cases through both. The
// behaviour it reproduces is specified in docs/design/upstream-allocator.md;
// section numbers in comments (§5.2) refer to that document.
//
// # Stages
//
// One Fits or Allocate call (Allocator.run) goes through these stages, each
// in its own file, in this order; the fast paths specialize a stage, they
// never re-enter an earlier one:
//
//  1. Prepare the claims (prepare.go): validate every request, resolve
//     classes, compile selectors and decide whether the claims qualify
//     for an answer from counts. Node-independent, so done once per pod
//     (one claims slice, many nodes) and kept in prepared.
//  2. Select the candidates (select.go): per (selector chain, NodeView)
//     the chain's outcome on every candidate device, as bit sets — match,
//     failed — kept in the view's memo (memo.go) and shared by every pod
//     asking the same question about that node. Each CEL selector is
//     compiled once and evaluated at most once per device version
//     (matcher.go), on a CEL input built per device version and kept while
//     the device is among the 4096 most recently evaluated.
//  3. Answer from counts (count.go) where the claims allow it: for claims
//     of interchangeable devices (one chain, ExactCount, at most one
//     matchAttribute, plain candidates) whether they fit is whether enough
//     matches are free, read from a per-(chain, view) summary in a dense
//     table indexed by the view's slot (count_summary.go): one map slot, one
//     table entry and a few words, never the device objects. A claim of one
//     partition (Dynamic MIG) is answered from the pool counter snapshot's
//     list of partitions that no longer fit (count_partitions.go). The
//     search is exhaustive, so the answer is the search's.
//  4. Pick (pick.go): where counts say the claims fit, FirstFit's choice
//     is read off the same list (firstFitPositions); for a single claim of
//     a few devices the results are built on the stack (resultsOnStack),
//     otherwise the call's results are filled as the search would
//     (takeFirstFit).
//  5. Search (search.go), when no earlier stage answered: a depth-first
//     search in upstream's order over the set bits of each request's
//     candidates, with the counter (counters.go), capacity (capacity.go)
//     and constraint (constraints.go) bookkeeping pooled in a call
//     (call.go); a node that cannot fit costs no allocation. A claim
//     with the spec of the one before it (a twin, twins.go) picks at or
//     after that claim's pick: the same first solution, without trying
//     every ordering of identical claims.
//  6. Build the results (results.go): allocation results, configuration
//     and node selectors, fresh objects that alias no pooled state.
//
// Around them: slices are interned once into an inventory.Inventory (dense
// device indexes, parsed node selectors, a NodeView per node — pools and
// candidate devices in search order — cached until a slice or the node's
// labels change); the allocated devices are a State (state.go), kept up
// to date by a Tracker (tracker.go; the State it hands out,
// trackerstate.go) in long-lived callers, and changed without being
// modified by a WhatIf (whatif.go: Allocator.WhatIf turns a preemption
// dry run's vacated node, released and taken devices into an allocator
// over a new State; States share unchanged bits, pkg/cowbits); what is
// kept for selectors is bounded (cache.go: past cacheLimits — 4096
// expressions, 4096 chains, 256 MiB estimated by default — the least
// recently used expressions and chains are evicted, their results freed,
// and view memos drop an evicted chain's selections the next time they
// are extended; chain numbers are never reused, so a request prepared
// before an eviction stays correct). ExplainBefore and Diagnose (explain.go,
// diagnose.go) re-run stages 2 and 5 on a node that does not fit to say
// why. Tracker.Compare (trackercheck.go, countcheck.go, statecheck.go) is
// the consistency check of a long-lived Tracker: its claims against the
// API's, its in-flight allocations against the scheduler's, its counts
// against a recount and its State and cached pool counters against a
// rebuild, each difference a drift.Difference.
//
// # Alpha features
//
// With OptionalNodeOperations (DRAOptionalNodeOperations) a device whose
// slice skips node operations is taken only on a node that declares the
// feature, and its result copies the slice's list (nodeoperations.go);
// such devices are never "plain", so counts never answer for them. These
// cases are compared with upstream's experimental allocator, the one
// Kubernetes runs with that gate on. With ListTypeAttributes
// (DRAListTypeAttributes) matchAttribute and distinctAttribute compare
// values as sets (constraints_sets.go): an element common to all devices,
// pairwise disjoint sets; the answer from counts never covers a list. With
// DerivedAttributes (DRADerivedAttributes) a request's derived attributes
// are evaluated by CEL when a constraint first compares them (derived.go);
// requests with derivations never take the answer from counts. With
// CompatibilityGroups (DRADeviceCompatibilityGroups) the inventory keeps
// slices whose devices name compatibility groups, and the search admits a
// device on a counter set only if it shares a group with everything
// already there (compatibility.go); partitions of such pools never take
// the answer from counts. Kubernetes runs upstream's experimental
// allocator whenever one of these alpha features is on; the differential
// tests compare with it.
//
// # Policies
//
// FirstFit (the default, and the differential tests') is upstream-exact.
// Packing walks the same candidates in another order — partitions of partly used
// GPUs first, then the smallest matching device — so it picks another
// valid allocation but never changes whether one exists.
//
// # API
//
// New is the one constructor: an allocator over a long-lived inventory and
// matcher, with a State of allocated devices (NewState translates
// upstream's AllocatedState; a Tracker keeps one up to date). WithState
// and WhatIf derive allocators over other States and share what the first
// prepared; WithPlacements lets allocators of one inventory generation
// share where what-ifs' allocations land (Placements), across a
// scheduler's cycles. WithCrossClaimConstraints derives one whose calls
// also honour constraints across claims, devices of allocated claims
// counting as fixed choices (crossclaim.go): one more constraint tracker
// in the search, never an answer from counts, no twins. Methods ending in Within take a timeout
// (upstream's filter timeout), ExplainBefore a deadline. The differential tests build ours
// with upstream's NewAllocator signature (export_test.go), over a private
// inventory of the given slices.
//
// # Gangs
//
// PlanGang (gang.go) assigns the pods of a gang to nodes so that, on
// every node, the claims of the pods assigned there fit together — one
// Fits over all of them, so firstAvailable alternatives and shared
// counters are decided jointly (docs/design/gang-allocation.md). It is a
// depth-first search over pods and nodes, classes of interchangeable pods
// placed in node order, a class that cannot all be placed one after
// another ending the branch, memoised per node and multiset of classes,
// and bounded by a budget of allocator calls; it only calls Fits, so it
// changes no allocation outside gangs.
//
// # Topology
//
// Domains given by a device attribute (an NVLink domain, a fabric
// partition) are in domain.go: DomainValues says which domains of an
// attribute a node is in, and KeptTo derives an allocator that takes
// only one domain's devices (and those without the attribute), holding
// the others as taken. How full a node or a domain is, for the scoring
// strategies that pack or spread, is in occupancy.go (Occupancy,
// DomainFree).
//
// # Invariants
//
//   - Inputs are never modified; results do not alias mutable state.
//   - A device is never allocated twice within one call unless it allows
//     multiple allocations (consumable capacity) or the request has admin
//     access, and never if it is in AllocatedState.AllocatedDevices (except
//     for admin access).
//   - A cached selector result is only used for the device version it was
//     computed on.
//   - A CEL runtime error is an error for the pod, reported when the search
//     reaches the device as upstream's would, never a silent no-match.
//   - pkg/allocator imports no scheduler framework package.
package allocator
