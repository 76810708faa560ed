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

package schedbench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// gangPreemptionResult is a result of config c at nodes nodes with the
// gangs, totalled.
func gangPreemptionResult(nodes int, c Config, gangs ...PreemptingGang) Result {
	p := &GangPreemptionResult{RackSize: 18, Racks: nodes / 18, LowPods: 100, Gangs: gangs}
	p.total()
	r := Result{Nodes: nodes, Config: c, GangPreemption: p}
	for _, g := range gangs {
		r.Pods += g.Size
		r.Bound += g.BoundPods
		r.SchedulerCPUSeconds += g.SchedulerCPUSeconds
	}
	return r
}

func boundGang(name string, size, victims, minimum int, cpu float64) PreemptingGang {
	return PreemptingGang{Name: name, Size: size, Fits: true, MinVictims: minimum, RacksAtMinimum: 1, Bound: true, BoundPods: size,
		Victims: victims, Rack: "rack-003", Cycles: 2, Placements: 4, FeasiblePlacements: 4, SchedulerCPUSeconds: cpu,
		Latency: Latency{P50Ns: int64(time.Second), P99Ns: int64(2 * time.Second)}}
}

func pendingGang(name string, size, minimum int) PreemptingGang {
	return PreemptingGang{Name: name, Size: size, Fits: true, MinVictims: minimum, RacksAtMinimum: 1, TimedOut: true, Rack: "-", SchedulerCPUSeconds: 0.5}
}

func TestGangPreemptionProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"ours with every gang bound at the minimum has no problem",
			gangPreemptionResult(72, ConfigOurs, boundGang("gang-0", 16, 5, 5, 1)), ""},
		{"ours evicting more than the minimum fails",
			gangPreemptionResult(72, ConfigOurs, boundGang("gang-0", 16, 12, 5, 1)), "gang-0 of 16 pods bound after 12 evictions, the minimum is 5"},
		{"ours leaving a gang that fits pending fails",
			gangPreemptionResult(72, ConfigOurs, pendingGang("gang-0", 16, 5)), "left pending, though a rack holds it after 5 evictions"},
		{"a gang that fits nowhere may stay pending",
			gangPreemptionResult(72, ConfigOurs, PreemptingGang{Name: "gang-0", Size: 72, TimedOut: true}), ""},
		{"in-tree's pending gangs are reported, not failures",
			gangPreemptionResult(72, ConfigInTree, pendingGang("gang-0", 16, 5)), ""},
		{"device-plugin's extra victims are reported, not failures",
			gangPreemptionResult(72, ConfigDevicePlugin, boundGang("gang-0", 16, 16, 5, 1)), ""},
		{"a gang with only some pods bound fails every configuration",
			gangPreemptionResult(72, ConfigInTree, PreemptingGang{Name: "gang-0", Size: 16, Fits: true, BoundPods: 3}), "gang-0: only 3 of its 16 pods bound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.r.problem()
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("problem %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGangPreemptionTable(t *testing.T) {
	rep := &Report{Tool: "dra-bench scheduler", Settings: Settings{Workload: WorkloadGangPreemption, Shape: "h100x4", Claims: "template",
		Target: "in-process control plane", GangTimeoutNs: int64(time.Minute)}}
	rep.Results = []Result{
		gangPreemptionResult(5000, ConfigOurs, boundGang("gang-0", 16, 2, 2, 1.5), boundGang("gang-1", 36, 22, 22, 3)),
		gangPreemptionResult(5000, ConfigDevicePlugin, boundGang("gang-0", 16, 2, 2, 1), boundGang("gang-1", 36, 30, 22, 1)),
		gangPreemptionResult(5000, ConfigInTree, pendingGang("gang-0", 16, 2), pendingGang("gang-1", 36, 22)),
	}
	rep.fillComparisons()
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"workload gang-preemption",
		"CPU/gang vs device-plugin",
		"placements (feasible)",
		"gang-1    36  true    bound       22          0  22 (1 racks)  rack-003",
		"4 (4)",
		"2.25×", // ours: 4.5 s of CPU per 2 gangs, device-plugin: 2 s
		"5000 nodes, in-tree: 2 of 2 gangs still pending after 1m0s each, then deleted (Kubernetes 1.37's DynamicResources cannot free devices",
		"goal, 5000 nodes, ours: victims equal the minimum for every gang: met (2 of 2 gangs; 24 victims, minimum 24)",
		"goal, 5000 nodes, ours: every gang that fits after preemption is bound: met (2 of 2)",
		"goal, 5000 nodes, ours: scheduler CPU per gang ≤ 2× device-plugin's: not met (2.25×)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "goal, 5000 nodes, device-plugin") || strings.Contains(out, "goal, 5000 nodes, in-tree") {
		t.Errorf("the baselines have goals:\n%s", out)
	}
}

func TestGangPreemptionGoalsAtOtherSizesGiveTheRatioOnly(t *testing.T) {
	rep := &Report{Settings: Settings{Workload: WorkloadGangPreemption}, Results: []Result{
		gangPreemptionResult(1000, ConfigOurs, boundGang("gang-0", 16, 2, 2, 1), pendingGang("gang-1", 36, 22)),
		gangPreemptionResult(1000, ConfigDevicePlugin, boundGang("gang-0", 16, 2, 2, 1), boundGang("gang-1", 36, 22, 22, 1)),
	}}
	rep.fillComparisons()
	goals := strings.Join(rep.gangPreemptionGoals(), "\n")
	for _, want := range []string{
		"victims equal the minimum for every gang: not met (1 of 2 gangs",
		"every gang that fits after preemption is bound: not met (1 of 2)",
		"scheduler CPU per gang 0.75× device-plugin's (the goal, ≤ 2×, is at 5000 nodes)",
	} {
		if !strings.Contains(goals, want) {
			t.Errorf("goals lack %q:\n%s", want, goals)
		}
	}
	if r := rep.Results[0].GangPreemption.Gangs[0].CPUVsDevicePlugin; r == nil || *r != 1 {
		t.Errorf("gang-0's CPU against device-plugin's gang-0: %v, want 1", r)
	}
}

func TestGangPreemptionResultsRoundTripThroughJSON(t *testing.T) {
	r := gangPreemptionResult(72, ConfigOurs, boundGang("gang-0", 16, 5, 5, 1))
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"gangPreemption"`, `"gangs"`, `"minVictims":5`, `"racksAtMinimum":1`, `"placements":4`, `"feasiblePlacements":4`, `"schedulerCPUSecondsPerGang":1`} {
		if !strings.Contains(string(data), field) {
			t.Errorf("JSON lacks %s: %s", field, data)
		}
	}
	var back Result
	if err := json.Unmarshal(data, &back); err != nil || back.GangPreemption == nil || len(back.GangPreemption.Gangs) != 1 || back.GangPreemption.Victims != 5 {
		t.Errorf("read back %+v, %v", back.GangPreemption, err)
	}
}

func TestGangPreemptionSummary(t *testing.T) {
	r := gangPreemptionResult(72, ConfigOurs, boundGang("gang-0", 16, 5, 5, 1), pendingGang("gang-1", 72, 68))
	r.Latency = Latency{P50Ns: int64(time.Second), P99Ns: int64(2 * time.Second)}
	want := "1 of 2 gangs bound (2 fit), 5 victims (minimum 73), p50 1s, p99 2s, scheduler CPU 0.75s per gang"
	if got := r.gangPreemptionSummary(); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}
