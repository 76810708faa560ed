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

// Package inventorygen builds DRA (resource.k8s.io/v1) inventories — Nodes,
// ResourceSlices, DeviceClasses, ResourceClaims and already allocated devices —
// for tests, differential tests and benchmarks of our allocator against
// upstream's (k8s.io/dynamic-resource-allocation/structured, "incubating").
//
// There are two kinds of generators:
//
//   - Realistic shapes (SchedulerPerf, NvidiaH100, NvidiaH200, NvidiaA100,
//     DynamicMIG, DynamicMIGA100, ExampleDriver, SharedNICs) reproduce what real
//     drivers publish, following /work/shared/reference/inventory-shapes.md and
//     upstream's scheduler_perf templates. Claim builders (GPUWithMemoryClaim,
//     GPUsOnSamePCIeRootClaim, MIGProfileClaim, ...) produce the typical
//     requests against them and Occupancy marks a share of the devices as
//     already allocated.
//   - Random produces small, seeded, adversarial cases covering every input
//     the allocator reacts to (node selection, pool generations, incomplete and
//     invalid pools, taints, counters, consumable capacity, binding conditions,
//     firstAvailable, All mode, admin access, constraints, configs, CEL errors,
//     missing classes) for differential testing.
//
// Invariants:
//
//   - Deterministic: the same arguments (the same seed) give deeply equal
//     objects; nothing depends on map iteration order, time or global state.
//     Object UIDs and UUID attributes are derived from names by hashing.
//   - Device order is the drivers' order: within a slice devices are sorted by
//     name (byte-wise) as drivers publish them. In realistic shapes the slices
//     of a pool are named so that their name order (which upstream uses) is the
//     publishing order: counter slices first, then device slices by GPU.
//     SchedulerPerf keeps the template's index order, which equals name order
//     up to 10 devices. Random deliberately gives slice names an order that
//     differs from creation order and shuffles Case.Slices, because upstream
//     depends on both (slice names for device order, input order for the
//     first slice of a pool and for generations).
//   - Bounded search: Random limits the product over all requests of the
//     device combinations upstream's exhaustive search may try
//     (RandomOptions.MaxSearchSpace), so that every default case finishes in
//     well under a second; without that, a few seeds in a thousand run for
//     minutes.
//   - API validity: every generated object passes the API server's validation
//     (k8s.io/kubernetes/pkg/apis/resource/validation) and is already in its
//     defaulted form (explicit allocation modes, explicit toleration operators,
//     taints with timeAdded), so the allocator sees what it would see in a real
//     cluster. API limits are respected: at most 128 devices per slice (64 when a
//     device consumes counters or has taints), 8 counter sets per slice, 32
//     counters per set, 32 attributes plus capacities per device. The deliberate
//     exceptions are made only by Random and are listed in Case.Notes: selectors
//     with CEL compile errors (rejected by validation of new objects, reachable
//     through stored objects) and ExactCount requests with count 0 (the API
//     server defaults 0 to 1; upstream's allocator accepts 0 as "no device").
//     Cross-object inconsistencies (duplicate device names across the slices of
//     a pool, missing counter sets, incomplete pools, stale generations, a
//     missing DeviceClass) are valid per object and are what the allocator
//     must cope with.
//   - Pools: realistic shapes publish one node-local pool per node, named
//     after the node (SchedulerPerf: the template's "resourceslice-<i>"), with
//     generation 1 and a ResourceSliceCount equal to its slices; counter sets
//     are published in their own slices.
//   - Allocated state is described by Allocated (dedicated devices plus
//     shares of multi-allocatable devices) rather than by an
//     structured.AllocatedState, so that it can be printed, compared and fed
//     to any allocator; Allocated.State converts it the way the scheduler
//     does. Occupancy never over-consumes counters or capacity; Random does
//     so only when Case.Notes says so.
//
// Objects are shared between the returned values and must be treated as
// read-only; deep-copy before modifying.
package inventorygen
