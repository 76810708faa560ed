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

package allocbench

import (
	"context"
	"runtime"
	"time"
)

// timedChecker collects the samples of one allocator.
type timedChecker struct {
	checker nodeChecker
	samples []time.Duration
}

// measureNodeChecks times single Allocate calls of both pod allocators,
// alternating batches of opts.BatchSize calls (ours first in even rounds,
// upstream first in odd ones) over the same node sequence, until
// opts.Samples calls per allocator or opts.Duration. Then it counts heap
// allocations per call over untimed calls.
func measureNodeChecks(ctx context.Context, p *Pair, opts Options, prog *progress) (ours, upstream Latency, err error) {
	nodes, claims := p.w.Cluster.Nodes, p.w.Claims
	o := &timedChecker{checker: p.ours, samples: make([]time.Duration, 0, min(opts.Samples, 1<<16))}
	u := &timedChecker{checker: p.up, samples: make([]time.Duration, 0, min(opts.Samples, 1<<16))}
	deadline := time.Now().Add(opts.Duration)
	next := 0
	for round := 0; ; round++ {
		order := [2]*timedChecker{o, u}
		if round%2 == 1 {
			order = [2]*timedChecker{u, o}
		}
		for _, t := range order {
			for k := range opts.BatchSize {
				node := nodes[(next+k)%len(nodes)]
				start := time.Now()
				_, _ = t.checker.Allocate(ctx, node, claims) // outcomes were compared in agree
				t.samples = append(t.samples, time.Since(start))
			}
		}
		next += opts.BatchSize
		if err := ctx.Err(); err != nil {
			return ours, upstream, err
		}
		if len(o.samples) >= opts.Samples || !time.Now().Before(deadline) {
			break
		}
		prog.tick("  node checks: %d samples per allocator", len(o.samples))
	}
	ours, upstream = Summarize(o.samples), Summarize(u.samples)
	calls := min(64, max(1, len(o.samples)/8))
	ours.AllocsPerOp, ours.BytesPerOp = allocsPerCall(ctx, p.ours, p, calls)
	upstream.AllocsPerOp, upstream.BytesPerOp = allocsPerCall(ctx, p.up, p, calls)
	return ours, upstream, ctx.Err()
}

// allocsPerCall runs calls untimed Allocate calls over the workload's
// nodes and returns the heap allocations and bytes per call.
func allocsPerCall(ctx context.Context, c nodeChecker, p *Pair, calls int) (allocs, bytes float64) {
	nodes := p.w.Cluster.Nodes
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range calls {
		_, _ = c.Allocate(ctx, nodes[i%len(nodes)], p.w.Claims)
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(calls), float64(after.TotalAlloc-before.TotalAlloc) / float64(calls)
}

// timedPod collects the samples of one allocator's per-pod work.
type timedPod struct {
	pod             func(context.Context) error
	samples         []time.Duration
	allocs, byteSum uint64
}

// measurePods times whole pods, alternating ours and upstream (ours first
// in even rounds), until opts.PodSamples pods each or opts.Duration, with
// at least one pod each. Heap allocations are counted around every pod,
// outside the timed region.
func measurePods(ctx context.Context, p *Pair, opts Options, prog *progress) (ours, upstream Latency, err error) {
	o, u := &timedPod{pod: p.OursPod}, &timedPod{pod: p.UpstreamPod}
	deadline := time.Now().Add(opts.Duration)
	for round := 0; ; round++ {
		order := [2]*timedPod{o, u}
		if round%2 == 1 {
			order = [2]*timedPod{u, o}
		}
		for _, t := range order {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			err := t.pod(ctx)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if err != nil {
				return ours, upstream, err
			}
			t.samples = append(t.samples, elapsed)
			t.allocs += after.Mallocs - before.Mallocs
			t.byteSum += after.TotalAlloc - before.TotalAlloc
		}
		if err := ctx.Err(); err != nil {
			return ours, upstream, err
		}
		if len(o.samples) >= opts.PodSamples || !time.Now().Before(deadline) {
			break
		}
		prog.tick("  per pod: %d pods per allocator", len(o.samples))
	}
	summarize := func(t *timedPod) Latency {
		l := Summarize(t.samples)
		l.AllocsPerOp = float64(t.allocs) / float64(len(t.samples))
		l.BytesPerOp = float64(t.byteSum) / float64(len(t.samples))
		return l
	}
	return summarize(o), summarize(u), nil
}
