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

// Package allocationcheck judges DRA allocation results (resource.k8s.io/v1,
// Kubernetes 1.37) independently of any allocator.
//
// An allocator's tests hand Check the allocator's inputs — features, node,
// ResourceSlices, DeviceClasses, claims and the already allocated state —
// together with the AllocationResults the allocator returned, and Check
// reports every way in which those results break the API's rules. It does not
// search for an allocation, does not predict which of several valid
// allocations an allocator picks and shares no code with an allocator: it
// only verifies. Its rules come from the API documentation in
// k8s.io/api/resource/v1 and from docs/design/upstream-allocator.md; where
// upstream's allocator is more lenient or stricter than the API, the doc
// comment of the check says which side the checker takes.
//
// # What is checked
//
// Each rule is one small function; every violation it finds is a *Violation
// naming the rule (CheckID), the claim and, where known, the request and the
// device:
//
//  1. CheckResultCount: one result per claim.
//  2. CheckDevice: every allocated device exists in the generation of its
//     pool that counts for the node (see "Pools and generations"), the pool
//     is usable on the node, the device's slice is not ignored under the
//     enabled features and the slice (or the device, with
//     perDeviceNodeSelection) is available on the node.
//  3. CheckRequests: results name existing requests and subrequests, one
//     subrequest per request; ExactCount gets exactly count devices, All gets
//     exactly the devices on the node that match; every device matches the
//     class and request selectors; a dedicated device appears once per claim;
//     adminAccess is reported exactly when requested.
//  4. CheckExclusive: a dedicated device is not given to two claims and is not
//     allocated already (AllocatedState), unless with admin access.
//  5. CheckConstraints: matchAttribute and distinctAttribute hold.
//  6. CheckTaints: every NoSchedule/NoExecute taint is tolerated; results copy
//     the request's tolerations.
//  7. CheckCounters: shared counters of partitionable devices are not
//     over-consumed, and, with CompatibilityGroups, the devices on a counter
//     set share a compatibility group (or all have none).
//  8. CheckCapacity: shares of multi-allocatable devices carry a shareID and a
//     consumedCapacity that satisfies the request and the device's
//     requestPolicy, and the device's capacity is not over-consumed.
//  9. CheckBinding: binding conditions are copied from the device.
//  10. CheckNodeSelector: the result's node selector matches the node, pins it
//     when a device is node-local and implies every device's node selector.
//  11. CheckConfig: class and claim configuration is passed on completely, in
//     order, and only for the requests it applies to.
//  12. CheckNodeOperations: with OptionalNodeOperations, the slice's
//     skipNodeOperations are copied, and such devices are allocated only on
//     nodes declaring the DRAOptionalNodeOperations feature.
//
// # Pools and generations
//
// Pools are judged per node the way upstream's allocator gathers them
// (docs/design/upstream-allocator.md §3.1–3.3), the contract kubelet and
// drivers live with, not by the pool's highest generation cluster-wide:
//
//   - The node's slices of a pool are those not ignored under the enabled
//     features whose nodeName, allNodes or nodeSelector matches the node or,
//     with perDeviceNodeSelection, that have a device available on the node.
//     Only those of their highest generation G count.
//   - If their number equals the resourceSliceCount of the first of them
//     (input order), the pool is complete for the node and G is used, even
//     if a newer generation of the pool exists in slices that are not
//     relevant for the node.
//   - Otherwise all slices of the pool decide: a newer generation anywhere
//     makes the pool obsolete for the node (allocators drop it); else, if
//     all slices of generation G, whatever their node, number
//     resourceSliceCount, G is used, and the pool is incomplete otherwise.
//
// Every per-device rule — existence, the All-mode set,
// allowMultipleAllocations, counters and counter sets, capacity, taints,
// binding conditions, node selection — uses the device as listed in the
// generation that counts for the node. A pool that is obsolete or
// incomplete for the node offers no device; an All request on a node with an
// incomplete pool cannot be satisfied. Like upstream, completeness compares
// the number of slices with the count announced by the first of them only
// (slices of a generation that disagree about the count are not reported).
//
// # Invariants
//
//   - Check never modifies its inputs; results may alias input objects.
//   - Check reports violations, it does not stop at the first one. Only a
//     wrong number of results ends the check early, because results can then
//     not be paired with claims.
//   - A result entry whose device or request cannot be resolved is reported
//     once, by CheckDevice or CheckRequests; checks that need the missing
//     device or request skip the entry rather than repeat the report.
//   - Valid allocations pass: every check accepts everything upstream's
//     allocator (k8s.io/dynamic-resource-allocation/structured) returns for
//     well-formed input. The tests run that allocator to show it.
//   - Selectors are evaluated with k8s.io/dynamic-resource-allocation/cel, the
//     library that defines the selector language; a selector that cannot be
//     compiled or evaluated is a violation, since no allocator may allocate
//     through it.
//
// Check is not meant for hot paths: it compiles CEL per call and evaluates
// every selector against every device for All requests. It is meant for tests.
package allocationcheck
