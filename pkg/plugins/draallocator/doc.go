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
// # Design
//
// The plugin adapts the allocator to the framework; the allocator knows
// nothing about the scheduler.
//
//   - Claims and device classes come from the framework's SharedDRAManager,
//     and the plugin signals in-flight allocations and its writes to it as
//     the in-tree plugin does, so the framework (and an in-tree profile in
//     the same process) sees them. The claim informer drops managedFields
//     (claimfeed.go's trimManagedFields, as kube-scheduler does for pods):
//     nothing reads them, and writes without them keep the stored ones.
//   - Which devices are taken comes from an allocator.Tracker: fed by the
//     claim informer, by Reserve/Unreserve (in flight) and by the plugin's
//     own status writes (recorded at once; older informer copies are
//     ignored, as in the assume cache, and so is a write recorded after
//     the informer reported the claim deleted). It hands PreFilter a State updated
//     by the devices that changed since the previous pod, instead of
//     translating every allocated device per pod. A device handed out by
//     one scheduling cycle is unavailable to the next until the claim's
//     status write lands or is abandoned. PreFilter first waits until the
//     claim handler has seen every claim that existed at start, so a new
//     or failed-over scheduler never takes a held device for a free one.
//   - One scheduler's profiles share the plugin's state (NewFactory):
//     inventory, tracker and requeuer, so an allocation in flight in one
//     profile is excluded by every other.
//   - Devices come from a long-lived inventory.Inventory (inventoryFeed),
//     fed by the scheduler's own ResourceSlice and DeviceTaintRule
//     informers (one copy of each slice per process); the feed applies the
//     rules itself (package taintrules), as the scheduler's slice tracker
//     does. Events only queue the changed slice; the next
//     PreFilter (or GeneratePlacements, on the same goroutine before a pod
//     group's pods are tried) applies the queue, so steady state costs
//     nothing and the inventory never changes under a Filter. Selector results, node views
//     and their bit sets survive across pods.
//   - The scheduler requeues pods on events it sees through its own
//     informers; the plugin's copies may learn of the same change a moment
//     later. When they do, and the change can free devices, the plugin
//     activates the pods it judged since the previous such change
//     (requeuer), so no pod waits for a second event.
//   - The pod informer's events reach the features that follow pods
//     (podfeed.go: the nomination clock, the preemption metrics), each
//     handler guarded like an extension point.
//   - PreFilter resolves the pod's claims and builds one allocator over the
//     inventory and the allocated devices; Filter asks it per node
//     whether the claims fit; the devices are chosen (nodeResults, one
//     search per node and cycle, searchDevices) for the few nodes Score
//     and Reserve ask about, or already by Filter where its answer
//     depends on them (a gang's planned siblings, fitBesideSiblings;
//     node-allocatable resources, filterNodeAllocatable);
//     Reserve marks them in flight; PreBind writes allocation and
//     reservation with conflict retries and waits for binding conditions;
//     Unreserve and PostFilter undo, as the in-tree plugin does.
//   - Pods of a pod-group cycle (GenericWorkload, podgroup.go) share a
//     claim's pending allocation: a later pod of the cycle reuses what an
//     earlier one reserved (one more sharer in the framework's count)
//     instead of waiting for it; trial reservations the cycle reverts
//     requeue nobody; claims a PodGroup declares are reserved for the
//     PodGroup (DRAWorkloadResourceClaims); PodGroupPostFilter frees what
//     keeps a gang from fitting (podgroup_postfilter.go).
//   - A pod-group cycle's devices are planned jointly (gangplan.go, a
//     pod's side of the plan in gangmember.go,
//     docs/design/gang-allocation.md): the first PreFilter of a placement
//     assigns the group's unscheduled pods to nodes so that on each node
//     their claims fit together (allocator.PlanGang), or fails every pod
//     with the group's shortfall when fewer than minCount fit; Filter and
//     Score allocate a pod's claims jointly with those of the siblings
//     planned on the node (the pod's first) and Filter rejects a node
//     where they would not fit beside it; the cycle's trial Reserve and
//     Unreserve mark pods placed and unplaced; NormalizeScore lets the
//     planned node win ties. Nodes are planned in the scoring strategy's
//     order and only where pkg/nodecheck lets a pod go. The plan lives in
//     the pod-group cycle state, apart from stateData, which only points
//     at it.
//   - Topology (TopologyAwareWorkloadScheduling, docs/design/topology.md):
//     GeneratePlacements gives a group's domains (node-label values as
//     upstream, or device-attribute values), drops those whose free
//     devices cannot cover the group, and on a group's first attempt keeps
//     at most maxPlacements, the ones its devices fit best
//     (placementlimit.go); ScorePlacement ranks the feasible ones by the
//     devices in use once the group has its own.
//   - Devices that are node cpu, memory or hugepages, or cost some
//     (DRANodeAllocatableResources, nodeallocatable.go over package
//     nodeallocatable), are checked with the pod's requests against the
//     node in Filter and recorded in the pod's status in PreBind, as
//     in-tree. kube-scheduler's assume gives only the in-tree plugin's
//     assumed pods that status, so an in-flight ledger (ledger.go) holds
//     what ours take until the bound pod reaches the node accounting.
//   - Preemption (preemption.go, releasing.go) follows DefaultPreemption's
//     dry runs through AddPod/RemovePod in a dryRun state that Clone
//     copies, apart from the shared stateData; Filter answers over the
//     allocated devices changed by it (allocator.WhatIf): victims' claims
//     freed, nominated pods' devices taken (what their own preemption
//     freed; a node whose nominated pod's preemption is still under way
//     is held). Filter is Unschedulable only where the pod may fit without
//     the lower-priority pods. Where Filter turns the nominated node down
//     it decides once per cycle whether the pod waits there for the
//     victims' claims being released (releaseWait); while it waits, dry
//     runs on other nodes find no room and PostFilter keeps the
//     nomination, whichever PostFilter runs first (judged by the
//     scheduler's DRA manager and the node's other nominated pods; the
//     nomination read from the pod's status or, before the status shows
//     it, from the scheduler's nominator; a pod of the same priority nominated there
//     later, nominationclock.go, does not come first), so no second round
//     of evictions starts (docs/design/preemption.md). What the answers
//     on node after node share within a cycle is computed once
//     (preemptionmemo.go): "may preemption help", asked over one allocator with every
//     node's own devices free instead of a copy per node; a reprieve's
//     answer (a victim given back) is not explained, as nobody reads it,
//     and frees the part of the first answer's releases that the victims
//     still out free (dryRunReleases), so each node's removed pods' claims
//     are looked up once. Where allocations' devices are
//     (allocator.Placements) outlives the cycle, until the inventory
//     changes.
//     An assigned pod's deletion lets a preemptor that
//     DefaultPreemption gated go on (preemptionmetrics.go counts victims
//     and times nominations from the same pod events).
//   - Every entry point runs under a guard (entrypoints.go, guard.go): a
//     panic fails only that pod's attempt with an error naming the plugin,
//     is logged with its stack and counted; Unreserve then releases what
//     the attempt had in flight, even if it panicked itself.
//   - A node that cannot take the pod gets a reason that is the same on
//     every node with the same finding (Allocator.Explain), so the
//     scheduler's "0/N nodes are available: ..." message counts nodes per
//     reason.
//   - A consistency check (consistency.go) compares the long-lived state
//     with the informers' objects on SIGUSR2 (beside kube-scheduler's own
//     cache comparer) and every consistencyCheckInterval, on a goroutine
//     of its own: the inventory with the slices, taint rules applied
//     (inventory.Compare), the tracker with the claims and the scheduler's
//     in-flight allocations (allocator.Tracker.Compare). Slice changes
//     queued, the plugin's own writes the informer has not delivered and
//     allocations in flight are no differences, and a difference must
//     still be there when it compares again 2 s later. Each is logged once
//     with the objects' names and counted
//     (dra_scheduler_cache_differences_total).
//
// # Map
//
// Extension points (entrypoints.go wraps each in the panic guard), the
// file that does the work, and the cycle state each reads (r) and writes
// (w); stateData's fields are in state.go:
//
//	PreEnqueue          prefilter.go      -
//	PreFilter           prefilter.go      w stateData (every field), joins groupState;
//	                    gangplan.go       w gangPlan (first pod of a placement)
//	AddPod, RemovePod   preemption.go     r stateData.alloc; w dryRun (this clone's)
//	Filter              filter.go,        r stateData, dryRun, gangPlan;
//	                    gangmember.go     w unavailable, results, nodeStatuses (mu);
//	                    releasing.go      w stateData.release (once, nominated node)
//	PostFilter          postfilter.go,    r stateData; writes claims (deallocate);
//	                    releasing.go      the release wait reads the DRA manager
//	PodGroupPostFilter  podgroup_postfilter.go  r groupState, each pod's stateData;
//	                    domains.go        r domainsTried (events per domain)
//	PreScore, Score,    score.go          r stateData, gangPlan; w results (mu)
//	NormalizeScore
//	GeneratePlacements  placementgenerate.go  r the snapshot (labels, group's pods);
//	                    attributedomains.go   w attributeDomains (device-attribute keys)
//	                    placementlimit.go     r the PodGroup's status; no state of its own
//	ScorePlacement,     placementscore.go r each pod's stateData (alloc, results);
//	NormalizePlacement-                   no state of its own
//	Score
//	Reserve, Unreserve  reserve.go        r results; w claims[i].allocation, inFlight,
//	                                      ext.chosen; groupState.pending; gangPlan placed
//	PreBindPreFlight,   prebind.go,       r stateData; w claims[i].claim, statusPatched;
//	PreBind             claimwrites.go,   writes claims (allocation, reservedFor),
//	                    bindingconditions.go  waits for binding conditions
//	SignPod             plugin.go         -
//	(SIGUSR2, interval) consistency.go    r inventory (feed's lock), tracker (its lock),
//	                                      the informers' listers; no state of its own
//	EventsToRegister    events.go         (queueing hints read the DRA manager)
//	and hints           prequeue.go       (pre-queueing hint: podIndex)
//
// State by scope, its key, who writes it and what guards it:
//
//	process      shared (shared.go): inventory feed, tracker, requeuer, ledger,
//	             pod sets, consistency check; written by informer handlers
//	             and every phase; each part has its own lock
//	pod-group    groupState (podgroup.go), key Name/group in the
//	cycle        PodGroupCycleState; written by the cycle's sequential phases
//	             only; no lock
//	pod-group    attributeDomains (attributedomains.go), key
//	cycle        Name/attribute-domains in the PodGroupCycleState: each
//	             placement's device-attribute domain, written by
//	             GeneratePlacements; PreFilter binds placement states to
//	             placements under its lock
//	pod-group    domainsTried (domains.go), key Name/domains in the
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
//     lasts exactly as long as the framework's.
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
//   - A bug for one pod never stops scheduling for the others.
//   - Filter, its explanation included, ends within filterTimeout.
package draallocator
