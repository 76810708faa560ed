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

// Package nodeallocatable computes what a pod's allocated devices take of
// a node's allocatable resources (DRANodeAllocatableResources, alpha in
// Kubernetes 1.37): per claim, the node resources its devices are (a
// device's mapping: a multiple of the consumed capacity, or of the device
// count) and what they cost besides (overhead per pod and per container),
// as the pod status's nodeAllocatableResourceClaimStatuses that the
// scheduler records and kubelet and the scheduler's resource accounting
// read.
//
// # Design
//
// It knows nothing of the scheduler framework: the caller supplies the
// allocations and a DeviceLookup for the specs of allocated devices
// (SliceDevices finds them among ResourceSlices as the in-tree plugin
// does: the node's slices, slices of all nodes, of a matching selector,
// and per-device slices whose device selects the node), and
// gets statuses in the exact form the in-tree DynamicResources plugin
// writes them (claims and resources sorted by name, containers in the
// pod's order, init containers first), so that the pod status does not
// depend on which plugin scheduled the pod.
//
// # Invariants
//
//   - A mapped quantity counts once per claim; overhead per pod and per
//     container is summed over the claim's devices.
//   - A mapping by capacity whose key the result did not consume adds
//     nothing; one on a result that consumed no capacity at all is an
//     error, as in-tree.
//   - A claim none of whose devices names node-allocatable resources has
//     no status.
//
// See docs/design/node-allocatable-resources.md for where the scheduler
// plugin uses it.
package nodeallocatable
