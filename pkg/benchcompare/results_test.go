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

package benchcompare_test

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchcompare"
)

// schedulerReport is a dra-bench scheduler report in its JSON form
// (schedbench.Report's field names; benchcompare's tests do not link
// schedbench, which brings a control plane) with settings of workload and
// the results given as JSON objects.
func schedulerReport(workload string, results ...string) string {
	settings := `"shape": "h100-mig", "claims": "template"`
	if workload != "" {
		settings += fmt.Sprintf(`, "workload": %q`, workload)
	}
	return fmt.Sprintf(`{"tool": "dra-bench scheduler", "schemaVersion": 2, "settings": {%s}, "results": [%s]}`, settings, strings.Join(results, ", "))
}

// gangResult is a gang workload's result of config on 10 nodes: 10
// gangs of 4 pods on nodes of their own, placed of them placed, with the
// scheduler's cycles per gang, CPU seconds per gang and, when placed,
// groups/s and latency; 20 pod-group cycles took 0.5 s.
func gangResult(config string, placed int, cyclesPerGang, cpuPerGang, groupsPerSecond float64, p50, p99 int64) string {
	return fmt.Sprintf(`{"nodes": 10, "config": %q, "pods": 40, "bound": %d, "podsPerSecond": 0,
		"latency": {"p50Ns": 1, "p99Ns": 2}, "schedulerPeakRSSBytes": 1048576, "schedulerCPUSeconds": %g,
		"gang": {"placement": "own-node", "gangSize": 4, "gangs": 10, "part": "3g.40gb", "placed": %d, "partial": 0,
			"groupsPerSecond": %g, "latency": {"p50Ns": %d, "p99Ns": %d},
			"cycles": 20, "cyclesPerGang": %g, "cycleSeconds": 0.5, "schedulerCPUSecondsPerGang": %g}}`,
		config, 4*placed, 10*cpuPerGang, placed, groupsPerSecond, p50, p99, cyclesPerGang, cpuPerGang)
}

const (
	gangName       = "Scheduler/workload=gang/shape=h100-mig/placement=own-node/gang-size=4/gangs=10/nodes=10/config="
	preemptionName = "Scheduler/workload=preemption/shape=h100-mig/nodes=10/preemptors=10/config="
)

func TestSchedulerReportsAreReadByTheirWorkloadsMetrics(t *testing.T) {
	burst := `{"nodes": 5, "config": "ours", "pods": 10, "bound": 10, "podsPerSecond": 50,
		"latency": {"p50Ns": 1000, "p99Ns": 2000}, "schedulerPeakRSSBytes": 1048576, "schedulerCPUSeconds": 1.5}`
	burstMetrics := []benchcompare.Metric{{Unit: "pods/s", Value: 50}, {Unit: "p50-ns", Value: 1000}, {Unit: "p99-ns", Value: 2000},
		{Unit: "sched-cpu-ns/pod", Value: 1.5e8}, {Unit: "sched-peak-rss-B", Value: 1 << 20}}
	burstName := "Scheduler/shape=h100-mig/claims=template/nodes=5/pods=10/config=ours"
	for _, tc := range []struct {
		name      string
		report    string
		want      []benchcompare.Result
		wantNotes []string
	}{
		{
			name:   "a report without a workload is a burst report, read as before",
			report: schedulerReport("", burst),
			want:   []benchcompare.Result{{Name: burstName, Metrics: burstMetrics}},
		},
		{
			name:   "a burst report names its results as a report without a workload does",
			report: schedulerReport("burst", burst),
			want:   []benchcompare.Result{{Name: burstName, Metrics: burstMetrics}},
		},
		{
			name: "a device-plugin burst result is read like any configuration's, its CPU ratio ignored",
			report: schedulerReport("burst", strings.Replace(strings.Replace(burst, `"ours"`, `"device-plugin"`, 1),
				`"schedulerCPUSeconds": 1.5`, `"schedulerCPUSeconds": 1.5, "cpuVsDevicePlugin": 1, "apiWrites": 23`, 1)),
			want: []benchcompare.Result{{Name: strings.Replace(burstName, "config=ours", "config=device-plugin", 1), Metrics: burstMetrics}},
		},
		{
			name:      "a burst result without a bound pod is left out with a note",
			report:    schedulerReport("burst", `{"nodes": 5, "config": "in-tree", "pods": 10, "bound": 0}`),
			wantNotes: []string{"Scheduler/shape=h100-mig/claims=template/nodes=5/pods=10/config=in-tree left out: no pod bound"},
		},
		{
			name:   "a gang result gives the gangs placed, groups/s, gang latency, cycles and CPU per gang",
			report: schedulerReport("gang", gangResult("ours", 10, 1, 0.25, 20, 1e8, 3e8)),
			want: []benchcompare.Result{{Name: gangName + "ours", Metrics: []benchcompare.Metric{
				{Unit: "gangs-placed", Value: 10}, {Unit: "gangs-partial", Value: 0}, {Unit: "groups/s", Value: 20}, {Unit: "gang-p50-ns", Value: 1e8}, {Unit: "gang-p99-ns", Value: 3e8},
				{Unit: "cycles/gang", Value: 1}, {Unit: "ns/cycle", Value: 2.5e7}, {Unit: "sched-cpu-ns/gang", Value: 2.5e8}, {Unit: "sched-peak-rss-B", Value: 1 << 20},
			}}},
		},
		{
			name:   "a gang result with no gang placed still gives the cycles and CPU per gang",
			report: schedulerReport("gang", gangResult("in-tree", 0, 4, 0.5, 0, 0, 0)),
			want: []benchcompare.Result{{Name: gangName + "in-tree", Metrics: []benchcompare.Metric{
				{Unit: "gangs-placed", Value: 0}, {Unit: "gangs-partial", Value: 0}, {Unit: "cycles/gang", Value: 4}, {Unit: "ns/cycle", Value: 2.5e7},
				{Unit: "sched-cpu-ns/gang", Value: 5e8}, {Unit: "sched-peak-rss-B", Value: 1 << 20},
			}}},
		},
		{
			name: "gang results with an error or without gangs are left out with a note",
			report: schedulerReport("gang",
				`{"nodes": 10, "config": "ours", "error": "the scheduler exited", "gang": {"placement": "any", "gangSize": 4, "gangs": 10}}`,
				`{"nodes": 10, "config": "in-tree", "error": ""}`),
			wantNotes: []string{
				"Scheduler/workload=gang/shape=h100-mig/placement=any/gang-size=4/gangs=10/nodes=10/config=ours left out: the scheduler exited",
				"Scheduler/workload=gang/shape=h100-mig/placement=/gang-size=0/gangs=0/nodes=10/config=in-tree left out: no gang created",
			},
		},
		{
			name: "a device-plugin preemption result is read like ours",
			report: schedulerReport("preemption", `{"nodes": 10, "config": "device-plugin", "pods": 10, "bound": 10,
				"latency": {"p50Ns": 3000, "p99Ns": 8000}, "schedulerPeakRSSBytes": 2048, "schedulerCPUSeconds": 0.5, "cpuVsDevicePlugin": 1, "apiWrites": 300,
				"preemption": {"lowPods": 80, "victims": 30, "minVictims": 30, "sizes": []}}`),
			want: []benchcompare.Result{{Name: preemptionName + "device-plugin", Metrics: []benchcompare.Metric{
				{Unit: "preemptors-bound", Value: 10}, {Unit: "excess-victims", Value: 0}, {Unit: "p50-ns", Value: 3000}, {Unit: "p99-ns", Value: 8000},
				{Unit: "sched-cpu-ns/preemptor", Value: 5e7}, {Unit: "sched-peak-rss-B", Value: 2048},
			}}},
		},
		{
			name: "a preemption result gives the preemptors bound, victims beyond the minimum, latency and CPU per preemptor",
			report: schedulerReport("preemption", `{"nodes": 10, "config": "ours", "pods": 10, "bound": 10,
				"latency": {"p50Ns": 4000, "p99Ns": 9000}, "schedulerPeakRSSBytes": 2048, "schedulerCPUSeconds": 2.5,
				"preemption": {"lowPods": 80, "victims": 32, "minVictims": 30, "sizes": []}}`),
			want: []benchcompare.Result{{Name: preemptionName + "ours", Metrics: []benchcompare.Metric{
				{Unit: "preemptors-bound", Value: 10}, {Unit: "excess-victims", Value: 2}, {Unit: "p50-ns", Value: 4000}, {Unit: "p99-ns", Value: 9000},
				{Unit: "sched-cpu-ns/preemptor", Value: 2.5e8}, {Unit: "sched-peak-rss-B", Value: 2048},
			}}},
		},
		{
			name: "a preemption result with no preemptor bound still gives the CPU per preemptor, and no victim is no excess",
			report: schedulerReport("preemption", `{"nodes": 10, "config": "in-tree", "pods": 10, "bound": 0,
				"schedulerPeakRSSBytes": 2048, "schedulerCPUSeconds": 0.5,
				"preemption": {"lowPods": 80, "victims": 0, "minVictims": 30}}`),
			want: []benchcompare.Result{{Name: preemptionName + "in-tree", Metrics: []benchcompare.Metric{
				{Unit: "preemptors-bound", Value: 0}, {Unit: "excess-victims", Value: 0},
				{Unit: "sched-cpu-ns/preemptor", Value: 5e7}, {Unit: "sched-peak-rss-B", Value: 2048},
			}}},
		},
		{
			name:      "a preemption result with an error is left out with a note",
			report:    schedulerReport("preemption", `{"nodes": 10, "config": "ours", "pods": 10, "error": "timed out"}`),
			wantNotes: []string{preemptionName + "ours left out: timed out"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := benchcompare.Parse([]byte(tc.report))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Result, tc.want) {
				t.Errorf("results\n%+v\nwant\n%+v", r.Result, tc.want)
			}
			if !reflect.DeepEqual(r.Notes, tc.wantNotes) {
				t.Errorf("notes %q, want %q", r.Notes, tc.wantNotes)
			}
		})
	}
}

func TestSchedulerReportsOfAnUnknownWorkloadAreRefused(t *testing.T) {
	if _, err := benchcompare.Parse([]byte(schedulerReport("soak"))); err == nil || !strings.Contains(err.Error(), `workload "soak"`) {
		t.Errorf("error %v, want one naming the workload", err)
	}
}

func TestRatesAndCountsOfWorkDoneAreHigherIsBetter(t *testing.T) {
	for _, tc := range []struct {
		unit string
		want bool
	}{
		{"pods/s", true},
		{"groups/s", true},
		{benchcompare.UnitGangsPlaced, true},
		{benchcompare.UnitPreemptorsBound, true},
		{"ns/op", false},
		{"gang-p99-ns", false},
		{"cycles/gang", false},
		{"ns/cycle", false},
		{"sched-cpu-ns/gang", false},
		{"excess-victims", false},
		{"sched-peak-rss-B", false},
	} {
		if got := benchcompare.HigherIsBetter(tc.unit); got != tc.want {
			t.Errorf("HigherIsBetter(%q) = %v, want %v", tc.unit, got, tc.want)
		}
	}
}

func TestCompareOfGangReportsMarksEachChangeByItsUnitsDirection(t *testing.T) {
	parse := func(report string) *benchcompare.Report {
		t.Helper()
		r, err := benchcompare.Parse([]byte(report))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	old := parse(schedulerReport("gang", gangResult("ours", 8, 2, 0.25, 10, 1e8, 2e8), gangResult("in-tree", 0, 4, 0.5, 0, 0, 0)))
	new := parse(schedulerReport("gang", gangResult("ours", 10, 1, 0.125, 20, 1e8, 3e8), gangResult("in-tree", 2, 4, 0.5, 1, 1e9, 1e9)))
	var out bytes.Buffer
	if err := benchcompare.WriteTable(&out, old, new, benchcompare.Compare(old, new)); err != nil {
		t.Fatal(err)
	}
	// The table's columns: benchmark, unit, old, new, new/old, change.
	changes := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if cols := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1); len(cols) >= 5 && strings.HasPrefix(cols[0], "Scheduler/") {
			changes[cols[0]+" "+cols[1]] = strings.Join(cols[5:], "")
		}
	}
	for _, tc := range []struct {
		name, unit, want string
	}{
		{"ours", "gangs-placed", "+25.0% better"},
		{"ours", "groups/s", "+100.0% better"},
		{"ours", "gang-p50-ns", "+0.0%"},
		{"ours", "gang-p99-ns", "+50.0% worse"},
		{"ours", "cycles/gang", "-50.0% better"},
		{"ours", "sched-cpu-ns/gang", "-50.0% better"},
		{"in-tree", "gangs-placed", "from 0 better"},
		{"in-tree", "groups/s", ""},
		{"in-tree", "cycles/gang", "+0.0%"},
		{"in-tree", "sched-cpu-ns/gang", "+0.0%"},
	} {
		k := gangName + tc.name + " " + tc.unit
		if got, ok := changes[k]; !ok || got != tc.want {
			t.Errorf("%s: change %q (row found: %v), want %q", k, got, ok, tc.want)
		}
	}
	if t.Failed() {
		t.Logf("table:\n%s", out.String())
	}
}
