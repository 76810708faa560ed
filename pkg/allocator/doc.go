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
// # Design
//
// Work is done at the rarest event that can do it:
//
//   - Slices are interned once into an inventory.Inventory (dense device
//     indexes, parsed node selectors, pools per node cached until a slice
//     or the node's labels change).
//   - Each CEL selector is evaluated at most once per device version; the
//     results are kept as bit sets over device indexes (match, error) in a
//     Matcher shared across pods and nodes.
//   - Per Allocate call only the search remains: a depth-first search in
//     upstream's order over the node's candidate devices.
//
// NewAllocator has upstream's signature and builds a private inventory
// from the given slices; long-lived callers (the scheduler plugin) keep one
// inventory and matcher and create allocators over them.
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
