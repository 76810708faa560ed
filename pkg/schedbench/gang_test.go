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
	"strings"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
)

func TestGangOptions(t *testing.T) {
	schedperf, _ := ShapeByName("schedperf")
	for _, tc := range []struct {
		name      string
		change    func(*Options)
		wantErr   string
		wantGangs int
	}{
		{"the defaults place one gang of 8 per node of 4 GPUs", func(*Options) {}, "", 20},
		{"gangs that go anywhere fill the cluster's halves", func(o *Options) { o.GangPlacement, o.GangSize = GangAnyNode, 5 }, "", 32},
		{"--gangs sets the count", func(o *Options) { o.Gangs = 3 }, "", 3},
		{"more gangs than nodes of their own are refused", func(o *Options) { o.Gangs = 21 }, "21 gangs on 20 nodes of their own", 0},
		{"gangs that go anywhere may not outnumber the halves", func(o *Options) { o.GangPlacement, o.Gangs = GangAnyNode, 21 }, "more pods than the 160 parts", 0},
		{"a gang no larger than a node's GPUs strands nothing and is refused", func(o *Options) { o.GangSize = 4 }, "want more pods than devices", 0},
		{"a gang larger than a node's halves is refused", func(o *Options) { o.GangSize = 9 }, "at most as many as parts", 0},
		{"a gang of one is refused", func(o *Options) { o.GangSize = 1 }, "want at least 2 pods", 0},
		{"a shape without parts is refused, naming those with them", func(o *Options) { o.Shape = schedperf }, "announces no parts of its devices for a gang's pods to fall back to (want one of h100-mig)", 0},
		{"no-claims has no devices to plan", func(o *Options) { o.Configs = AllConfigs() }, `configuration "no-claims" has none`, 0},
		{"pre-created claims are refused", func(o *Options) { o.Claims = ClaimsPerPod }, `not claims mode "claim"`, 0},
		{"an existing cluster is refused", func(o *Options) { o.Kubeconfig = "/nonexistent" }, "in-process control plane only", 0},
		{"measured pods are refused", func(o *Options) { o.Pods = 5 }, "sets its own pods", 0},
		{"an unknown placement is refused", func(o *Options) { o.GangPlacement = "zone" }, `unknown gang placement "zone"`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := completeWorkload(t, WorkloadGang, mustShape(t, "h100-mig"), tc.change, tc.wantErr)
			if tc.wantErr == "" {
				if got := o.gangsFor(20); got != tc.wantGangs {
					t.Errorf("%d gangs on 20 nodes, want %d", got, tc.wantGangs)
				}
			}
		})
	}
}

// completeWorkload completes the options of workload w with shape s on
// 20 nodes, ours and in-tree, as change makes them, and checks the
// outcome: no error when wantErr is "", else one containing it.
func completeWorkload(t *testing.T, w Workload, s Shape, change func(*Options), wantErr string) Options {
	t.Helper()
	o := DefaultOptions()
	o.Workload, o.Shape, o.Sizes = w, s, []int{20}
	o.Configs = []Config{ConfigOurs, ConfigInTree}
	o.LogDir, o.Child = t.TempDir(), []string{"true"}
	change(&o)
	err := o.complete()
	switch {
	case wantErr == "" && err != nil:
		t.Fatalf("complete: %v", err)
	case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
		t.Fatalf("complete: %v, want an error containing %q", err, wantErr)
	}
	return o
}

func mustShape(t *testing.T, name string) Shape {
	t.Helper()
	s, err := ShapeByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTheGangWorkloadTurnsOnGenericWorkloadAndPodGroups(t *testing.T) {
	o := DefaultOptions()
	o.Workload, o.Shape = WorkloadGang, mustShape(t, "h100-mig")
	for _, c := range []Config{ConfigOurs, ConfigInTree} {
		if got := o.SchedulerFeatureGates(c)["GenericWorkload"]; !got {
			t.Errorf("%s: the scheduler's gates %s lack GenericWorkload=true", c, o.SchedulerFeatureGates(c))
		}
		if flags := strings.Join(o.childFlags(c), " "); !strings.Contains(flags, "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics") {
			t.Errorf("%s: the scheduler's flags %q do not open /metrics", c, flags)
		}
	}
	if flags := o.controlPlane().APIServerFlags; len(flags) != 1 || flags[0] != "--runtime-config=scheduling.k8s.io/v1beta1=true" {
		t.Errorf("kube-apiserver flags %q, want scheduling.k8s.io/v1beta1 served", flags)
	}
	o.Workload = WorkloadBurst
	if len(o.workloadFeatureGates()) != 0 || len(o.controlPlane().APIServerFlags) != 0 || len(o.workloadSchedulerFlags()) != 0 {
		t.Error("the burst workload gets the gang workload's gates or flags")
	}
}

func TestGangClaimPrefersAWholeGPUAndFallsBackToAMIGHalf(t *testing.T) {
	spec := gangClaimSpec(mustShape(t, "h100-mig"))
	if len(spec.Devices.Requests) != 1 {
		t.Fatalf("%d requests, want 1", len(spec.Devices.Requests))
	}
	subs := spec.Devices.Requests[0].FirstAvailable
	if len(subs) != 2 || subs[0].Name != wholeSubrequest || subs[1].Name != partSubrequest {
		t.Fatalf("subrequests %+v, want whole, then part", subs)
	}
	if subs[0].DeviceClassName != "gpu.nvidia.com" || subs[1].DeviceClassName != "mig.nvidia.com" ||
		len(subs[1].Selectors) != 1 || !strings.Contains(subs[1].Selectors[0].CEL.Expression, `"3g.40gb"`) {
		t.Errorf("subrequests %+v, want a GPU, then a 3g.40gb MIG device", subs)
	}
	for _, s := range subs {
		if s.Count != 1 || s.AllocationMode != resourceapi.DeviceAllocationModeExactCount {
			t.Errorf("subrequest %s: %s %d, want exactly 1", s.Name, s.AllocationMode, s.Count)
		}
	}
}

func TestSumSeries(t *testing.T) {
	series := map[string]float64{
		`scheduler_podgroup_schedule_attempts_total{profile="dra-bench-scheduler",result="scheduled"}`:     3,
		`scheduler_podgroup_schedule_attempts_total{profile="dra-bench-scheduler",result="unschedulable"}`: 5,
		`scheduler_podgroup_schedule_attempts_total{profile="other",result="scheduled"}`:                   7,
		`scheduler_schedule_attempts_total{profile="dra-bench-scheduler",result="scheduled"}`:              11,
		"go_goroutines": 13,
	}
	profile := `profile="dra-bench-scheduler"`
	for _, tc := range []struct {
		name   string
		metric string
		labels []string
		want   float64
	}{
		{"every series of a metric and profile add up", podGroupAttemptsMetric, []string{profile}, 8},
		{"a result picks its series only", podGroupAttemptsMetric, []string{profile, `result="scheduled"`}, 3},
		{"without labels every profile counts", podGroupAttemptsMetric, nil, 15},
		{"a metric whose name another begins with is apart", podAttemptsMetric, []string{profile}, 11},
		{"an unlabelled metric is its one series", "go_goroutines", nil, 13},
		{"a metric not scraped sums to zero", podGroupSecondsMetric, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sumSeries(series, tc.metric, tc.labels...); got != tc.want {
				t.Errorf("sumSeries(%s, %v) = %v, want %v", tc.metric, tc.labels, got, tc.want)
			}
		})
	}
}

// sampleGangReport has ours placing its 4 gangs in one cycle each with
// halves, and in-tree placing none.
func sampleGangReport() *Report {
	gang := func(placed int) *GangResult {
		return &GangResult{Placement: GangOwnNode, GangSize: 8, Gangs: 4, Part: "3g.40gb", Placed: placed}
	}
	ours := gang(4)
	ours.SpanNs, ours.GroupsPerSecond = int64(2*time.Second), 2
	ours.Latency = Latency{P50Ns: int64(time.Second), P99Ns: int64(1900 * time.Millisecond), MaxNs: int64(1900 * time.Millisecond)}
	ours.Cycles, ours.Scheduled, ours.CyclesPerGang, ours.CycleSeconds, ours.CPUSecondsPerGang, ours.PartDevices = 4, 4, 1, 0.2, 0.1, 32
	inTree := gang(0)
	inTree.Cycles, inTree.Unschedulable, inTree.CyclesPerGang, inTree.CycleSeconds, inTree.CPUSecondsPerGang = 40, 40, 10, 0.8, 0.25
	return &Report{Tool: "dra-bench scheduler", SchemaVersion: ReportSchemaVersion,
		Settings: Settings{Workload: WorkloadGang, GangTimeoutNs: int64(2 * time.Minute), Shape: "h100-mig", Claims: "template", Target: "in-process control plane"},
		Results: []Result{
			{Nodes: 4, Devices: 16, Config: ConfigOurs, Pods: 32, Bound: 32, Claims: 32, ClaimsAllocated: 32, SchedulerCPUSeconds: 0.4, ResourceClaimWorkers: 50, Gang: ours},
			{Nodes: 4, Devices: 16, Config: ConfigInTree, Pods: 32, Claims: 32, SchedulerCPUSeconds: 1, ResourceClaimWorkers: 50, Gang: inTree},
		}}
}

func TestGangTable(t *testing.T) {
	out := collapsedTable(t, sampleGangReport())
	wantRows(t, out, []tableRow{
		{"the header names the workload", "dra-bench scheduler: workload gang: shape h100-mig"},
		{"the table has groups per second, cycles and CPU per gang", "nodes config gangs placed pods bound time groups/s cycles cycles/gang placements/gang ms/cycle sched CPU s CPU ms/gang CPU vs device-plugin gang p50 gang p99 whole parts"},
		{"ours placed every gang in one cycle each, on halves", "4 ours 4 4 32 2s 2.00 4 1.00 - 50.0 0.40 100 - 1s 1.9s 0 32"},
		{"in-tree placed none and kept trying", "4 in-tree 4 0 0 - - 40 10.0 - 20.0 1.00 250 - - - 0 0"},
		{"in-tree's pending gangs are said, not failed", "4 nodes, in-tree: 4 of 4 gangs of 8 still pending after 2m0s"},
	})
	if strings.Contains(out, "in-tree: only") || strings.Contains(out, "ours: ") {
		t.Errorf("the table reports a problem:\n%s", out)
	}
}

// collapsedTable is rep's table with the padding of its columns collapsed
// to one space, for comparing rows.
func collapsedTable(t *testing.T, rep *Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(buf.String(), "\n") {
		lines = append(lines, strings.Join(strings.Fields(line), " "))
	}
	return strings.Join(lines, "\n")
}

// tableRow is a line a table must contain, and why.
type tableRow struct{ name, want string }

// wantRows checks that out has every row, a subtest each.
func wantRows(t *testing.T, out string, rows []tableRow) {
	t.Helper()
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			if !strings.Contains(out, row.want) {
				t.Errorf("table lacks %q:\n%s", row.want, out)
			}
		})
	}
}

func TestGangProblems(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config Config
		change func(*Result)
		want   string
	}{
		{"ours placing every gang is no problem", ConfigOurs, func(*Result) {}, ""},
		{"in-tree placing none is the recorded difference, not a problem", ConfigInTree, func(r *Result) { r.Gang.Placed, r.Bound, r.ClaimsAllocated = 0, 0, 0 }, ""},
		{"ours leaving a gang pending on its own node fails", ConfigOurs, func(r *Result) { r.Gang.Placed, r.Bound, r.ClaimsAllocated = 3, 24, 24 }, "only 3 of 4 gangs placed"},
		{"gangs that compete anywhere may stay pending", ConfigOurs, func(r *Result) {
			r.Gang.Placement, r.Gang.Placed, r.Bound, r.ClaimsAllocated = GangAnyNode, 3, 24, 24
		}, ""},
		{"a gang partly bound fails any configuration", ConfigInTree, func(r *Result) { r.Gang.Partial = 1 }, "1 gangs have only some of their pods bound"},
		{"a pending gang holding devices fails", ConfigInTree, func(r *Result) { r.Gang.Placed, r.Bound = 0, 0 }, "32 claims allocated for 0 bound pods"},
		{"a device held twice fails", ConfigOurs, func(r *Result) { r.DuplicateDevices = 1 }, "1 device(s) allocated twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Result{Config: tc.config, Pods: 32, Bound: 32, Claims: 32, ClaimsAllocated: 32,
				Gang: &GangResult{Placement: GangOwnNode, GangSize: 8, Gangs: 4, Placed: 4}}
			tc.change(&r)
			if got := r.problem(); !strings.Contains(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("problem() = %q, want %q", got, tc.want)
			}
		})
	}
}
