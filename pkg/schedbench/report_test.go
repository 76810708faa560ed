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

	"github.com/dra-scheduler/dra-scheduler/pkg/benchenv"
)

func TestSummarizeUsesNearestRank(t *testing.T) {
	var samples []time.Duration
	// 100 samples 1ms..100ms, shuffled order must not matter.
	for i := 100; i >= 1; i-- {
		samples = append(samples, time.Duration(i)*time.Millisecond)
	}
	got := Summarize(samples)
	want := Latency{P50Ns: int64(50 * time.Millisecond), P90Ns: int64(90 * time.Millisecond), P99Ns: int64(99 * time.Millisecond),
		MaxNs: int64(100 * time.Millisecond), MeanNs: float64(50500 * time.Microsecond)}
	if got != want {
		t.Errorf("Summarize(1..100ms) = %+v, want %+v", got, want)
	}
	if samples[0] != 100*time.Millisecond {
		t.Error("Summarize sorted its input")
	}
	three := Summarize([]time.Duration{3, 1, 2})
	if three.P50Ns != 2 || three.P90Ns != 3 || three.P99Ns != 3 || three.MaxNs != 3 {
		t.Errorf("Summarize(1,2,3) = %+v, want p50 2, p90/p99/max 3", three)
	}
	if (Summarize(nil) != Latency{}) {
		t.Error("Summarize(nil) is not zero")
	}
}

// sampleReport has every configuration at two sizes; no-claims is the
// fastest, ours twice in-tree at 500 nodes.
func sampleReport() *Report {
	res := func(nodes int, c Config, pps float64, p50 time.Duration) Result {
		return Result{Nodes: nodes, Devices: nodes * 10, Config: c, Pods: 100, Bound: 100, PodsPerSecond: pps,
			SpanNs: int64(float64(time.Second) * 100 / pps), Latency: Latency{P50Ns: int64(p50), P90Ns: int64(2 * p50), P99Ns: int64(3 * p50), MaxNs: int64(4 * p50)},
			SchedulerPeakRSSBytes: 150 << 20, SchedulerCPUSeconds: 1.5, Claims: 100, ClaimsAllocated: 100,
			SchedulerFeatureGates: "SchedulerPopFromBackoffQ=false", ResourceClaimWorkers: 50}
	}
	rep := &Report{Tool: "dra-bench scheduler", SchemaVersion: ReportSchemaVersion,
		Environment: benchenv.Environment{Version: "v1.2.3", VCSRevision: "abc123", Kernel: "6.1.0", GOGC: "200"}, Settings: Settings{Shape: "schedperf", Claims: "template", QPS: 5000, Burst: 5000,
			Target: "in-process control plane", FeatureGates: "SchedulerPopFromBackoffQ=false", ResourceClaimWorkers: 50}}
	rep.Results = []Result{
		res(100, ConfigOurs, 200, 100*time.Millisecond),
		res(100, ConfigInTree, 160, 150*time.Millisecond),
		res(100, ConfigNoClaims, 400, 20*time.Millisecond),
		res(500, ConfigOurs, 180, 120*time.Millisecond),
		res(500, ConfigInTree, 90, 900*time.Millisecond),
		res(500, ConfigNoClaims, 360, 25*time.Millisecond),
	}
	rep.Results[5].Claims, rep.Results[5].ClaimsAllocated = 0, 0
	for i := range rep.Results {
		if r := &rep.Results[i]; r.Config == ConfigOurs {
			r.SchedulerFeatureGates = "SchedulerPopFromBackoffQ=false,SchedulerPreQueueingHints=true"
		}
	}
	rep.fillComparisons()
	return rep
}

func TestComparisons(t *testing.T) {
	rep := sampleReport()
	for _, tc := range []struct {
		i              int
		ratio, percent float64
	}{
		{0, 1.25, 50}, {1, 1, 40}, {2, 2.5, 100}, {3, 2, 50}, {4, 1, 25}, {5, 4, 100},
	} {
		r := rep.Results[tc.i]
		if r.RatioVsInTree == nil || *r.RatioVsInTree != tc.ratio {
			t.Errorf("%d nodes %s: ratio vs in-tree %v, want %v", r.Nodes, r.Config, deref(r.RatioVsInTree), tc.ratio)
		}
		if r.PercentOfNoClaims == nil || *r.PercentOfNoClaims != tc.percent {
			t.Errorf("%d nodes %s: %% of no-claims %v, want %v", r.Nodes, r.Config, deref(r.PercentOfNoClaims), tc.percent)
		}
	}

	// Without in-tree (or with an in-tree run that bound nothing) there is
	// no ratio rather than a division by zero.
	rep.Results[1].PodsPerSecond, rep.Results[1].Bound = 0, 0
	rep.fillComparisons()
	if r := rep.Results[0]; r.RatioVsInTree != nil {
		t.Errorf("ratio against an in-tree run without pods/s: %v", *r.RatioVsInTree)
	}
}

func deref(p *float64) any {
	if p == nil {
		return "absent"
	}
	return *p
}

func TestWriteTable(t *testing.T) {
	rep := sampleReport()
	rep.Results = append(rep.Results, Result{Nodes: 1000, Config: ConfigOurs, Pods: 100, Bound: 40, Error: "timed out after 1m0s: 40 of 100 pods bound"})
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"nodes", "config", "time", "pods/s", "p50", "p99", "vs in-tree", "% of no-claims", "sched RSS MiB", "CPU s", "CPU vs device-plugin", "control plane CPU s", "API writes/pod",
		"1000 nodes, ours: timed out after 1m0s: 40 of 100 pods bound",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The 500-node ours row, with control plane CPU and writes per pod.
	for i := range rep.Results {
		if r := &rep.Results[i]; r.Nodes == 500 && r.Config == ConfigOurs {
			r.ControlPlaneCPUSeconds, r.APIWrites = 4.25, 650
		}
	}
	b.Reset()
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	row := "500 ours 100 100 556ms 180 120ms 240ms 360ms 480ms 2.00× 50% 150 1.50 - 4.25 6.5"
	found := false
	for _, line := range strings.Split(out, "\n") {
		found = found || strings.Join(strings.Fields(line), " ") == row
	}
	if !found {
		t.Errorf("table lacks the row %q:\n%s", row, out)
	}
}

// TestWriteTableHeaderSaysWhatProducedTheResults checks the lines above
// the table: the tool, shape, claims and target, then once per
// configuration the scheduler's feature gates and the resourceclaim
// controller's workers.
func TestWriteTableHeaderSaysWhatProducedTheResults(t *testing.T) {
	inProcess := sampleReport()
	cluster := sampleReport()
	cluster.Settings.Target, cluster.Settings.ResourceClaimWorkers = "cluster of /tmp/kubeconfig", 0
	cluster.Results = cluster.Results[:2]
	for i := range cluster.Results {
		cluster.Results[i].ResourceClaimWorkers = 0
		cluster.Results[i].SchedulerFeatureGates = ""
	}
	tests := []struct {
		name      string
		rep       *Report
		wantLines []string
	}{
		{"an in-process run names each configuration's gates and the controller's workers once", inProcess, []string{
			"dra-bench scheduler v1.2.3: shape schedperf, claims template, in-process control plane",
			"config scheduler --feature-gates resourceclaim controller workers",
			"ours SchedulerPopFromBackoffQ=false,SchedulerPreQueueingHints=true 50",
			"in-tree SchedulerPopFromBackoffQ=false 50",
			"no-claims SchedulerPopFromBackoffQ=false 50",
			"",
		}},
		{"a run on a cluster says the workers are the cluster's, and none for no gates", cluster, []string{
			"dra-bench scheduler v1.2.3: shape schedperf, claims template, cluster of /tmp/kubeconfig",
			"config scheduler --feature-gates resourceclaim controller workers",
			"ours none the cluster's",
			"in-tree none the cluster's",
			"",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.rep.WriteTable(&b); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(b.String(), "\n")
			if len(lines) < len(tc.wantLines)+1 {
				t.Fatalf("%d lines:\n%s", len(lines), b.String())
			}
			for i, want := range tc.wantLines {
				if got := strings.Join(strings.Fields(lines[i]), " "); got != want {
					t.Errorf("line %d = %q, want %q\n%s", i+1, got, want, b.String())
				}
			}
			if next := lines[len(tc.wantLines)]; !strings.HasPrefix(strings.TrimSpace(next), "nodes") {
				t.Errorf("the table does not follow the header: %q", next)
			}
		})
	}
}

func TestWriteJSON(t *testing.T) {
	rep := sampleReport()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tool     string         `json:"tool"`
		Settings map[string]any `json:"settings"`
		Results  []map[string]any
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	// The schema version and the environment sit at the top level.
	var top map[string]any
	if err := json.Unmarshal(b.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{"schemaVersion": float64(ReportSchemaVersion), "version": "v1.2.3", "vcsRevision": "abc123", "kernel": "6.1.0", "gogc": "200"} {
		if top[key] != want {
			t.Errorf("top-level %s = %v, want %v", key, top[key], want)
		}
	}
	if doc.Tool != "dra-bench scheduler" || len(doc.Results) != 6 {
		t.Fatalf("tool %q, %d results", doc.Tool, len(doc.Results))
	}
	r := doc.Results[3]
	if r["config"] != "ours" || r["nodes"] != float64(500) || r["ratioVsInTree"] != float64(2) || r["percentOfNoClaims"] != float64(50) {
		t.Errorf("result 3 = %v", r)
	}
	lat, _ := r["latency"].(map[string]any)
	if lat["p50Ns"] != float64(120*time.Millisecond) {
		t.Errorf("latency = %v", lat)
	}
	// What produced the results: per result the scheduler's gates and the
	// controller's workers, in the settings the given gates and workers.
	if r["schedulerFeatureGates"] != "SchedulerPopFromBackoffQ=false,SchedulerPreQueueingHints=true" || r["resourceClaimWorkers"] != float64(50) {
		t.Errorf("result 3 gates %v, workers %v", r["schedulerFeatureGates"], r["resourceClaimWorkers"])
	}
	if r := doc.Results[4]; r["schedulerFeatureGates"] != "SchedulerPopFromBackoffQ=false" {
		t.Errorf("result 4 (in-tree) gates %v", r["schedulerFeatureGates"])
	}
	if s := doc.Settings; s["featureGates"] != "SchedulerPopFromBackoffQ=false" || s["resourceClaimWorkers"] != float64(50) {
		t.Errorf("settings = %v", s)
	}
	// The fields reports had before are still there, under their names.
	for _, key := range []string{"shape", "shapeDescription", "claims", "warmup", "qps", "burst", "writers", "timeoutNs", "target", "schedulerName"} {
		if _, ok := doc.Settings[key]; !ok {
			t.Errorf("settings lack %q", key)
		}
	}
	// Without gates the field is there, empty: no gates, not unknown.
	rep.Results[4].SchedulerFeatureGates = ""
	b.Reset()
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"schedulerFeatureGates": ""`) {
		t.Errorf("a result without gates has no empty schedulerFeatureGates:\n%s", b.String())
	}
}

func TestResultFailed(t *testing.T) {
	ok := Result{Config: ConfigOurs, Pods: 10, Bound: 10, Claims: 10, ClaimsAllocated: 10}
	for _, tc := range []struct {
		name   string
		change func(*Result)
		want   bool
	}{
		{"complete", func(*Result) {}, false},
		{"error", func(r *Result) { r.Error = "boom" }, true},
		{"a pod unbound", func(r *Result) { r.Bound = 9 }, true},
		{"a claim unallocated", func(r *Result) { r.ClaimsAllocated = 9 }, true},
		{"a device twice", func(r *Result) { r.DuplicateDevices = 1 }, true},
		{"no-claims has no claims to allocate", func(r *Result) { r.Config, r.Claims, r.ClaimsAllocated = ConfigNoClaims, 0, 0 }, false},
		{"the pending pods' claims stay unallocated", func(r *Result) { r.PendingPods, r.Claims = 3, 13 }, false},
		{"a pending pod's claim allocated is wrong", func(r *Result) { r.PendingPods, r.Claims, r.ClaimsAllocated = 3, 13, 11 }, true},
		{"a measured pod's claim unallocated beside the pending ones", func(r *Result) { r.PendingPods, r.Claims, r.ClaimsAllocated = 3, 13, 9 }, true},
	} {
		r := ok
		tc.change(&r)
		if got := r.Failed(); got != tc.want {
			t.Errorf("%s: Failed() = %v, want %v", tc.name, got, tc.want)
		}
		if (r.problem() != "") != tc.want {
			t.Errorf("%s: problem() = %q", tc.name, r.problem())
		}
	}
}

func TestFigure(t *testing.T) {
	fig := sampleReport().Figure()
	if len(fig.Panels) != 2 {
		t.Fatalf("%d panels, want throughput and latency", len(fig.Panels))
	}
	var names []string
	for _, p := range fig.Panels {
		for _, s := range p.Series {
			names = append(names, s.Name)
			if len(s.Points) != 2 {
				t.Errorf("series %s has %d points, want one per size", s.Name, len(s.Points))
			}
		}
	}
	want := "ours in-tree no-claims ours p50 ours p99 in-tree p50 in-tree p99 no-claims p50 no-claims p99"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("series %q, want %q", got, want)
	}
	tp := fig.Panels[0].Series[0].Points
	if tp[0].X != 100 || tp[0].Y != 200 || tp[1].X != 500 || tp[1].Y != 180 {
		t.Errorf("ours throughput points %v", tp)
	}
}
