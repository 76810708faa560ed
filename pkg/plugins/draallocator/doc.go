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

// Package draallocator is the DRAAllocator scheduler framework plugin: it
// allocates DRA devices (resource.k8s.io/v1) for pods with pkg/allocator and
// records the allocations in ResourceClaim status, so that kubelet and DRA
// drivers see exactly what the in-tree DynamicResources plugin would have
// written.
//
// # Map
//
// Extension points (entrypoints.go wraps each in the panic guard), the
// file that does the work, and the cycle state each reads (r) and writes
// (w); stateData's fields are in state.go:
//
//	PreEnqueue          prefilter.go      -
//	PreFilter           prefilter.go      w stateData (every field), joins groupState;
//	                    deviceconstraints.go  r the pod's annotation; w stateData.alloc,
//	                                      unconstrained (with and without its constraints)
//	                    deviceconstraintsgroup.go  r the PodGroup's annotation, the
//	                                      group's claims; w stateData.cross
//	                    gangplan.go       w gangPlan (first pod of a placement; its
//	                                      choice for a group's match across nodes)
//	                    groupbudget.go    w groupBudget (the pod-group cycle's first plan)
//	                    gangpreemption.go w gangPreemptionEntry (first to ask), seenNodeInfos
//	AddPod, RemovePod   preemption.go     r stateData.alloc; w dryRun (this clone's),
//	                                      gangPreemption.memo's changes (mu)
//	Filter              filter.go,        r stateData, dryRun, gangPlan;
//	                    gangmember.go     w unavailable, results, nodeStatuses (mu);
//	                    releasing.go      w stateData.release (once, nominated node)
//	                    deviceconstraints.go  r stateData.unconstrained, cross (a node where
//	                                      only the device constraints fail says so, and
//	                                      what came closest: w cross.described, atomic)
//	                    gangpreemptionreprieve.go  w results, gangPreemption.memo
//	                                      (a pod group preemption's reprieve, mu;
//	                                      PreFilter sets stateData.fit to fitInRerun)
//	PostFilter          postfilter.go,    r stateData; writes claims (deallocate);
//	                    releasing.go      the release wait reads the DRA manager
//	PodGroupPostFilter  podgroup_postfilter.go  r groupState, each pod's stateData;
//	                    releasinggroup.go       a probe stateData for pods the cycle
//	                                      did not try (the group's release wait)
//	                    placementevents.go      r domainsTried (events per domain)
//	PreScore, Score,    score.go          r stateData, gangPlan; w results (mu)
//	NormalizeScore
//	GeneratePlacements  placementgenerate.go    r the snapshot (labels, group's pods);
//	                    placementattributes.go  w attributeDomains (device-attribute keys)
//	                    placementlimit.go       r the PodGroup's status; no state of its own
//	ScorePlacement,     placementscore.go r each pod's stateData (alloc, results);
//	NormalizePlacement-                   no state of its own
//	Score               gangpreemptionrank.go  w gangPreemption.ranks (a re-run's
//	                                      victims per placement, mu)
//	Reserve, Unreserve  reserve.go        r results; w claims[i].allocation, inFlight,
//	                                      ext.chosen; groupState.pending; gangPlan placed;
//	                                      in a reprieve gangPreemption.holds only (mu)
//	PreBindPreFlight,   prebind.go,       r stateData; w claims[i].claim, statusPatched;
//	PreBind             claimwrites.go,   writes claims (allocation, reservedFor),
//	                    bindingconditions.go  waits for binding conditions
//	SignPod             plugin.go         -
//	(SIGUSR2, interval) consistency.go    r inventory (feed's lock), tracker (its lock),
//	                                      the informers' listers; no state of its own
//	EventsToRegister    events.go         (queueing hints read the DRA manager)
//	and hints           prequeue.go       (pre-queueing hint: podIndex);
//	                    deviceconstraints.go  (a changed annotation queues its pod)
//
// State by scope, its key, who writes it and what guards it:
//
//	process      shared (shared.go): inventory feed, tracker, requeuer, ledger,
//	             pod sets, consistency check; written by informer handlers
//	             and every phase; each part has its own lock
//	pod-group    groupState (podgroup.go), key Name/group in the
//	cycle        PodGroupCycleState; written by the cycle's sequential phases
//	             only; no lock
//	pod-group    attributeDomains (placementattributes.go), key
//	cycle        Name/attribute-domains in the PodGroupCycleState: each
//	             placement's device-attribute domain, written by
//	             GeneratePlacements; PreFilter binds placement states to
//	             placements under its lock
//	pod-group    gangPreemptionEntry (gangpreemption.go), key
//	cycle        Name/gang-preemption in the PodGroupCycleState: the
//	             preemption whose re-run the cycle is (nil: none), found by
//	             the first of GeneratePlacements and PreFilter, then read;
//	             its reprieving flag is atomic; its reprieve memo, its
//	             reprieve's holds and its released allocator have locks
//	pod-group    domainsTried (placementevents.go), key Name/domains in the
//	cycle        PodGroupCycleState; each placement's first PreFilter appends
//	             its plan's answer, PodGroupPostFilter reads it; own lock
//	placement    gangPlan (gangplan.go), key Name/gang-plan in the
//	             PlacementCycleState, one per placement tried, over the
//	             placement's nodes only (the snapshot's ListNodesInPlacement);
//	             PreFilter makes it, Reserve and Unreserve mark pods placed
//	             (the commit's Reserve too, with the winner's plan); Filter
//	             reads it under its own lock
//	pod cycle    stateData (state.go), key Name in the pod's CycleState;
//	             PreFilter writes it, then mu guards what Filter and Score
//	             write (state.go says which fields)
//	dry run      dryRun (preemption.go), key Name/dry-run in a clone of the
//	             pod's CycleState; AddPod and RemovePod write their own copy
//	preemption   preemptionMemo (preemptionmemo.go), in stateData, shared by
//	memo         every clone of the cycle state; its own Once;
//	             dryRunReleases, in a dryRun, made once and then only read;
//	             the plugin's kept placements, an atomic pointer
//
// # Design
//
// The plugin adapts the allocator to the framework; the allocator knows
// nothing about the scheduler. Each bullet's files hold the details.
//
//   - Claims and classes (claimfeed.go, claims.go): from the framework's
//     SharedDRAManager; the plugin signals in-flight allocations and its
//     writes to it as the in-tree plugin does, so the framework (and an
//     in-tree profile in the same process) sees them. The claim informer
//     drops managedFields (trimManagedFields), as kube-scheduler does for
//     pods.
//   - Taken devices (allocator.Tracker): fed by the claim informer, by
//     Reserve/Unreserve (in flight) and by the plugin's own status writes
//     (recorded at once; older informer copies are ignored, as in the
//     assume cache). It hands PreFilter a State updated by the devices
//     changed since the previous pod. PreFilter first waits until the claim
//     handler has seen every claim that existed at start, so a new or
//     failed-over scheduler never takes a held device for a free one.
//   - Devices (inventoryfeed.go): a long-lived inventory.Inventory fed by
//     the scheduler's ResourceSlice and DeviceTaintRule informers, rules
//     applied by package taintrules. Events only queue the changed slice;
//     the next PreFilter (or GeneratePlacements) applies the queue, so the
//     inventory never changes under a Filter. Selector results and node
//     views survive across pods.
//   - Sharing (shared.go, NewFactory): one scheduler's profiles share
//     inventory, tracker, requeuer and ledger, so an allocation in flight
//     in one profile is excluded by every other.
//   - Requeueing (requeue.go, events.go, podfeed.go): the plugin's copies
//     may learn of a change a moment after the scheduler; when they do,
//     and it can free devices, the pods judged since are activated, so no
//     pod waits for a second event. Pod events reach the features that
//     follow pods (the nomination clock, the preemption metrics).
//   - One pod (prefilter.go, filter.go, score.go, reserve.go, prebind.go):
//     PreFilter builds one allocator; Filter asks it per node whether the
//     claims fit, a node that does not getting the same reason as every
//     node with the same finding (Allocator.ExplainBefore). The devices
//     are searched once per node and cycle (searchDevices), for the nodes
//     Score and Reserve ask about or where Filter's answer depends on
//     them; Reserve marks them in flight; PreBind writes allocation and
//     reservation and waits for binding conditions; Unreserve undoes.
//   - Device constraints across claims (deviceconstraints.go): the pod's
//     dra-scheduler.io/device-constraints annotation, read and checked in
//     PreFilter (pkg/deviceconstraints), names claims by their
//     ResourceClaims and becomes constraints of the pod's allocator
//     (allocator.WithCrossClaimConstraints), its allocated claims fixed
//     choices; a wrong value fails PreFilter with a Warning event. On a
//     PodGroup (deviceconstraintsgroup.go) the annotation ties the named
//     requests of every pod of the group, the group's allocated and
//     in-flight claims fixed choices; the joint plan tries values for a
//     match across nodes, one device chosen elsewhere each, and its
//     members' allocators take the plan's.
//   - DRA-backed extended resources (extended.go, DRAExtendedResource):
//     a pod's extended resource that a DeviceClass provides gets an
//     in-memory claim in PreFilter, allocated with the pod's other claims;
//     PreBind creates it and records which container uses which request
//     in the pod's status, as in-tree; a stale one is deleted in
//     PostFilter.
//   - Pod-group cycles (podgroup.go, GenericWorkload): pods of a cycle
//     share a claim's pending allocation; trial reservations the cycle
//     reverts requeue nobody; claims a PodGroup declares are reserved for
//     the PodGroup (DRAWorkloadResourceClaims); PodGroupPostFilter frees
//     what keeps a gang from fitting (podgroup_postfilter.go).
//   - Gang plans (gangplan.go, gangmember.go,
//     docs/design/gang-allocation.md): a placement's first PreFilter
//     assigns the group's pods to nodes so that each node's claims fit
//     together (allocator.PlanGang), or fails every pod with the shortfall;
//     Filter and Score allocate a pod's claims beside the siblings planned
//     there; trial Reserve/Unreserve mark pods placed; NormalizeScore lets
//     the planned node win ties. The plan lives apart from stateData.
//   - Topology (placement*.go: generate, attributes, limit, score,
//     events; docs/design/topology.md):
//     GeneratePlacements gives a group's domains (node labels or device
//     attributes), drops those whose free devices cannot cover it, keeps
//     at most maxPlacements on a first attempt; ScorePlacement ranks the
//     feasible ones by the devices in use once the group has its own.
//   - Node-allocatable devices (nodeallocatable.go, ledger.go,
//     DRANodeAllocatableResources): checked with the pod's requests in
//     Filter and recorded in its status in PreBind, as in-tree; a ledger
//     holds what assumed pods' devices take, uncounted by the node
//     accounting until the bound pod reaches it.
//   - Preemption dry runs (preemption.go): DefaultPreemption's AddPod and
//     RemovePod write a dryRun that Clone copies, apart from stateData;
//     Filter answers over the devices they change (allocator.WhatIf):
//     victims' claims freed (pkg/eviction), nominated pods' devices taken,
//     a node whose nominated pod's preemption is under way held. Filter is
//     Unschedulable only where the pod may fit without the lower-priority
//     pods.
//   - Preemption memo (preemptionmemo.go): what a cycle's answers on node
//     after node share is computed once — "may preemption help" over one
//     allocator with every node's own devices free, each node's removed
//     pods' releases (dryRunReleases) — and where allocations' devices are
//     (allocator.Placements, keptPlacements) outlives the cycle until the
//     inventory changes.
//   - Release wait (releasing.go, nominationclock.go): where Filter turns
//     the nominated node down it decides once per cycle whether the pod
//     waits there for its victims' claims (releaseWait, judged by the DRA
//     manager and the node's other nominated pods); meanwhile dry runs on
//     other nodes find no room and PostFilter keeps the nomination, in
//     either PostFilter order (docs/design/preemption.md). A pod group
//     keeps its pods' nominations likewise (releasinggroup.go), judging
//     the pods its cycle stopped before by a probe of their claims, and
//     only while claims are being released on a nominated node; where
//     DefaultPreemption's PodGroupPostFilter runs first, its re-run of such
//     a group is turned down in each pod's PreFilter and in
//     GeneratePlacements (gangPreemptionEntry.awaiting), so nothing is
//     planned or reprieved for room the nominations hold.
//   - Gang preemption (gangpreemption.go): DefaultPreemption's
//     PodGroupPostFilter re-runs the group on a snapshot without the
//     lower-priority pods and tells no plugin which; the plugin tells the
//     re-run by its NodeInfo copies, frees the removed pods' claims
//     (eviction.ReleasesAcross) for its allocators and placements, scores
//     the group's planned node first (a pod without a plan: by the
//     victims' devices it needs) and ranks placements by the
//     victims DefaultPreemption's reprieve would leave there, in its order
//     of candidates (gangpreemptionrank.go: PodDisruptionBudget
//     violations, highest priority, sum, count, start) and in its units
//     (gangpreemptionunits.go: a group whose disruptionMode is All goes
//     whole, every pod of it counted), and answers each
//     reprieve over the tracker with the victims given back taken
//     (docs/design/gang-preemption.md); the re-run plans the group over
//     free devices before victims' (gangpreemptionplan.go: planFreeFirst,
//     members kept on their free nodes placed first). A reprieve asks
//     Filter for every pod of the group after each victim given back; a
//     node's answers are given again, in the order asked, while no victim
//     whose releases are on it changed sides and they use the node's own
//     devices only (gangpreemptionreprieve.go: reprieveMemo).
//   - Guard (entrypoints.go, guard.go): every entry point recovers a panic
//     as that pod's failure, naming the plugin, logged and counted;
//     Unreserve then releases what the attempt had in flight.
//   - Consistency check (consistency.go): on SIGUSR2 and every
//     consistencyCheckInterval it compares inventory and tracker with the
//     informers' objects (inventory.Compare, allocator.Tracker.Compare);
//     queued slices, unseen own writes and in-flight allocations are no
//     differences, and a difference must last 2 s; each is logged and
//     counted (dra_scheduler_cache_differences_total).
//
// # Invariants
//
//   - The inventory changes only in PreFilter, which the framework runs on
//     one goroutine before any Filter of the same cycle; Filter calls only
//     read it. The consistency check reads it from its own goroutine only
//     under the feed's lock, which PreFilter holds while it changes it.
//   - The consistency check changes no state: it only brings the tracker's
//     State up to date, as the next PreFilter would.
//   - A device is never in two non-admin allocations: allocated and
//     in-flight devices are excluded when the allocator is built, and the
//     API server rejects a status write on a claim allocated meanwhile.
//   - What a cycle marks in flight (Reserve) is recorded in its state and
//     released by Unreserve; the tracker's in-flight entry for a claim
//     lasts exactly as long as the framework's. A pod group preemption's
//     reprieve marks nothing in flight: its reservations, never written,
//     are held in the preemption alone (reprieveHolds) until Unreserve.
//     A claim found allocated as chosen when Reserve marks it (a pod of
//     the same group wrote it) needs nothing held, and an allocation
//     PreBind wrote is never restored out of the assume cache.
//   - Constraints across claims change only the pod's own allocator
//     (stateData.alloc); other pods' claims (unrestricted) and pods without
//     the annotation are asked exactly as before.
//   - The pod-group cycle's state is touched only by the cycle's
//     synchronous phases (PreFilter, Reserve, Unreserve,
//     PodGroupPostFilter), never by Filter or the binding phase, so it
//     needs no lock; the gang plan in it, which Filter reads, has one.
//   - A planned group's pods not placed yet always keep a feasible plan:
//     a pod passes Filter on a node only where the siblings planned there
//     fit beside it, and its own planned node only gains room. Outside
//     pod-group cycles no plan exists and nothing changes.
//   - A ledger entry counts on a node only while the node holds the very
//     copy of the pod Reserve was given (same UID and resource version):
//     the bound pod, which carries the status, replaces it there, and a
//     preemption dry run without the pod drops it, so nothing is counted
//     twice or left over. Unreserve removes the entry; PreFilter drops
//     entries the snapshot no longer holds.
//   - A preemption dry run never writes the pod's stateData or the
//     tracker: what it removes and adds lives in its own dryRun copy, and
//     only claims reserved for removed pods alone, on devices local to the
//     node, count as freed. Its memo (preemptionMemo) only caches what the
//     cycle's snapshot gives: the same answers, computed once.
//   - Only a pod-group cycle whose every NodeInfo the snapshot replaced
//     (a mutation session) frees devices for a pod group, and only those
//     of pods that still run where the snapshot had them; a reprieve
//     frees nothing a reprieved pod needs and keeps what the group holds
//     in flight taken. Ranking a re-run's placements by their victims
//     only reads the pods' cycle states and allocators built for it.
//   - A bug for one pod never stops scheduling for the others.
//   - Filter, its explanation included, ends within filterTimeout; a
//     pod-group cycle's device plans, over all its placements, end within
//     groupPlanTimeout (groupbudget.go).
package draallocator
