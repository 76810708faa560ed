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

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/version"
)

// exitMismatch is the exit code when the allocators disagreed.
const exitMismatch = 3

func allocatorCommand() command {
	return command{
		name:    "allocator",
		summary: "per-(pod, node) and per-pod allocation latency, ours vs upstream's structured allocator",
		run:     runAllocator,
	}
}

// allocatorFlags are the allocator subcommand's settings.
type allocatorFlags struct {
	nodes, occupancy, scenario string
	from, claims               string
	format, chart, chartOcc    string
	count                      int
	jsonOut                    string
	list, quiet                bool
	verbosity                  int
	opts                       allocbench.Options
}

func (f *allocatorFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.nodes, "nodes", "100,1000", "comma-separated cluster sizes of the built-in scenarios")
	fs.StringVar(&f.occupancy, "occupancy", "empty,half,full", "comma-separated fill levels of the built-in scenarios: empty, half, full or fractions 0..1")
	fs.StringVar(&f.scenario, "scenario", "", "regular expression selecting scenarios by name (default: all)")
	fs.StringVar(&f.from, "from", "", "comma-separated YAML/JSON files (- for stdin) with ResourceSlices, DeviceClasses, optionally Nodes and claims, instead of the built-in scenarios")
	fs.StringVar(&f.claims, "claims", "", "comma-separated YAML/JSON files with ResourceClaims/ResourceClaimTemplates to place on the --from cluster (default: one device of each class)")
	fs.DurationVar(&f.opts.Duration, "duration", f.opts.Duration, "time budget per workload for node checks, and again for whole pods")
	fs.IntVar(&f.opts.Samples, "samples", f.opts.Samples, "at most this many timed node checks per allocator and workload")
	fs.IntVar(&f.opts.PodSamples, "pod-samples", f.opts.PodSamples, "at most this many timed pods per allocator and workload")
	fs.IntVar(&f.opts.BatchSize, "batch", f.opts.BatchSize, "consecutive calls of one allocator before the other takes its turn")
	fs.IntVar(&f.count, "count", 1, "run every scenario this many times, one after the other; the results are all reported (dra-bench compare and benchstat take them as samples)")
	fs.StringVar(&f.format, "format", "table", "output on stdout: table, json or benchfmt (the Go benchmark format benchstat reads)")
	fs.StringVar(&f.jsonOut, "json-out", "", "also write the JSON report to this file (whatever --format prints)")
	fs.StringVar(&f.chart, "chart", "", "also write an SVG chart of latency and throughput against cluster size to this file")
	fs.StringVar(&f.chartOcc, "chart-occupancy", "half", "occupancy the chart shows ("+allocbench.OccupancyAsIs+" for --from)")
	fs.BoolVar(&f.list, "list", false, "list the built-in scenarios and exit")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	fs.IntVar(&f.verbosity, "v", 0, "log verbosity on stderr")
}

func runAllocator(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := &allocatorFlags{opts: allocbench.DefaultOptions()}
	fs := flag.NewFlagSet("dra-bench allocator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.Usage = func() { allocatorUsage(fs) }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.list {
		return listScenarios(stdout)
	}
	if err := checkFormat(f.format); err != nil {
		return usageError{err}
	}
	if f.count < 1 {
		return usageError{fmt.Errorf("--count %d: want at least 1", f.count)}
	}
	if f.scenario != "" {
		re, err := regexp.Compile(f.scenario)
		if err != nil {
			return usageError{fmt.Errorf("--scenario: %w", err)}
		}
		f.opts.Filter = re
	}
	if !f.quiet {
		f.opts.Progress = stderr
	}
	jobs, err := f.jobs()
	if err != nil {
		return err
	}
	ctx = withLogger(ctx, stderr, f.verbosity)
	report, runErr := allocbench.Run(ctx, jobs, f.opts)
	if report == nil {
		return usageError{runErr}
	}
	for i := 1; i < f.count && runErr == nil; i++ {
		var again *allocbench.Report
		if again, runErr = allocbench.Run(ctx, jobs, f.opts); again != nil {
			report.Results = append(report.Results, again.Results...)
			report.Mismatches += again.Mismatches
		}
	}
	report.Version = version.Version()
	if runErr != nil && len(report.Results) == 0 {
		return runErr
	}
	if err := f.write(report, stdout, stderr); err != nil {
		return err
	}
	switch {
	case runErr != nil:
		return fmt.Errorf("stopped early (results above are partial): %w", runErr)
	case len(report.Results) == 0:
		return usageError{fmt.Errorf("no scenario matches --scenario %q (see --list)", f.scenario)}
	case report.Mismatches > 0:
		return exitError{code: exitMismatch, err: fmt.Errorf("MISMATCH: the allocators disagreed on %d node(s); see above", report.Mismatches)}
	}
	return nil
}

// jobs returns the built-in scenarios' jobs, or the one job of --from.
func (f *allocatorFlags) jobs() ([]allocbench.Job, error) {
	occ, err := allocbench.ParseOccupancies(f.occupancy)
	if err != nil {
		return nil, usageError{fmt.Errorf("--occupancy: %w", err)}
	}
	if f.from == "" {
		if f.claims != "" {
			return nil, usageError{errors.New("--claims needs --from")}
		}
		sizes, err := parseSizes(f.nodes)
		if err != nil {
			return nil, usageError{fmt.Errorf("--nodes: %w", err)}
		}
		return allocbench.ScenarioJobs(allocbench.Scenarios(), sizes, occ, f.opts.Filter), nil
	}
	files := append(splitList(f.from), splitList(f.claims)...)
	in, err := allocbench.LoadFiles(os.Stdin, files...)
	if err != nil {
		return nil, err
	}
	if f.opts.Progress != nil {
		for _, n := range in.Notes {
			fmt.Fprintf(f.opts.Progress, "dra-bench: note: %s\n", n)
		}
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f
		if f == "-" {
			names[i] = "<stdin>"
		}
	}
	job, err := in.Job(strings.Join(names, ","))
	if err != nil {
		return nil, err
	}
	return []allocbench.Job{job}, nil
}

// write prints the report on stdout and writes the JSON file and chart.
func (f *allocatorFlags) write(report *allocbench.Report, stdout, stderr io.Writer) error {
	if err := writeReport(report, f.format, f.jsonOut, stdout); err != nil {
		return err
	}
	if f.chart == "" {
		return nil
	}
	occ := f.chartOcc
	if f.from != "" {
		occ = allocbench.OccupancyAsIs
	}
	fig := report.Figure(occ)
	if len(fig.Panels) == 0 {
		return fmt.Errorf("--chart: no results at occupancy %q to draw", occ)
	}
	return writeChart(f.chart, fig, f.quiet, stderr)
}

func listScenarios(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range allocbench.Scenarios() {
		fmt.Fprintf(tw, "%s\t%s\n", s.Name, s.Description)
	}
	return tw.Flush()
}

func parseSizes(list string) ([]int, error) {
	var sizes []int
	for _, f := range splitList(list) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive node count", f)
		}
		sizes = append(sizes, n)
	}
	if len(sizes) == 0 {
		return nil, errors.New("no node count given")
	}
	return sizes, nil
}

func splitList(list string) []string {
	var out []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func allocatorUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprint(w, `Usage: dra-bench allocator [flags]

Measures DRA allocation latency of dra-scheduler's allocator (pkg/allocator)
against upstream's structured allocator (k8s.io/dynamic-resource-allocation,
the implementation kube-scheduler's DynamicResources plugin uses), on
identical inputs in one process, with alternating batches so machine noise
hits both alike. Before timing, both are asked about every node and must
agree (fit, devices, errors); a disagreement is reported as MISMATCH and
the exit code is 3.

For every workload it reports:
  node check  one Allocate call for one (pod, node): p50/p90/p99, allocs/op
  per pod     what one pod costs across all nodes (upstream: NewAllocator
              over all slices + Allocate on every node; ours: an allocator
              over the long-lived inventory + Fits on every node + Allocate
              on the chosen one)
  ratio       upstream / ours (above 1: ours is faster)

Examples:
  dra-bench allocator                                  # all scenarios, 100 and 1000 nodes
  dra-bench allocator --scenario 'h100|mig' --nodes 100,1000,5000 --chart out.svg
  dra-bench allocator --format json > result.json
  kubectl get resourceslices,deviceclasses,resourceclaims -A -o yaml > cluster.yaml
  dra-bench allocator --from cluster.yaml [--claims claims.yaml]

Flags:
`)
	fs.PrintDefaults()
	fmt.Fprint(w, `
Progress goes to stderr, results to stdout. See cmd/dra-bench/README.md for
the scenarios and the JSON fields.
`)
}
