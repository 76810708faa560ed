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

// Package allocbench measures DRA allocation latency of our allocator
// (pkg/allocator) against upstream's structured allocator
// (k8s.io/dynamic-resource-allocation/structured) on identical inputs in
// one process. It builds the inputs — built-in scenarios from
// pkg/inventorygen, or a cluster loaded from YAML — and produces a Report;
// cmd/dra-bench prints it and pkg/benchchart draws it.
//
// # What is measured
//
// A Workload is a cluster (nodes, slices, classes), the devices other
// claims hold, and one pod's claims. For each workload:
//
//  1. Set-up, as each scheduler plugin keeps its state: upstream gets
//     structured.NewAllocator over all slices (one CEL cache for the run);
//     ours gets a long-lived inventory, matcher and allocated-device state,
//     and allocator.New per pod (FirstFit policy).
//  2. Agreement: both pod allocators answer Allocate for every node, and
//     ours also Fits. Outcomes must be equal: fit or not, the same
//     allocation results (share IDs compared by presence only, as they are
//     random), the same error text. Any difference is a mismatch: counted,
//     described, printed on the progress stream and in the table, and the
//     command exits 3. This pass also fills our caches, so what follows is
//     a running scheduler's steady state; its duration is reported as
//     firstPass (for ours that is the first pod after start-up).
//  3. Node checks: single Allocate calls of the two pod allocators, each
//     timed alone, in alternating batches (ours first, then upstream first)
//     over the same node sequence, until Options.Samples or
//     Options.Duration. Heap allocations per call come from
//     runtime.MemStats deltas over further, untimed calls.
//  4. Per pod: what one pod costs the allocator on all nodes, alternating
//     the two: upstream NewAllocator then Allocate on every node (its
//     PreFilter and Filter); ours an allocator over the long-lived state,
//     Fits on every node and Allocate on the last node that fits (our
//     Filter and Reserve), as pkg/allocator's BenchmarkPodTotal does. Both
//     run on one goroutine: this is CPU time, not the wall time of the
//     scheduler's parallel Filter. Neither includes gathering the allocated
//     state from claims.
//
// Ratios are upstream / ours: above 1 means ours is faster.
//
// # Invariants
//
//   - Both allocators get the same objects (read-only, never copied
//     between them), the same features (Kubernetes 1.37 defaults unless
//     Options say otherwise) and the same allocated state; the upstream
//     implementation actually chosen (stable, incubating, experimental) is
//     reported, never forced: the package changes no process-wide setting.
//   - Nothing is timed before both allocators agreed on every node, and a
//     workload whose allocators disagree is still reported, marked.
//   - Every timed sample is one call; percentiles are nearest-rank and
//     therefore actual samples. The clock's own overhead is measured and
//     reported, not subtracted.
//   - Machine noise hits both alike: alternating batches, a GC before each
//     workload, and the same nodes in the same order for both.
//   - Clusters are built one job at a time and dropped after, so memory
//     holds one cluster size of one scenario at once.
//   - No global mutable state: a Run depends only on its arguments.
package allocbench
