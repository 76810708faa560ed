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

// Package explain answers "why is this pod pending, and where could it
// run?" for a pod with ResourceClaims, with the scheduler's own allocator
// (pkg/allocator), policy and feature gates, over a cluster read live or
// from a dump (pkg/clusterstate).
//
// # Design
//
// Cluster holds one inventory of every ResourceSlice (DeviceTaintRules
// applied, as the scheduler's slice tracker applies them) and the
// allocated state of every allocated claim: a pkg/simulate Snapshot, the
// one kubectl dra fit counts over. Pod resolves the pod's claims as the
// scheduler does (pkg/podshape, shared with pkg/simulate: a template's
// claim is named in the pod's status; one not created yet is made from the
// template as the resourceclaim controller would), rejects what the
// scheduler rejects before looking at nodes (a missing claim or class, a
// claim in use, a wrong device constraints annotation), then asks every
// node:
//
//   - the checks every node gets from kube-scheduler's default plugins
//     that decide most pending GPU pods (spec.nodeName, node selector and
//     required affinity, unschedulable nodes, untolerated NoSchedule and
//     NoExecute node taints) and the node selectors of claims already
//     allocated;
//   - Allocator.Diagnose for the claims still to allocate: the devices
//     they would get, or the finding with every request's device counts.
//
// The pod's device constraints across its claims (the
// dra-scheduler.io/device-constraints annotation, deviceconstraints.go)
// are read as the plugin's PreFilter reads them (crossclaims.Of, which it
// shares): a wrong annotation, or allocated claims that break it by
// themselves, is a problem with the scheduler's message; otherwise every
// node is asked with them, the pod's allocated claims as fixed choices,
// and a node where the claims fit only without them says so.
//
// Nodes that fail are grouped by reason, with the counts of example
// nodes; nodes that fit are ranked as the plugin's scoring strategy ranks
// them. The same claims are then asked about on the cluster with nothing
// allocated, which tells "too big for any node" apart from "all taken".
//
// A pod that fits on no node now but on some with nothing allocated is
// asked about preemption (preemption.go), as kube-scheduler's
// DefaultPreemption with DRAAllocator would do it: on each such node every
// bound pod of lower priority is evicted in a simulation (the node's State
// with their claims released, allocator.WhatIf), then reprieved one at a
// time, PodDisruptionBudget violators first, most important first, while
// the claims still fit; nodes are ranked by fewest violations, lowest
// highest victim priority, smallest priority sum, fewest victims, latest
// start. A claim is freed only when every consumer in its reservedFor is
// evicted and no staying pod uses it.
//
// A pod of a PodGroup is never asked about alone: a group that cannot run
// is asked about pod group preemption (gangpreemption.go), as
// DefaultPreemption's PodGroupPostFilter with DRAAllocator does it: in each
// domain of its topology constraint (the whole cluster without one) every
// bound pod of lower priority is evicted in a simulation, the group's
// devices planned jointly over what that frees (eviction.ReleasesAcross),
// and the evicted pods reprieved in the same order as for one pod while
// the group still fits; the domain whose victims cost least
// (eviction.CompareCost, the node order above) is the answer.
//
// # Invariants
//
//   - Read-only: nothing is written anywhere; inputs are not modified.
//   - A node "fits" exactly when the scheduler's DRAAllocator Filter
//     would pass it given the same objects (same allocator, features and
//     allocated state); in-flight allocations the scheduler holds in
//     memory are not visible here.
//   - Other resources (CPU, memory, pods per node, ports, topology
//     spread, inter-pod affinity) are not checked; the report says so.
package explain
