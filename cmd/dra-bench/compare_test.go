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
	"bytes"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchcompare"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedbench"
)

// TestCountRepeatsRunsThatCompareAndBenchfmtReadAsSamples: --count 4
// reports every scenario four times; compare shows both medians with n=4
// and a p-value or "~"; benchfmt prints one benchmark line per result.
func TestCountRepeatsRunsThatCompareAndBenchfmtReadAsSamples(t *testing.T) {
	dir := t.TempDir()
	reports := []string{filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")}
	args := append([]string{"allocator", "--scenario", "^schedperf$", "--nodes", "2", "--occupancy", "0", "--count", "4", "--quiet"}, quick...)
	for _, path := range reports {
		if code, stdout, stderr := runArgs(append(args, "--json-out", path)...); code != 0 {
			t.Fatalf("exit code %d\n%s\n%s", code, stdout, stderr)
		}
	}
	code, stdout, stderr := runArgs("compare", reports[0], reports[1])
	if code != 0 {
		t.Fatalf("compare: exit code %d\n%s\n%s", code, stdout, stderr)
	}
	row := regexp.MustCompile(`Allocator/scenario=schedperf/occupancy=0/nodes=2/impl=ours\s+ns/op\s+\S+ \(n=4\)\s+\S+ \(n=4\)\s+[0-9.]+\s+(~ \(p=[0-9.]+\)|[+-][0-9.]+% \(p=[0-9.]+\) (better|worse))`)
	if !row.MatchString(stdout) {
		t.Errorf("compare lacks the node check row with four samples a side and a p-value:\n%s", stdout)
	}
	for _, want := range []string{"old: dra-bench allocator", "new: dra-bench allocator", "impl=upstream"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = runArgs(append(args, "--count", "2", "--format", "benchfmt")...)
	if code != 0 {
		t.Fatalf("benchfmt: exit code %d\n%s\n%s", code, stdout, stderr)
	}
	if n := strings.Count(stdout, "\nBenchmarkAllocator/scenario=schedperf/occupancy=0/nodes=2/impl=ours 1 "); n != 2 {
		t.Errorf("benchfmt has %d lines of the ours benchmark, want 2 (--count 2):\n%s", n, stdout)
	}
}

func TestCompareRefusesWhatItCannotCompare(t *testing.T) {
	dir := t.TempDir()
	alloc := filepath.Join(dir, "alloc.json")
	if code, stdout, stderr := runArgs(append([]string{"allocator", "--scenario", "^schedperf$", "--nodes", "2", "--occupancy", "0", "--quiet", "--json-out", alloc}, quick...)...); code != 0 {
		t.Fatalf("exit code %d\n%s\n%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"one report", []string{"compare", alloc}, "want two reports"},
		{"a missing report", []string{"compare", alloc, filepath.Join(dir, "missing.json")}, "missing.json"},
		{"a bad --count", []string{"allocator", "--count", "0"}, "--count 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, stderr := runArgs(tc.args...); code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit code %d, stderr %q; want failure saying %q", code, stderr, tc.want)
			}
		})
	}
}

// TestCompareReadsTheGangAndPreemptionMetricsSchedbenchWrites: the JSON
// field names benchcompare decodes are those schedbench writes (a renamed
// field would read as 0).
func TestCompareReadsTheGangAndPreemptionMetricsSchedbenchWrites(t *testing.T) {
	settings := schedbench.Settings{Shape: "h100-mig", Claims: "template"}
	for _, tc := range []struct {
		name     string
		workload schedbench.Workload
		result   schedbench.Result
		want     benchcompare.Result
	}{
		{
			name:     "a gang result",
			workload: schedbench.WorkloadGang,
			result: schedbench.Result{Nodes: 10, Config: schedbench.ConfigOurs, Pods: 40, Bound: 40, SchedulerPeakRSSBytes: 1 << 20, SchedulerCPUSeconds: 2.5,
				Gang: &schedbench.GangResult{Placement: schedbench.GangOwnNode, GangSize: 4, Gangs: 10, Placed: 9, Partial: 1, GroupsPerSecond: 20,
					Latency: schedbench.Latency{P50Ns: 1e8, P99Ns: 3e8}, Cycles: 20, CyclesPerGang: 2, CycleSeconds: 0.5, CPUSecondsPerGang: 0.25}},
			want: benchcompare.Result{Name: "Scheduler/workload=gang/shape=h100-mig/placement=own-node/gang-size=4/gangs=10/nodes=10/config=ours", Metrics: []benchcompare.Metric{
				{Unit: "gangs-placed", Value: 9}, {Unit: "gangs-partial", Value: 1}, {Unit: "groups/s", Value: 20}, {Unit: "gang-p50-ns", Value: 1e8}, {Unit: "gang-p99-ns", Value: 3e8},
				{Unit: "cycles/gang", Value: 2}, {Unit: "ns/cycle", Value: 2.5e7}, {Unit: "sched-cpu-ns/gang", Value: 2.5e8}, {Unit: "sched-peak-rss-B", Value: 1 << 20}}},
		},
		{
			name:     "a preemption result",
			workload: schedbench.WorkloadPreemption,
			result: schedbench.Result{Nodes: 10, Config: schedbench.ConfigOurs, Pods: 10, Bound: 10, SchedulerPeakRSSBytes: 1 << 20, SchedulerCPUSeconds: 2.5,
				Latency: schedbench.Latency{P50Ns: 4000, P99Ns: 9000}, Preemption: &schedbench.PreemptionResult{LowPods: 80, Victims: 32, MinVictims: 30}},
			want: benchcompare.Result{Name: "Scheduler/workload=preemption/shape=h100-mig/nodes=10/preemptors=10/config=ours", Metrics: []benchcompare.Metric{
				{Unit: "preemptors-bound", Value: 10}, {Unit: "excess-victims", Value: 2}, {Unit: "p50-ns", Value: 4000}, {Unit: "p99-ns", Value: 9000},
				{Unit: "sched-cpu-ns/preemptor", Value: 2.5e8}, {Unit: "sched-peak-rss-B", Value: 1 << 20}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := schedbench.Report{Tool: benchcompare.ToolScheduler, Settings: settings, Results: []schedbench.Result{tc.result}}
			rep.Settings.Workload = tc.workload
			var buf bytes.Buffer
			if err := rep.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			parsed, err := benchcompare.Parse(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if len(parsed.Result) != 1 || !reflect.DeepEqual(parsed.Result[0], tc.want) {
				t.Errorf("results %+v, notes %q; want\n%+v", parsed.Result, parsed.Notes, tc.want)
			}
		})
	}
}
