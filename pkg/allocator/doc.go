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
//     indexes, parsed node selectors, a NodeView per node — pools and
//     candidate devices in search order — cached until a slice or the
//     node's labels change).
//   - Each CEL selector is compiled once and evaluated at most once per
//     device version (Matcher), on a CEL input built per device version
//     (celmatch.Activation) and kept while the device is among the 4096
//     most recently evaluated: the results outlive the inputs.
//   - Per pod (one claims slice, many nodes) the node-independent
//     validation runs once (prepared).
//   - Per (selector chain, NodeView) the chain's outcome on every candidate
//     is kept as bit sets — match, failed — shared by all pods asking the
//     same question about that node (selection, in the view's memo).
//   - Per (selector chain, NodeView) a summary — the matches' device
//     indexes, whether all are plain — sits in a dense per-chain table
//     indexed by the view's slot (summary). For claims of interchangeable
//     devices (one chain, ExactCount, at most one matchAttribute, plain
//     candidates) Fits counts free matches in it instead of searching
//     (quick.go): the search is exhaustive, so it succeeds exactly when
//     enough are free. A node check then reads one map slot, one table
//     entry and a few words, never the device objects; where the claims
//     fit, FirstFit's choice is read off the same list (pick). A claim of
//     one partition (Dynamic MIG) is answered the same way, from the pool
//     counter snapshot's list of partitions that no longer fit
//     (quickpartition.go). For a single claim of a few such devices,
//     Allocate picks and builds the result on the stack (pickOne): the
//     result is its only allocation and no pooled state is written.
//   - What is kept for selectors is bounded (cache.go): past
//     CacheLimits (4096 expressions, 4096 chains, 256 MiB estimated by
//     default) the least recently used expressions and chains are evicted,
//     their results freed, and view memos drop an evicted chain's
//     selections the next time they are extended. Chain numbers are never
//     reused, so a request prepared before an eviction stays correct.
//   - Per Allocate call only the search remains: a depth-first search in
//     upstream's order over the set bits of the request's candidates,
//     with pooled bookkeeping; a node that cannot fit costs no allocation.
//
// # Alpha features
//
// With OptionalNodeOperations (DRAOptionalNodeOperations) a device whose
// slice skips node operations is taken only on a node that declares the
// feature, and its result copies the slice's list (nodeoperations.go);
// such devices are never "plain", so counts never answer for them. These
// cases are compared with upstream's experimental allocator, the one
// Kubernetes runs with that gate on. The other alpha features of 1.37 are
// not implemented: the scheduler plugin refuses to start with their gates
// on (pkg/allocatorfeatures).
//
// # Policies
//
// FirstFit (the default, and NewAllocator's) is upstream-exact. Packing
// walks the same candidates in another order — partitions of partly used
// GPUs first, then the smallest matching device — so it picks another
// valid allocation but never changes whether one exists.
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
