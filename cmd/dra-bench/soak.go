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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedbench"
)

func soakCommand() command {
	return command{
		name:    "soak",
		summary: "dra-scheduler under churn for a while (pods, templates, slices, taint rules); checks no double allocation, no orphan claims, no cache differences, flat heap and goroutines",
		run:     runSoak,
	}
}

func runSoak(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	opts := schedbench.DefaultSoakOptions()
	var logDirFlag, jsonOut, featureGates string
	var keepLogs, quiet bool
	var verbosity int
	fs := flag.NewFlagSet("dra-bench soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&opts.Duration, "duration", opts.Duration, "how long the churn runs")
	fs.DurationVar(&opts.WarmUp, "warmup", opts.WarmUp, "time after which the scheduler's heap and goroutines must stay flat")
	fs.IntVar(&opts.Nodes, "nodes", opts.Nodes, "nodes, each with 8 H100 GPUs")
	fs.Float64Var(&opts.Occupancy, "occupancy", opts.Occupancy, "fraction of the GPUs that live pods ask for")
	fs.DurationVar(&opts.PodLifetime, "pod-lifetime", opts.PodLifetime, "mean time from a pod's creation to its deletion")
	fs.DurationVar(&opts.TemplateEvery, "template-every", opts.TemplateEvery, "how often new pods switch to a ResourceClaimTemplate with a new selector")
	fs.DurationVar(&opts.SliceEvery, "slice-every", opts.SliceEvery, "how often a node's ResourceSlice is republished with the next pool generation")
	fs.DurationVar(&opts.TaintEvery, "taint-every", opts.TaintEvery, "how often a DeviceTaintRule (NoSchedule on one node's GPUs) is added or removed")
	fs.DurationVar(&opts.SampleEvery, "sample-every", opts.SampleEvery, "how often the scheduler's heap and goroutines are read from its /metrics")
	fs.DurationVar(&opts.ConsistencyEvery, "consistency-every", opts.ConsistencyEvery, "how often the scheduler's consistency check compares the plugin's state with the API's objects (DRAAllocator's consistencyCheckInterval); any difference fails the soak")
	fs.Float64Var(&opts.Growth, "growth", opts.Growth, "allowed growth of heap and goroutines from the first to the last third after warm-up (0.25 = 25%)")
	fs.Uint64Var(&opts.Seed, "seed", opts.Seed, "seed of the churn")
	fs.StringVar(&featureGates, "feature-gates", "", "feature gates of the scheduler over its defaults ("+defaultGatesHelp()+")")
	fs.StringVar(&jsonOut, "json-out", "", "also write the JSON report, samples included, to this file")
	fs.StringVar(&logDirFlag, "log-dir", "", "directory for the scheduler's log and configuration and the control plane's log (default: a temporary directory, removed after a passing run)")
	fs.BoolVar(&keepLogs, "keep-logs", false, "keep the temporary log directory after a passing run")
	fs.BoolVar(&quiet, "quiet", false, "no progress lines on stderr")
	fs.IntVar(&verbosity, "v", 0, "log verbosity of the in-process control plane (in the log directory)")
	fs.Func("scheduler-flag", "an extra dra-scheduler command-line flag (repeatable)", func(v string) error {
		opts.SchedulerFlags = append(opts.SchedulerFlags, v)
		return nil
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	gates, err := schedbench.ParseFeatureGates(featureGates)
	if err != nil {
		return usageError{fmt.Errorf("--feature-gates: %w", err)}
	}
	opts.FeatureGates = gates
	if opts.Duration <= 0 || opts.WarmUp < 0 || opts.WarmUp >= opts.Duration {
		return usageError{errors.New("--duration must be positive and --warmup shorter than it")}
	}
	if !quiet {
		opts.Progress = stderr
	}
	logDir, removeLogs, err := makeLogDir(logDirFlag, keepLogs)
	if err != nil {
		return err
	}
	opts.LogDir = logDir
	logFile, err := os.Create(filepath.Join(logDir, "controlplane.log"))
	if err != nil {
		return fmt.Errorf("create control plane log: %w", err)
	}
	defer logFile.Close()
	ctx = routeKlog(ctx, logFile, verbosity)
	if !quiet {
		fmt.Fprintf(stderr, "dra-bench: logs in %s\n", logDir)
	}

	rep, runErr := schedbench.Soak(ctx, opts)
	if rep == nil {
		return runErr
	}
	writeSoakReport(stdout, rep)
	if jsonOut != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonOut, data, 0o644); err != nil {
			return fmt.Errorf("--json-out: %w", err)
		}
	}
	switch {
	case runErr != nil:
		return fmt.Errorf("soak stopped early (logs in %s): %w", logDir, runErr)
	case rep.DoubleAllocated > 0:
		return exitError{code: exitDoubleAllocation, err: fmt.Errorf("%d device(s) allocated to two claims; logs in %s", rep.DoubleAllocated, logDir)}
	case cacheDifferences(rep) > 0:
		return exitError{code: exitCacheDifferences, err: fmt.Errorf("the consistency check found %d difference(s) between the plugin's state and the API; logs in %s", cacheDifferences(rep), logDir)}
	case len(rep.Problems) > 0:
		return fmt.Errorf("soak failed: %d problem(s) above; logs in %s", len(rep.Problems), logDir)
	}
	if removeLogs {
		_ = os.RemoveAll(logDir)
	}
	return nil
}

// exitCacheDifferences is soak's exit code when the scheduler's
// consistency check found its state differing from the API's objects.
const exitCacheDifferences = 4

// countedDifferences is how many differences the soak's consistency
// checks counted (dra_scheduler_cache_differences_total), every kind.
func countedDifferences(rep *schedbench.SoakReport) int {
	n := 0
	for _, v := range rep.CacheDifferences {
		n += v
	}
	return n
}

// cacheDifferences is how many differences the soak's consistency
// checks found: those counted, or the last check's if more.
func cacheDifferences(rep *schedbench.SoakReport) int {
	return max(countedDifferences(rep), rep.FinalDifferences)
}

// kinds renders differences by kind as " (allocation 2, slice 1)", or ""
// when there are none.
func kinds(byKind map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		if byKind[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, byKind[k]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// writeSoakReport prints the soak's summary and its samples.
func writeSoakReport(w io.Writer, rep *schedbench.SoakReport) {
	fmt.Fprintf(w, "soak: %v on %d nodes (%d GPUs)\n", rep.Duration, rep.Nodes, rep.GPUs)
	fmt.Fprintf(w, "pods: %d created, %d bound, %d deleted; creation→bound p50 %v, p99 %v\n", rep.PodsCreated, rep.PodsBound, rep.PodsDeleted,
		time.Duration(rep.Latency.P50Ns).Round(time.Millisecond), time.Duration(rep.Latency.P99Ns).Round(time.Millisecond))
	fmt.Fprintf(w, "churn: %d claim templates, %d slice republications, %d DeviceTaintRule changes\n", rep.Templates, rep.SliceUpdates, rep.TaintRuleChanges)
	fmt.Fprintf(w, "checks: %d double-allocation checks, %d devices held twice; %d orphan claims after cleanup\n", rep.Checks, rep.DoubleAllocated, rep.OrphanClaims)
	fmt.Fprintf(w, "consistency: %d checks of the plugin's state against the API, %d differences found%s; %d in the last check, after cleanup\n",
		rep.ConsistencyChecks, countedDifferences(rep), kinds(rep.CacheDifferences), rep.FinalDifferences)
	for _, line := range rep.DifferencesLogged {
		fmt.Fprintln(w, "  "+line)
	}
	fmt.Fprintf(w, "scheduler: %.1f s CPU (%.2f ms per bound pod); live heap %+.1f%%, goroutines %+.1f%% from the first to the last third after warm-up\n",
		rep.SchedulerCPUSeconds, 1000*rep.SchedulerCPUSeconds/float64(max(rep.PodsBound, 1)), 100*rep.HeapGrowth, 100*rep.GoroutineGrowth)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "at\theap MiB\tlive heap MiB\tgoroutines\tCEL cache MiB\tchecks\tdifferences\t")
	for _, s := range rep.Samples {
		fmt.Fprintf(tw, "%v\t%.1f\t%.1f\t%.0f\t%.2f\t%.0f\t%.0f\t\n", s.At.Round(time.Second), s.HeapBytes/(1<<20), s.LiveHeapBytes/(1<<20), s.Goroutines, s.CELCacheBytes/(1<<20),
			s.ConsistencyChecks, s.Differences)
	}
	_ = tw.Flush()
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "PASS")
		return
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(w, "FAIL:", p)
	}
}
