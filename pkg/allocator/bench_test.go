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

package allocator_test

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Benchmarks run ours and upstream's incubating allocator on identical
// inputs in one process; compare impl=upstream with impl=ours per case
// (benchstat -col /impl). -dra.nodes selects the cluster sizes.
var (
	benchNodes      = flag.String("dra.nodes", "100,5000", "comma-separated cluster sizes for the allocator benchmarks")
	benchShapeNames = flag.String("dra.shapes", "", "comma-separated shapes for the allocator benchmarks (allocbench scenario names: schedperf, h100, ...; empty: all of benchScenarios); the others are not even built")
)

// benchShapesSelected returns the shapes -dra.shapes names, in table order.
func benchShapesSelected() []allocbench.Scenario {
	want := splitComma(*benchShapeNames)
	var out []allocbench.Scenario
	for _, s := range benchShapes() {
		if len(want) == 0 || slices.Contains(want, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// benchScenarios are the allocbench scenarios the allocator benchmarks
// run (a–e of docs/benchmarks.md: the scheduler_perf shape with and
// without a CEL selector, 8×H100 with a memory selector, Dynamic MIG, five
// requests with matchAttribute, and 200 devices of which only the last
// matches). dra-bench allocator runs all of allocbench's scenarios.
var benchScenarios = []string{"schedperf", "schedperf-cel", "h100", "dynamic-mig", "match-5", "schedperf-200-last"}

// benchShapes returns benchScenarios' scenarios from allocbench, in that
// order: one definition of each input for both benchmark harnesses.
func benchShapes() []allocbench.Scenario {
	all := allocbench.Scenarios()
	out := make([]allocbench.Scenario, 0, len(benchScenarios))
	for _, name := range benchScenarios {
		i := slices.IndexFunc(all, func(s allocbench.Scenario) bool { return s.Name == name })
		if i < 0 {
			panic(fmt.Sprintf("allocbench has no scenario %q", name))
		}
		out = append(out, all[i])
	}
	return out
}

func parseNodes(b *testing.B) []int {
	var out []int
	for _, f := range splitComma(*benchNodes) {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil {
			b.Fatalf("-dra.nodes: %v", err)
		}
		out = append(out, n)
	}
	return out
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// benchPair is one benchmark input set up for both allocators by
// allocbench, as dra-bench allocator sets it up: ours' long-lived
// inventory and matcher, upstream's CEL cache, the allocated devices of
// the occupancy.
func benchPair(b *testing.B, shape allocbench.Scenario, nodes int, occupancy float64) (*allocbench.Pair, *allocbench.Workload) {
	w := shape.Workloads(nodes, []allocbench.Occupancy{{Name: fmt.Sprint(occupancy), Fraction: occupancy}})[0]
	p, err := allocbench.NewPair(b.Context(), &w, defaultFeatures)
	if err != nil {
		b.Fatal(err)
	}
	return p, &w
}

// BenchmarkNodeCheck measures one (pod, node) Allocate: what Filter pays
// per node once the pod's allocator exists.
func BenchmarkNodeCheck(b *testing.B) {
	structured.EnableAllocators("incubating")
	for _, shape := range benchShapesSelected() {
		for _, nodes := range parseNodes(b) {
			for _, occ := range []float64{0, 0.5, 1} {
				p, w := benchPair(b, shape, nodes, occ)
				node := w.Cluster.Nodes[len(w.Cluster.Nodes)/2]
				for _, impl := range []string{"upstream", "ours"} {
					name := fmt.Sprintf("shape=%s/nodes=%d/occupancy=%v/impl=%s", shape.Name, nodes, occ, impl)
					b.Run(name, func(b *testing.B) {
						ctx := context.Background()
						var a nodeAllocator = p.NewOurs()
						if impl == "upstream" {
							up, err := p.NewUpstream(ctx)
							if err != nil {
								b.Fatal(err)
							}
							a = up
						}
						// Same outcome for both, and a warm cache for ours.
						if _, err := a.Allocate(ctx, node, w.Claims); err != nil {
							b.Fatal(err)
						}
						b.ReportAllocs()
						for b.Loop() {
							_, _ = a.Allocate(ctx, node, w.Claims)
						}
					})
				}
			}
		}
	}
}

// BenchmarkPodTotal measures what one pod costs the scheduler: upstream
// builds an allocator from all slices and allocates on every node (its
// Filter); ours creates an allocator over the long-lived inventory, asks
// Fits on every node (our Filter) and allocates on the last node that fits
// (our Reserve). Both are allocbench's UpstreamPod and OursPod, which
// dra-bench allocator times too.
func BenchmarkPodTotal(b *testing.B) {
	structured.EnableAllocators("incubating")
	for _, shape := range benchShapesSelected() {
		for _, nodes := range parseNodes(b) {
			p, w := benchPair(b, shape, nodes, 0.5)
			for _, impl := range []string{"upstream", "ours"} {
				b.Run(fmt.Sprintf("shape=%s/nodes=%d/impl=%s", shape.Name, nodes, impl), func(b *testing.B) {
					ctx := context.Background()
					pod := p.UpstreamPod
					if impl == "ours" {
						pod = p.OursPod
						// Steady state: the caches were filled by earlier
						// pods (BenchmarkFirstPod measures that cost).
						a := p.NewOurs()
						for _, n := range w.Cluster.Nodes {
							_, _ = a.Allocate(ctx, n, w.Claims)
						}
					}
					b.ReportAllocs()
					for b.Loop() {
						if err := pod(ctx); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkFirstPod measures our first pod on a fresh inventory and
// matcher, which evaluates every selector on every device once, against
// upstream's (always) per-pod cost.
func BenchmarkFirstPod(b *testing.B) {
	structured.EnableAllocators("incubating")
	for _, shape := range benchShapesSelected() {
		for _, nodes := range parseNodes(b) {
			p, w := benchPair(b, shape, nodes, 0.5)
			for _, impl := range []string{"upstream", "ours"} {
				b.Run(fmt.Sprintf("shape=%s/nodes=%d/impl=%s", shape.Name, nodes, impl), func(b *testing.B) {
					ctx := context.Background()
					b.ReportAllocs()
					for b.Loop() {
						var a nodeAllocator
						if impl == "upstream" {
							up, err := p.NewUpstream(ctx)
							if err != nil {
								b.Fatal(err)
							}
							a = up
						} else {
							// A fresh pair: new inventory, matcher and
							// state, none of it timed.
							b.StopTimer()
							fresh, err := allocbench.NewPair(ctx, w, defaultFeatures)
							if err != nil {
								b.Fatal(err)
							}
							b.StartTimer()
							a = fresh.NewOurs()
						}
						for _, n := range w.Cluster.Nodes {
							_, _ = a.Allocate(ctx, n, w.Claims)
						}
					}
				})
			}
		}
	}
}

// BenchmarkInventoryMemory reports bytes of memory per device held by the
// inventory and the matcher's per-device CEL inputs after every device was
// evaluated once.
func BenchmarkInventoryMemory(b *testing.B) {
	for _, shape := range benchShapesSelected() {
		b.Run("shape="+shape.Name, func(b *testing.B) {
			c := shape.Cluster(100)
			claims := shape.Claims()
			var devices int
			for _, s := range c.Slices {
				devices += len(s.Spec.Devices)
			}
			for b.Loop() {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				inv := inventory.New()
				for _, s := range c.Slices {
					inv.Set(s)
				}
				m := allocator.NewMatcher(cel.NewCache(10, cel.Features{EnableConsumableCapacity: true}))
				a := allocator.New(defaultFeatures, allocator.NewState(inv, structured.AllocatedState{}), c.ClassLister(), inv, m, allocator.FirstFit)
				for _, n := range c.Nodes {
					_, _ = a.Allocate(context.Background(), n, claims)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(devices), "B/device")
				runtime.KeepAlive(a)
			}
		})
	}
}
