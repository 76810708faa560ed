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

// Package simulate answers capacity questions about DRA exactly, with the
// scheduler's own allocator: where would this pod go, and how many more of
// it fit now. It is what kubectl dra fit runs, and it is meant to be
// embedded by Kueue-, autoscaler- and scheduler-library-style callers:
// it depends on nothing of kube-scheduler or k8s.io/kubernetes, only on
// pkg/allocator and the packages beside it.
//
// # Design
//
// A Snapshot is built once from objects (NewSnapshot): the inventory of
// every ResourceSlice with DeviceTaintRules applied, the allocated state
// of every allocated claim (the plugin's claim tracker), the nodes in name
// order and what their bound pods take of them. kubectl dra explain asks
// its questions over the same Snapshot.
//
// A Fork is a simulation over it. CanSchedule resolves the pod's claims as
// the scheduler does (pkg/podshape: claims of templates not created yet
// are virtual, made from the template; WithObjects adds templates and
// claims the snapshot lacks), reads its device constraints annotation
// (crossclaims.Of, as the plugin's PreFilter), and asks every node in the
// scheduler's order: the node checks (pkg/nodecheck), NodeResourcesFit's
// pods, cpu, memory, ephemeral storage and hugepages, then Allocate with
// the plugin's policy; the node the scoring strategy ranks first wins, and
// nodes that fail are grouped by the scheduler's reason. Place commits a
// placement: its devices are taken as allocator.WhatIf's Take takes them
// and its node resources are used. Count places copies of a shape node
// after node until none fits, and says what stops the next one.
//
// Levels nest: Fork opens one, Revert goes back to it, Commit keeps it.
//
// # Invariants
//
//   - Read-only: the objects a snapshot is built from are not modified;
//     a snapshot is not changed after NewSnapshot, and forks of it are
//     independent.
//   - A copy fits on a node exactly when the scheduler with DRAAllocator
//     would place it there given the same objects and the copies before
//     it (same allocator, policy, features and node checks).
//   - Count is exact (Count.Exact) when every device is a node's own: a
//     node's copies then do not depend on the others', so the scheduler,
//     whichever node it picks for each, places the same number. Otherwise,
//     and where a check is not simulated (inter-pod affinity, topology
//     spread, host ports), Count.Inexact says so.
//   - In-flight allocations in a scheduler's memory, pods pending ahead of
//     the copies and preemption are outside the answer.
package simulate
