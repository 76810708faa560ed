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
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchchart"
	"github.com/dra-scheduler/dra-scheduler/pkg/benchenv"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// Options bound and describe a run.
type Options struct {
	// Features are the allocator features both allocators get
	// (inventorygen.DefaultFeatures: Kubernetes 1.37 default gates).
	Features structured.Features
	// Duration bounds each workload's node-check phase and, separately,
	// its per-pod phase; at least one batch and one pod are always taken.
	Duration time.Duration
	// Samples caps the timed node checks per allocator and workload.
	Samples int
	// PodSamples caps the timed pods per allocator and workload.
	PodSamples int
	// BatchSize is the number of consecutive calls of one allocator
	// before the other one takes its turn.
	BatchSize int
	// Filter selects workloads by scenario name (nil: all).
	Filter *regexp.Regexp
	// Progress receives progress lines (nil: none).
	Progress io.Writer
	// ProgressEvery is the interval of "still working" lines during long
	// phases (<= 0: 10 s).
	ProgressEvery time.Duration
}

// DefaultOptions returns the settings of a moderate run.
func DefaultOptions() Options {
	return Options{
		Features:      inventorygen.DefaultFeatures(),
		Duration:      time.Second,
		Samples:       20000,
		PodSamples:    10,
		BatchSize:     16,
		ProgressEvery: 10 * time.Second,
	}
}

func (o Options) validate() error {
	switch {
	case o.Duration <= 0:
		return fmt.Errorf("duration %v: must be positive", o.Duration)
	case o.Samples < 1:
		return fmt.Errorf("samples %d: must be at least 1", o.Samples)
	case o.PodSamples < 1:
		return fmt.Errorf("pod samples %d: must be at least 1", o.PodSamples)
	case o.BatchSize < 1:
		return fmt.Errorf("batch size %d: must be at least 1", o.BatchSize)
	}
	return nil
}

// Run builds every job in turn and measures its workloads. On
// cancellation it returns the results so far with the context's error.
// A workload that cannot be measured gets a Result with Error set; Run
// itself fails only for bad options, a job that cannot be built, or
// cancellation.
func Run(ctx context.Context, jobs []Job, opts Options) (*Report, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	logger := klog.FromContext(ctx)
	prog := newProgress(opts.Progress, opts.ProgressEvery)
	r := newReport(opts)
	total := 0
	for _, j := range jobs {
		total += j.Workloads
	}
	done := 0
	for _, job := range jobs {
		start := time.Now()
		prog.line("building %s", job.Name)
		workloads, err := job.Build(ctx)
		if err != nil {
			return r, fmt.Errorf("build %s: %w", job.Name, err)
		}
		logger.V(2).Info("Built job", "job", job.Name, "workloads", len(workloads), "elapsed", time.Since(start))
		for i := range workloads {
			w := &workloads[i]
			done++
			if opts.Filter != nil && !opts.Filter.MatchString(w.Scenario) {
				continue
			}
			prog.line("[%d/%d] %s", done, max(total, done), w)
			res, err := measure(ctx, w, opts, prog)
			if res.UpstreamAllocator != "" {
				r.UpstreamAllocator = res.UpstreamAllocator
			}
			r.add(res.Result)
			if err != nil {
				return r, err
			}
			prog.line("  %s", res.Result.summaryLine())
		}
	}
	return r, nil
}

// measured is a Result plus what Run needs besides.
type measured struct {
	Result
	UpstreamAllocator string
}

// measure runs one workload: both allocators set up, agreement over all
// nodes, interleaved node checks, interleaved pods.
func measure(ctx context.Context, w *Workload, opts Options, prog *progress) (measured, error) {
	logger := klog.FromContext(ctx)
	res := measured{Result: newResult(w)}
	if len(w.Cluster.Nodes) == 0 {
		res.Error = "the cluster has no nodes"
		return res, nil
	}
	runtime.GC() // the previous workload's garbage is not this one's cost
	p, err := NewPair(ctx, w, opts.Features)
	if err != nil {
		res.Error = err.Error()
		return res, nil
	}
	res.UpstreamAllocator = p.upstreamFork()
	agreement, fp, err := p.agree(ctx, prog)
	if err != nil {
		return res, err
	}
	res.Agreement = agreement
	res.Ours.FirstPassNs, res.Upstream.FirstPassNs = int64(fp.ours), int64(fp.upstream)
	for _, ex := range agreement.Examples {
		prog.line("  MISMATCH %s: %s", w, ex)
		logger.Error(errors.New("allocators disagree"), "Mismatch", "workload", w.String(), "detail", ex)
	}
	res.Ours.NodeCheck, res.Upstream.NodeCheck, err = measureNodeChecks(ctx, p, opts, prog)
	if err != nil {
		return res, err
	}
	res.Ours.PerPod, res.Upstream.PerPod, err = measurePods(ctx, p, opts, prog)
	if err != nil {
		return res, err
	}
	res.Ratio = Ratio{
		NodeCheckP50: ratio(float64(res.Upstream.NodeCheck.P50Ns), float64(res.Ours.NodeCheck.P50Ns)),
		NodeCheckP99: ratio(float64(res.Upstream.NodeCheck.P99Ns), float64(res.Ours.NodeCheck.P99Ns)),
		PerPodP50:    ratio(float64(res.Upstream.PerPod.P50Ns), float64(res.Ours.PerPod.P50Ns)),
	}
	return res, nil
}

func newReport(opts Options) *Report {
	return &Report{
		Tool:            "dra-bench allocator",
		SchemaVersion:   ReportSchemaVersion,
		Environment:     benchenv.Capture(""),
		UpstreamModule:  upstreamModule(),
		StartedAt:       time.Now().UTC().Truncate(time.Second),
		TimerOverheadNs: int64(timerOverhead()),
		Settings: Settings{
			DurationNs: int64(opts.Duration),
			Samples:    opts.Samples,
			PodSamples: opts.PodSamples,
			BatchSize:  opts.BatchSize,
			Features:   sets.List(opts.Features.Set()),
		},
		Results: []Result{},
	}
}

// upstreamModule is the module path and version of upstream's allocator
// linked into this binary (after replace directives).
func upstreamModule() string {
	const path = "k8s.io/dynamic-resource-allocation"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return path
	}
	for _, d := range info.Deps {
		if d.Path != path {
			continue
		}
		if d.Replace != nil {
			return path + " " + d.Replace.Version
		}
		return path + " " + d.Version
	}
	return path
}

// progress writes progress lines, and "still working" lines at most once
// per interval.
type progress struct {
	w     io.Writer
	every time.Duration
	last  time.Time
}

func newProgress(w io.Writer, every time.Duration) *progress {
	if every <= 0 {
		every = 10 * time.Second
	}
	return &progress{w: w, every: every, last: time.Now()}
}

func (p *progress) line(format string, args ...any) {
	p.last = time.Now()
	if p.w != nil {
		_, _ = fmt.Fprintf(p.w, "dra-bench: "+format+"\n", args...)
	}
}

func (p *progress) tick(format string, args ...any) {
	if time.Since(p.last) >= p.every {
		p.line(format, args...)
	}
}

// summaryLine is the progress line after a workload.
func (r Result) summaryLine() string {
	if r.Error != "" {
		return "error: " + r.Error
	}
	agree := "agree"
	if r.Agreement.Mismatches > 0 {
		agree = fmt.Sprintf("MISMATCH on %d of %d nodes", r.Agreement.Mismatches, r.Agreement.NodesCompared)
	}
	return fmt.Sprintf("node check p50 ours %s upstream %s (%.1f×); per pod ours %s upstream %s (%.1f×); fit on %d/%d nodes, %s",
		benchchart.FormatNanos(float64(r.Ours.NodeCheck.P50Ns)), benchchart.FormatNanos(float64(r.Upstream.NodeCheck.P50Ns)), r.Ratio.NodeCheckP50,
		benchchart.FormatNanos(float64(r.Ours.PerPod.P50Ns)), benchchart.FormatNanos(float64(r.Upstream.PerPod.P50Ns)), r.Ratio.PerPodP50,
		r.Agreement.FitNodes, r.Nodes, agree)
}
