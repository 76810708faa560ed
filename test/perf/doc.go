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

// Package perf runs upstream's own DRA scheduler_perf workloads against
// DRAAllocator and, side by side, against the in-tree DynamicResources
// plugin.
//
// The workloads are read at run time from the k8s.io/kubernetes module
// that go.mod requires (test/integration/scheduler_perf/dra: its
// performance-config.yaml and those of its sub-folders), so a Kubernetes
// bump brings upstream's changes in; nothing is copied into this
// repository. Each configuration file runs in two variants:
//
//   - intree: upstream's file unchanged, kube-scheduler's default profile
//     with DynamicResources, no out-of-tree plugins.
//   - draallocator: a copy derived into a temporary directory in which
//     every test case gets a schedulerConfigPath. That configuration
//     (derived from the test case's own schedulerConfigPath if it has one)
//     disables DynamicResources and enables DRAAllocator in multiPoint in
//     every profile, the way manifests/config/dra-scheduler.yaml does, and
//     DRAAllocator is in the out-of-tree registry.
//
// Template paths in upstream's files are relative to the file's folder:
// each configuration runs with that folder as working directory.
//
// BenchmarkPerfScheduling (make perf) runs
// scheduler_perf.RunBenchmarkPerfScheduling per configuration and variant
// (names BenchmarkPerfScheduling/<topic>/<variant>/<TestCase>/<workload>,
// topic as upstream's: dra, dra_partitionabledevices, ...), writes the
// DataItems JSON under -data-items-dir and prints a side-by-side table at
// the end. Topics are suffixed with the variant, so upstream's topic-keyed
// perf-dash thresholds (set for 6-core CI runners) do not apply, and the
// plain per-workload thresholds (120–130 pods/s on the extended-resource
// workloads) are removed from the files both variants run unless
// -dra-perf-upstream-thresholds is set: they are pass/fail gates for
// upstream's machines, and this benchmark compares.
// -dra-perf-feature-gates=A=true,B=false sets gates in every test case of
// both variants over the file's own (scheduler_perf takes feature gates
// only from its workload files), e.g.
// PERF_FLAGS=-dra-perf-feature-gates=SchedulerPreQueueingHints=true.
//
// TestSchedulerPerf (make test) runs scheduler_perf.RunIntegrationPerfScheduling
// on the same configurations and variants (names
// TestSchedulerPerf/<topic>/<variant>/<TestCase>/<workload>); make test
// narrows it to the "fast" workloads. RunIntegrationPerfScheduling has no
// registry parameter, so the registry is set through its options by
// reflection (withOutOfTreeRegistry), which fails loudly if upstream
// renames the field.
//
// Both check, after the nodes are created, that the running scheduler's
// profiles have the plugin the variant is about, and skip with the reason
// the workloads that cannot run (skipReason: features DRAAllocator does
// not implement, workloads upstream publishes without a required
// parameter) and, for draallocator only, its known failures
// (knownFailures, -dra-perf-run-known-failures runs them).
//
// scheduler_perf starts a fresh etcd from PATH for every workload. TestMain
// puts the repository's bin/ on PATH when etcd is not found there (make
// bin/etcd builds it from go.etcd.io/etcd/server/v3).
package perf
