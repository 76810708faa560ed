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
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/manifests"
	"github.com/dra-scheduler/dra-scheduler/pkg/benchcompare"
	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
)

// TestMain lets the test binary act as the scheduler child of
// `dra-bench scheduler` (which re-executes os.Args[0] with ChildEnv set).
func TestMain(m *testing.M) {
	if encoded := os.Getenv(schedbench.ChildEnv); encoded != "" {
		os.Exit(schedulerapp.RunJSONArgs(encoded))
	}
	os.Exit(m.Run())
}

func TestSchedulerCommandLine(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"help lists the scheduler command", []string{"--help"}, 0, "scheduler  end-to-end pods/s", ""},
		{"the scheduler's help explains the configurations", []string{"scheduler", "--help"}, 0, "", "no-claims  default plugins, the same pods without claims"},
		{"a bad configuration is a usage error", []string{"scheduler", "--configs", "ours,fast"}, 2, "", `unknown configuration "fast"`},
		{"a bad shape is a usage error", []string{"scheduler", "--shape", "tpu"}, 2, "", `--shape: unknown shape "tpu"`},
		{"a bad claims mode is a usage error", []string{"scheduler", "--claims", "shared"}, 2, "", `--claims "shared"`},
		{"more pods than devices is a usage error", []string{"scheduler", "--nodes", "1", "--pods", "11", "--log-dir", t.TempDir()}, 2, "", "fewer than the 11 pods"},
		{"--create-inventory needs --kubeconfig", []string{"scheduler", "--create-inventory"}, 2, "", "--create-inventory needs --kubeconfig"},
		{"an existing cluster needs --pods", []string{"scheduler", "--kubeconfig", "/nonexistent"}, 2, "", "needs --pods"},
		{"the help names the flags of the benchmark's fidelity", []string{"scheduler", "--help"}, 0, "", "-claim-workers int"},
		{"the help names each configuration's default feature gates", []string{"scheduler", "--help"}, 0, "", "(ours: SchedulerPreQueueingHints=true; in-tree, no-claims, device-plugin: none)"},
		{"an unknown feature gate is a usage error naming the flag and the gate", []string{"scheduler", "--feature-gates", "SchedulerPreQueueingHints=true,NoSuchGate=true"}, 2, "", "--feature-gates: feature gates NoSuchGate=true,SchedulerPreQueueingHints=true: unrecognized feature gate: NoSuchGate"},
		{"a feature gate without a value is a usage error", []string{"scheduler", "--feature-gates", "SchedulerPreQueueingHints"}, 2, "", `--feature-gates: feature gate "SchedulerPreQueueingHints": want name=true or name=false`},
		{"a feature gate that is not a boolean is a usage error", []string{"scheduler", "--feature-gates", "SchedulerPreQueueingHints=on"}, 2, "", "value is not a boolean"},
		{"feature gates through --scheduler-flag are a usage error", []string{"scheduler", "--scheduler-flag=--feature-gates=SchedulerPreQueueingHints=true", "--log-dir", t.TempDir()}, 2, "", "set feature gates with FeatureGates (dra-bench's --feature-gates)"},
		{"an unknown workload is a usage error", []string{"scheduler", "--workload", "churn"}, 2, "", `--workload: unknown workload "churn"`},
		{"the preemption workload has no no-claims configuration", []string{"scheduler", "--workload", "preemption", "--configs", "ours,no-claims", "--log-dir", t.TempDir()}, 2, "", `configuration "no-claims" has none`},
		{"the preemption workload takes at most one preemptor per node", []string{"scheduler", "--workload", "preemption", "--nodes", "2", "--preemptors", "3", "--log-dir", t.TempDir()}, 2, "", "3 preemptors on 2 nodes"},
		{"--preemptors goes with the preemption workload", []string{"scheduler", "--preemptors", "3"}, 2, "", "--preemptors and --preemption-timeout go with --workload preemption"},
		{"the preemption workload draws no chart", []string{"scheduler", "--workload", "preemption", "--chart", "x.svg"}, 2, "", "--chart draws throughput"},
		{"--gang-size goes with the gang workload", []string{"scheduler", "--gang-size", "4"}, 2, "", "--gang-size, --gangs, --gang-placement, --gang-timeout and --rack-size go with --workload gang"},
		{"a gang of one pod is a usage error", []string{"scheduler", "--workload", "gang", "--gang-size", "1"}, 2, "", "--gang-size 1: want at least 2"},
		{"a gang timeout of zero is a usage error", []string{"scheduler", "--workload", "gang", "--gang-timeout", "0s"}, 2, "", "--gang-timeout 0s: want a positive duration"},
		{"negative gangs are a usage error", []string{"scheduler", "--workload", "gang", "--gangs", "-1"}, 2, "", "--gangs -1: want at least 1"},
		{"an unknown gang placement is a usage error", []string{"scheduler", "--workload", "gang", "--gang-placement", "zone"}, 2, "", `--gang-placement: unknown gang placement "zone"`},
		{"the gang workload needs a shape whose devices have parts", []string{"scheduler", "--workload", "gang", "--shape", "h100", "--log-dir", t.TempDir()}, 2, "", "shape h100 announces no parts of its devices"},
		{"the gang workload takes at most one gang per node of their own", []string{"scheduler", "--workload", "gang", "--nodes", "2", "--gangs", "3", "--log-dir", t.TempDir()}, 2, "", "3 gangs on 2 nodes of their own"},
		{"the gang workload refuses gangs that fit on a node's whole GPUs", []string{"scheduler", "--workload", "gang", "--gang-size", "4", "--log-dir", t.TempDir()}, 2, "", "want more pods than devices"},
		{"the scheduler's help explains device-plugin and its resource", []string{"scheduler", "--help"}, 0, "", "as an extended\n                 resource, dra-bench.example.com/device"},
		{"the --configs help names device-plugin", []string{"scheduler", "--help"}, 0, "", "no-claims, device-plugin (the baseline without DRA"},
		{"device-plugin is accepted for preemption, whose other limits still apply", []string{"scheduler", "--workload", "preemption", "--configs", "device-plugin", "--nodes", "2", "--preemptors", "3", "--log-dir", t.TempDir()}, 2, "", "3 preemptors on 2 nodes"},
		{"device-plugin cannot run gangs that fall back to parts", []string{"scheduler", "--workload", "gang", "--configs", "ours,device-plugin", "--log-dir", t.TempDir()}, 2, "", `configuration "device-plugin" runs gangs of whole devices only, in racks`},
		{"device-plugin needs nodes it can give the extended resource", []string{"scheduler", "--kubeconfig", "/nonexistent", "--pods", "2", "--configs", "device-plugin", "--log-dir", t.TempDir()}, 2, "", "needs nodes that advertise dra-bench.example.com/device"},
		{"the gang workload has no no-claims configuration", []string{"scheduler", "--workload", "gang", "--configs", "ours,no-claims", "--log-dir", t.TempDir()}, 2, "", `configuration "no-claims" has none`},
		{"the gang workload draws no chart", []string{"scheduler", "--workload", "gang", "--chart", "x.svg"}, 2, "", "not with --workload gang"},
		{"an unknown pending reason is a usage error naming the flag", []string{"scheduler", "--pending", "3", "--pending-reason", "full"}, 2, "", `--pending-reason: unknown pending reason "full" (want too-big or held)`},
		{"a held backlog needs --pending", []string{"scheduler", "--pending-reason", "held", "--configs", "ours", "--log-dir", t.TempDir()}, 2, "", "pending reason held needs a backlog: pending pods (--pending) must be at least 1"},
		{"a held backlog refuses no-claims, which has no devices to hold", []string{"scheduler", "--pending", "3", "--pending-reason", "held", "--log-dir", t.TempDir()}, 2, "", `configuration "no-claims" has none to hold or wait for`},
		{"a held backlog needs nodes beyond the measured pods', naming the numbers", []string{"scheduler", "--nodes", "2", "--pods", "20", "--pending", "3", "--pending-reason", "held", "--configs", "ours", "--log-dir", t.TempDir()}, 2, "",
			"pending reason held on 2 nodes of shape schedperf (10 devices each): the 20 measured and 0 warm-up pods need 2 free nodes, leaving none"},
		{"the help explains --pending-reason held and its node label", []string{"scheduler", "--help"}, 0, "", "dra-bench.example.com/capacity=held"},
		{"zero claim workers are a usage error", []string{"scheduler", "--claim-workers", "0"}, 2, "", "--claim-workers 0: want at least 1"},
		{"claim workers other than the default with --kubeconfig are a usage error", []string{"scheduler", "--kubeconfig", "/nonexistent", "--pods", "2", "--claim-workers", "10"}, 2, "", "--claim-workers 10 with --kubeconfig: the workers configure the in-process control plane's resourceclaim controller"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.wantStdout, stdout)
			}
			if !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, stderr)
			}
		})
	}
}

// TestSchedulerFlags parses flags into the run's options as
// runScheduler does, without running anything.
func TestSchedulerFlags(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		wantWorkers   int
		wantGates     string
		wantOursGates string
	}{
		{"the defaults run kube-controller-manager's 50 claim workers and only ours' default gate", nil,
			50, "", "SchedulerPreQueueingHints=true"},
		{"--claim-workers sets the in-process controller's workers", []string{"--claim-workers", "10"},
			10, "", "SchedulerPreQueueingHints=true"},
		{"--feature-gates go to every configuration over ours' defaults", []string{"--feature-gates", "SchedulerPopFromBackoffQ=false"},
			50, "SchedulerPopFromBackoffQ=false", "SchedulerPopFromBackoffQ=false,SchedulerPreQueueingHints=true"},
		{"a gate in --feature-gates overrides ours' default for it", []string{"--feature-gates", "SchedulerPreQueueingHints=false"},
			50, "SchedulerPreQueueingHints=false", "SchedulerPreQueueingHints=false"},
		{"--kubeconfig leaves the claim workers to the cluster", []string{"--kubeconfig", "/nonexistent", "--pods", "2"},
			0, "", "SchedulerPreQueueingHints=true"},
		{"--kubeconfig accepts the default --claim-workers given explicitly", []string{"--kubeconfig", "/nonexistent", "--pods", "2", "--claim-workers", "50"},
			0, "", "SchedulerPreQueueingHints=true"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseSchedulerFlags(t, tc.args...)
			if err != nil {
				t.Fatalf("complete: %v", err)
			}
			if f.opts.ClaimWorkers != tc.wantWorkers {
				t.Errorf("claim workers %d, want %d", f.opts.ClaimWorkers, tc.wantWorkers)
			}
			if got := f.opts.FeatureGates.String(); got != tc.wantGates {
				t.Errorf("feature gates %q, want %q", got, tc.wantGates)
			}
			if got := f.opts.SchedulerFeatureGates(schedbench.ConfigOurs).String(); got != tc.wantOursGates {
				t.Errorf("ours' scheduler gets %q, want %q", got, tc.wantOursGates)
			}
			if got := f.opts.SchedulerFeatureGates(schedbench.ConfigInTree).String(); got != tc.wantGates {
				t.Errorf("in-tree's scheduler gets %q, want only the given %q", got, tc.wantGates)
			}
		})
	}
}

// TestSchedulerEndToEnd runs the three default configurations and
// device-plugin on 5 nodes with 10 pods: a real control plane per
// configuration, dra-scheduler as a child process (this test binary, see
// TestMain). Every pod must be bound, every claim of the DRA
// configurations allocated with no device twice, the numbers must be
// measurements, not zeros, and every configuration's scheduler CPU per pod
// must be compared with device-plugin's whenever both read above 0.
func TestSchedulerEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four control planes")
	}
	dir := t.TempDir()
	chart := filepath.Join(dir, "chart.svg")
	logDir := filepath.Join(dir, "logs")
	configs := append(schedbench.AllConfigs(), schedbench.ConfigDevicePlugin)
	code, stdout, stderr := runArgs("scheduler", "--nodes", "5", "--pods", "10", "--warmup", "1", "--pending", "3", "--format", "json",
		"--configs", "ours,in-tree,no-claims,device-plugin", "--chart", chart, "--log-dir", logDir, "--stall", "30s", "--timeout", "40s")
	if code != 0 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var rep schedbench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout)
	}
	if len(rep.Results) != 4 {
		t.Fatalf("%d results, want 4:\n%s", len(rep.Results), stdout)
	}
	// dra-bench compare and --format benchfmt read the same JSON.
	if parsed, err := benchcompare.Parse([]byte(stdout)); err != nil || len(parsed.Result) != 4 ||
		parsed.Result[0].Name != "Scheduler/shape=schedperf/claims=template/nodes=5/pods=10/config=ours/pending=3" ||
		parsed.Result[0].Metrics[0].Unit != "pods/s" || parsed.Result[0].Metrics[0].Value != rep.Results[0].PodsPerSecond ||
		parsed.Result[3].Name != "Scheduler/shape=schedperf/claims=template/nodes=5/pods=10/config=device-plugin/pending=3" {
		t.Errorf("benchcompare.Parse: %v, %+v; want four results, the first ours with its pods/s, the last device-plugin", err, parsed)
	}
	devicePlugin := rep.Results[3]
	for i, want := range configs {
		r := rep.Results[i]
		if r.Config != want || r.Nodes != 5 || r.Devices != 50 || r.Pods != 10 {
			t.Errorf("result %d: config %s, %d nodes, %d devices, %d pods; want %s, 5, 50, 10", i, r.Config, r.Nodes, r.Devices, r.Pods, want)
		}
		if r.Bound != r.Pods || r.Error != "" {
			t.Errorf("%s: %d of %d pods bound, error %q", r.Config, r.Bound, r.Pods, r.Error)
		}
		// The warm-up pod's and the 10 measured pods' claims are allocated;
		// the 3 pending pods' (one device more than a node has) are not.
		wantClaims, wantAllocated := 14, 11
		if !r.Config.HasClaims() {
			wantClaims, wantAllocated = 0, 0
		}
		if r.Claims != wantClaims || r.ClaimsAllocated != wantAllocated || r.DuplicateDevices != 0 {
			t.Errorf("%s: %d claims, %d allocated, %d devices twice; want %d, %d, 0", r.Config, r.Claims, r.ClaimsAllocated, r.DuplicateDevices, wantClaims, wantAllocated)
		}
		if r.PendingPods != 3 {
			t.Errorf("%s: %d pending pods in the queue, want 3", r.Config, r.PendingPods)
		}
		l := r.Latency
		if r.PodsPerSecond <= 0 || r.SpanNs <= 0 || l.P50Ns <= 0 || l.P50Ns > l.P90Ns || l.P90Ns > l.P99Ns || l.P99Ns > l.MaxNs {
			t.Errorf("%s: implausible numbers: %.1f pods/s, span %d ns, latency %+v", r.Config, r.PodsPerSecond, r.SpanNs, l)
		}
		if r.SchedulerPeakRSSBytes < 10<<20 || r.SchedulerCPUTotalSeconds <= 0 || r.SchedulerCPUTotalSeconds < r.SchedulerCPUSeconds {
			t.Errorf("%s: scheduler peak RSS %d bytes, CPU %.2fs measured of %.2fs total", r.Config, r.SchedulerPeakRSSBytes, r.SchedulerCPUSeconds, r.SchedulerCPUTotalSeconds)
		}
		if _, err := os.Stat(r.SchedulerLog); err != nil {
			t.Errorf("%s: scheduler log: %v", r.Config, err)
		}
		if r.RatioVsInTree == nil || r.PercentOfNoClaims == nil {
			t.Errorf("%s: comparisons missing", r.Config)
		}
		// Every ratio against device-plugin is the one its times give, and
		// absent where one of them reads 0: CPU times are read in 10 ms
		// ticks, and a run this small may read 0.
		checkRatio := func(name string, got *float64, want float64, inputs ...float64) {
			for _, v := range inputs {
				if v <= 0 {
					if got != nil {
						t.Errorf("%s: %s vs device-plugin %v, though a time it needs read 0 (%v)", r.Config, name, *got, inputs)
					} else {
						t.Logf("%s: no %s ratio: a time it needs read 0 (%v)", r.Config, name, inputs)
					}
					return
				}
			}
			if got == nil || *got != want {
				t.Errorf("%s: %s vs device-plugin %v, want %v (from %v)", r.Config, name, ratioOrAbsent(got), want, inputs)
			}
		}
		perPod := func(s float64, r schedbench.Result) float64 { return s / float64(r.Pods) }
		sched, cp := perPod(r.SchedulerCPUSeconds, r), perPod(r.ControlPlaneCPUSeconds, r)
		dpSched, dpCP := perPod(devicePlugin.SchedulerCPUSeconds, devicePlugin), perPod(devicePlugin.ControlPlaneCPUSeconds, devicePlugin)
		p99, dpP99 := float64(r.Latency.P99Ns), float64(devicePlugin.Latency.P99Ns)
		checkRatio("CPU", r.CPUVsDevicePlugin, sched/dpSched, sched, dpSched)
		checkRatio("p99", r.P99VsDevicePlugin, p99/dpP99, p99, dpP99)
		checkRatio("control plane CPU", r.ControlPlaneCPUVsDevicePlugin, cp/dpCP, cp, dpCP)
		checkRatio("p99 floor", r.P99FloorVsDevicePlugin, (dpSched+cp)/(dpSched+dpCP), cp, dpCP, dpSched)
		if r.APIWrites <= 0 {
			t.Errorf("%s: no API writes counted", r.Config)
		}
		var byKind int64
		for _, n := range r.APIWritesBy {
			byKind += n
		}
		if byKind != r.APIWrites || r.APIWritesBy["pods/binding POST"] < int64(r.Bound) {
			t.Errorf("%s: API writes by kind %v add up to %d, with %d bindings; want %d writes, at least %d bindings", r.Config, r.APIWritesBy, byKind, r.APIWritesBy["pods/binding POST"], r.APIWrites, r.Bound)
		}
		wantGates := ""
		if r.Config == schedbench.ConfigOurs {
			wantGates = "SchedulerPreQueueingHints=true"
		}
		if r.SchedulerFeatureGates != wantGates || r.ResourceClaimWorkers != 50 {
			t.Errorf("%s: scheduler feature gates %q, %d resourceclaim workers; want %q, 50", r.Config, r.SchedulerFeatureGates, r.ResourceClaimWorkers, wantGates)
		}
	}
	if rep.Settings.ResourceClaimWorkers != 50 || rep.Settings.FeatureGates != "" {
		t.Errorf("settings: %d resourceclaim workers, feature gates %q; want 50 and none", rep.Settings.ResourceClaimWorkers, rep.Settings.FeatureGates)
	}
	// Each scheduler logs its flags (kube-scheduler's "FLAG: --feature-gates=..."
	// at -v=1): ours got its gate, in-tree none.
	for _, r := range rep.Results[:2] {
		log, err := os.ReadFile(r.SchedulerLog)
		if err != nil {
			t.Fatal(err)
		}
		var flagLine string
		for _, line := range strings.Split(string(log), "\n") {
			if strings.Contains(line, "FLAG: --feature-gates=") {
				flagLine = line
			}
		}
		if got := strings.Contains(flagLine, "SchedulerPreQueueingHints=true"); got != (r.Config == schedbench.ConfigOurs) || flagLine == "" {
			t.Errorf("%s: the scheduler's --feature-gates, as it logged them: %q", r.Config, flagLine)
		}
	}
	if dp := devicePlugin; dp.Config != schedbench.ConfigDevicePlugin || dp.Claims != 0 || dp.DuplicateDevices != 0 || dp.APIWrites > rep.Results[0].APIWrites {
		t.Errorf("device-plugin: config %s, %d claims, %d units over a node's, %d API writes (ours %d); want no claims, none over, and no more writes than ours",
			dp.Config, dp.Claims, dp.DuplicateDevices, dp.APIWrites, rep.Results[0].APIWrites)
	}
	for _, want := range []string{"[1/4] nodes=5 config=ours: set up", "scheduler ready", "10 pods created", "[3/4] nodes=5 config=no-claims: 10 pods bound",
		"[4/4] nodes=5 config=device-plugin: set up", "claims: none, one dra-bench.example.com/device per pod", "[4/4] nodes=5 config=device-plugin: 10 pods bound", "wrote " + chart} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	svg, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	for _, series := range []string{"ours", "in-tree", "no-claims p50", "device-plugin", "device-plugin p99"} {
		if !bytes.Contains(svg, []byte(`data-series="`+series+`"`)) {
			t.Errorf("chart lacks series %q", series)
		}
	}
	// Every key of the JSON is documented in README.md.
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	collectKeys(doc, keys)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for k := range keys {
		if !bytes.Contains(readme, []byte("`"+k+"`")) {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("README.md does not document the JSON fields %q", missing)
	}
}

// TestSchedulerEndToEndHeldBacklog runs a backlog waiting for held
// devices (--pending-reason held) with ours and device-plugin on 8 nodes of
// 10 devices: 1 warm-up and 6 measured pods need the first node, so 70
// holder pods take every device of the other 7, where 3 backlog pods of
// one device each wait. Every measured pod must be bound, the holders
// still bound at the end and the backlog still pending (its claims
// unallocated), with the reason in the report.
func TestSchedulerEndToEndHeldBacklog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two control planes")
	}
	code, stdout, stderr := runArgs("scheduler", "--nodes", "8", "--pods", "6", "--warmup", "1", "--pending", "3", "--pending-reason", "held",
		"--configs", "ours,device-plugin", "--format", "json", "--log-dir", filepath.Join(t.TempDir(), "logs"), "--stall", "30s", "--timeout", "60s")
	if code != 0 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var rep schedbench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Results) != 2 {
		t.Fatalf("stdout is not a report of two results: %v\n%s", err, stdout)
	}
	if rep.Settings.Pending != 3 || rep.Settings.PendingReason != schedbench.PendingHeld {
		t.Errorf("settings: %d pending pods (%q), want 3 (held)", rep.Settings.Pending, rep.Settings.PendingReason)
	}
	for i, want := range []schedbench.Config{schedbench.ConfigOurs, schedbench.ConfigDevicePlugin} {
		r := rep.Results[i]
		if r.Config != want || r.Bound != 6 || r.Pods != 6 || r.Error != "" || r.Failed() {
			t.Errorf("result %d: %s, %d of %d pods bound, error %q, failed %v; want %s, all 6, none", i, r.Config, r.Bound, r.Pods, r.Error, r.Failed(), want)
		}
		if r.PendingPods != 3 || r.PendingReason != schedbench.PendingHeld || r.PendingBound != 0 {
			t.Errorf("%s: %d pending pods (%q), %d of them bound; want 3 (held), none bound", r.Config, r.PendingPods, r.PendingReason, r.PendingBound)
		}
		if r.HolderPods != 70 || r.HoldersBound != 70 || r.FreeNodes != 1 {
			t.Errorf("%s: %d holder pods, %d bound at the end, %d free nodes; want 70, 70, 1", r.Config, r.HolderPods, r.HoldersBound, r.FreeNodes)
		}
		// Warm-up, measured and holder pods' claims are allocated, the
		// backlog's are not; device-plugin has none, and no node over.
		wantClaims, wantAllocated := 80, 77
		if !r.Config.HasClaims() {
			wantClaims, wantAllocated = 0, 0
		}
		if r.Claims != wantClaims || r.ClaimsAllocated != wantAllocated || r.DuplicateDevices != 0 {
			t.Errorf("%s: %d claims, %d allocated, %d devices twice; want %d, %d, 0", r.Config, r.Claims, r.ClaimsAllocated, r.DuplicateDevices, wantClaims, wantAllocated)
		}
	}
	for _, want := range []string{"[1/2] nodes=8 config=ours: 70 holder pods hold every device of 7 nodes", "1 nodes are free",
		"[2/2] nodes=8 config=device-plugin: 3 pending pods (held) in the queue"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	// Compared runs keep a held backlog apart from a too-big one.
	if parsed, err := benchcompare.Parse([]byte(stdout)); err != nil || len(parsed.Result) != 2 ||
		parsed.Result[0].Name != "Scheduler/shape=schedperf/claims=template/nodes=8/pods=6/config=ours/pending=3/pending-reason=held" {
		t.Errorf("benchcompare.Parse: %v, %+v; want ours' name to end in /pending=3/pending-reason=held", err, parsed)
	}
	// Every key of the JSON is documented in README.md.
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	collectKeys(doc, keys)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for k := range keys {
		if !bytes.Contains(readme, []byte("`"+k+"`")) {
			t.Errorf("README.md does not document the JSON field %q", k)
		}
	}
}

// TestSchedulerEndToEndWithDevicesThatAreNodeCPU runs the cpu-mapped
// shape (DRANodeAllocatableResources) with DRAAllocator on 120 nodes:
// more than the 100 feasible nodes kube-scheduler looks for, so it stops
// the remaining Filters of every pod, which must not fail the pod's cycle
// (the scheduler logs "Error scheduling pod" when one does). Every pod
// must be bound, no device given twice, with the gate on in the scheduler.
func TestSchedulerEndToEndWithDevicesThatAreNodeCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	code, stdout, stderr := runArgs("scheduler", "--shape", "cpu-mapped", "--nodes", "120", "--pods", "60", "--configs", "ours",
		"--format", "json", "--log-dir", filepath.Join(t.TempDir(), "logs"), "--stall", "60s", "--timeout", "90s")
	if code != 0 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var rep schedbench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Results) != 1 {
		t.Fatalf("stdout is not a report of one result: %v\n%s", err, stdout)
	}
	r := rep.Results[0]
	if r.Bound != r.Pods || r.Pods != 60 || r.Error != "" || r.DuplicateDevices != 0 {
		t.Errorf("%d of %d pods bound, error %q, %d devices twice; want all 60, none, 0", r.Bound, r.Pods, r.Error, r.DuplicateDevices)
	}
	if !strings.Contains(r.SchedulerFeatureGates, "DRANodeAllocatableResources=true") {
		t.Errorf("the scheduler's feature gates %q lack the shape's DRANodeAllocatableResources=true", r.SchedulerFeatureGates)
	}
	log, err := os.ReadFile(r.SchedulerLog)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "Error scheduling pod"); n > 0 {
		t.Errorf("the scheduler failed %d scheduling cycles; first:\n%s", n, firstLine(string(log), "Error scheduling pod"))
	}
}

// TestSchedulerPreemptionWorkload runs --workload preemption on 4 nodes of
// 8 GPUs with ours, in-tree and device-plugin: ours and device-plugin
// (stock DefaultPreemption on 8 units per node) must bind their four
// preemptors (1, 2, 4 and 8 GPUs, preempting at once) after evicting
// exactly as many low-priority pods as they need devices, with no device
// twice; in-tree's stay pending for the timeout, which is reported, not a
// failure.
func TestSchedulerPreemptionWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three control planes")
	}
	code, stdout, stderr := runArgs("scheduler", "--workload", "preemption", "--shape", "h100", "--nodes", "4", "--preemptors", "4",
		"--configs", "ours,in-tree,device-plugin", "--preemption-timeout", "20s", "--format", "json", "--log-dir", filepath.Join(t.TempDir(), "logs"),
		"--stall", "30s", "--timeout", "40s")
	if code != 0 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var rep schedbench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Results) != 3 {
		t.Fatalf("stdout is not a report of three results: %v\n%s", err, stdout)
	}
	if dp := rep.Results[2]; dp.Config != schedbench.ConfigDevicePlugin || dp.Claims != 0 || dp.APIWrites <= 0 {
		t.Errorf("the third result: config %s, %d claims, %d API writes; want device-plugin, no claims, writes counted", dp.Config, dp.Claims, dp.APIWrites)
	}
	if rep.Settings.Workload != schedbench.WorkloadPreemption {
		t.Errorf("settings: workload %q, want %q", rep.Settings.Workload, schedbench.WorkloadPreemption)
	}
	for _, r := range rep.Results {
		p := r.Preemption
		if p == nil {
			t.Fatalf("%s: no preemption result: %+v", r.Config, r)
		}
		if r.Pods != 4 || p.LowPods != 32 || p.MinVictims != 15 || r.Error != "" || r.DuplicateDevices != 0 {
			t.Errorf("%s: %d preemptors, %d low-priority pods, minimum %d victims, error %q, %d devices twice; want 4, 32, 15, none, 0",
				r.Config, r.Pods, p.LowPods, p.MinVictims, r.Error, r.DuplicateDevices)
		}
		wantBound, wantVictims := 4, 15
		if r.Config == schedbench.ConfigInTree {
			wantBound, wantVictims = 0, 0
		}
		if r.Bound != wantBound || p.Victims != wantVictims || p.UnattributedVictims != 0 {
			t.Errorf("%s: %d bound, %d victims (%d unattributed); want %d bound, %d victims, all attributed", r.Config, r.Bound, p.Victims, p.UnattributedVictims, wantBound, wantVictims)
		}
		if len(p.Sizes) != 4 {
			t.Errorf("%s: sizes %+v, want 4 (1, 2, 4 and 8 devices)", r.Config, p.Sizes)
		}
		for _, size := range p.Sizes {
			if want := size.Devices * min(wantBound, 1); size.Victims != want {
				t.Errorf("%s: the preemptor of %d devices evicted %d pods, want %d", r.Config, size.Devices, size.Victims, want)
			}
		}
		if r.Bound > 0 && (r.Latency.P50Ns <= 0 || r.Latency.MaxNs < r.Latency.P50Ns) {
			t.Errorf("%s: implausible latency %+v", r.Config, r.Latency)
		}
		if r.SchedulerCPUSeconds <= 0 {
			t.Errorf("%s: no scheduler CPU measured", r.Config)
		}
	}
	if want := "[2/3] nodes=4 config=in-tree: 0 of 4 preemptors bound"; !strings.Contains(stderr, want) {
		t.Errorf("progress lacks %q:\n%s", want, stderr)
	}
}

// TestSchedulerGangWorkload runs --workload gang on 2 nodes of 4 H100s in
// dynamic MIG mode with ours and in-tree: a gang of 8 per node, whose pods
// prefer a whole GPU and fall back to a 3g.40gb half, fits on its node
// only as halves. Ours must place both gangs on halves alone, in at least
// one pod-group cycle each, with no device twice; in-tree, choosing pod by
// pod, gives the first pods whole GPUs and strands the rest
// (kubernetes/kubernetes#138765): it must place fewer, which is reported,
// not a failure.
func TestSchedulerGangWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two control planes")
	}
	code, stdout, stderr := runArgs("scheduler", "--workload", "gang", "--nodes", "2", "--gang-timeout", "20s",
		"--format", "json", "--log-dir", filepath.Join(t.TempDir(), "logs"))
	if code != 0 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var rep schedbench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Results) != 2 {
		t.Fatalf("stdout is not a report of two results: %v\n%s", err, stdout)
	}
	if s := rep.Settings; s.Workload != schedbench.WorkloadGang || s.Shape != "h100-mig" || s.GangTimeoutNs != int64(20*time.Second) {
		t.Errorf("settings: workload %q, shape %q, gang timeout %v; want gang, h100-mig, 20s", s.Workload, s.Shape, time.Duration(s.GangTimeoutNs))
	}
	ours, inTree := rep.Results[0], rep.Results[1]
	for _, r := range rep.Results {
		g := r.Gang
		if g == nil {
			t.Fatalf("%s: no gang result: %+v", r.Config, r)
		}
		if r.Pods != 16 || g.Gangs != 2 || g.GangSize != 8 || g.Placement != schedbench.GangOwnNode || r.Error != "" || r.DuplicateDevices != 0 || g.Partial != 0 {
			t.Errorf("%s: %d pods, %d gangs of %d, placement %s, error %q, %d devices twice, %d gangs partly bound; want 16, 2 of 8, own-node, none, 0, 0",
				r.Config, r.Pods, g.Gangs, g.GangSize, g.Placement, r.Error, r.DuplicateDevices, g.Partial)
		}
		if !strings.Contains(r.SchedulerFeatureGates, "GenericWorkload=true") {
			t.Errorf("%s: the scheduler's feature gates %q lack GenericWorkload=true", r.Config, r.SchedulerFeatureGates)
		}
		if g.Cycles < int64(g.Placed) || g.Cycles == 0 || r.SchedulerCPUSeconds <= 0 {
			t.Errorf("%s: %d pod-group cycles for %d gangs placed, scheduler CPU %.2fs; want a cycle per placed gang at least, and CPU measured", r.Config, g.Cycles, g.Placed, r.SchedulerCPUSeconds)
		}
	}
	if g := ours.Gang; ours.Config != schedbench.ConfigOurs || g.Placed != 2 || ours.Bound != 16 || g.PartDevices != 16 || g.WholeDevices != 0 || g.Scheduled != 2 {
		t.Errorf("ours: %d of 2 gangs placed, %d pods bound, %d halves and %d whole GPUs, %d cycles scheduled; want both gangs on 16 halves, each scheduled once",
			g.Placed, ours.Bound, g.PartDevices, g.WholeDevices, g.Scheduled)
	}
	if g := ours.Gang; g.GroupsPerSecond <= 0 || g.Latency.P50Ns <= 0 || g.Latency.MaxNs < g.Latency.P50Ns {
		t.Errorf("ours: implausible %.2f groups/s, gang latency %+v", g.GroupsPerSecond, g.Latency)
	}
	switch g := inTree.Gang; {
	case inTree.Config != schedbench.ConfigInTree:
		t.Errorf("the second result is %s, want in-tree", inTree.Config)
	case g.Placed >= ours.Gang.Placed:
		t.Errorf("in-tree placed %d gangs, ours %d: want fewer for in-tree, whose first pods take whole GPUs", g.Placed, ours.Gang.Placed)
	default:
		t.Logf("in-tree placed %d of 2 gangs in %d pod-group cycles (%d unschedulable); ours %d in %d", g.Placed, g.Cycles, g.Unschedulable, ours.Gang.Placed, ours.Gang.Cycles)
	}
	if want := "[2/2] nodes=2 config=in-tree: 0 of 2 gangs placed"; !strings.Contains(stderr, want) {
		t.Errorf("progress lacks %q:\n%s", want, stderr)
	}
}

// TestSchedulerGangWorkloadInRacks runs gangs of 8 in racks of 4 nodes of
// 4 GPUs, the fourth rack partly used, with ours and device-plugin: each
// gang must land in one rack, ours' first in the partly used rack
// (packing), device-plugin's on whole units without claims, and
// kube-scheduler's placements must be reported.
func TestSchedulerGangWorkloadInRacks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two control planes")
	}
	code, stdout, stderr := runArgs("scheduler", "--workload", "gang", "--gang-placement", "rack", "--rack-size", "4", "--nodes", "16",
		"--gangs", "2", "--configs", "ours,device-plugin", "--gang-timeout", "60s", "--format", "json", "--log-dir", filepath.Join(t.TempDir(), "logs"))
	if code != 0 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var rep schedbench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Results) != 2 || rep.Results[0].Gang == nil || rep.Results[1].Gang == nil {
		t.Fatalf("stdout is not a report of two gang results: %v\n%s", err, stdout)
	}
	if dp, g := rep.Results[1], rep.Results[1].Gang; dp.Config != schedbench.ConfigDevicePlugin || g.Placed != 2 || g.SplitGangs != 0 || dp.Bound != 16 ||
		g.WholeDevices != 16 || g.FillerPods != 2 || dp.Claims != 0 || dp.DuplicateDevices != 0 || dp.Error != "" {
		t.Errorf("device-plugin: config %s, %d gangs placed, %d split over racks, %d pods bound, %d whole units, %d fillers, %d claims, %d units over a node's, error %q; want 2, 0, 16, 16, 2, 0, 0, none",
			dp.Config, g.Placed, g.SplitGangs, dp.Bound, g.WholeDevices, g.FillerPods, dp.Claims, dp.DuplicateDevices, dp.Error)
	}
	r := rep.Results[0]
	g := r.Gang
	if g.Placement != schedbench.GangRack || g.Racks != 4 || g.RackSize != 4 || g.FillerPods != 2 || g.Gangs != 2 || r.Error != "" {
		t.Errorf("placement %s, %d racks of %d, %d fillers, %d gangs, error %q; want rack, 4 of 4, 2, 2, none", g.Placement, g.Racks, g.RackSize, g.FillerPods, g.Gangs, r.Error)
	}
	if !strings.Contains(r.SchedulerFeatureGates, "TopologyAwareWorkloadScheduling=true") {
		t.Errorf("the scheduler's feature gates %q lack TopologyAwareWorkloadScheduling=true", r.SchedulerFeatureGates)
	}
	if g.Placed != 2 || g.SplitGangs != 0 || r.Bound != 16 || g.WholeDevices != 16 || r.ClaimsAllocated != 18 || r.DuplicateDevices != 0 {
		t.Errorf("%d gangs placed, %d split over racks, %d pods bound, %d whole GPUs, %d claims allocated, %d devices twice; want 2, 0, 16, 16, 18 (fillers too), 0",
			g.Placed, g.SplitGangs, r.Bound, g.WholeDevices, r.ClaimsAllocated, r.DuplicateDevices)
	}
	if g.PartlyUsedRackGangs != 1 {
		t.Errorf("%d gangs in the partly used rack, want 1: packing puts the first gang there, where 14 GPUs are free", g.PartlyUsedRackGangs)
	}
	if g.Placements < 2 || g.FeasiblePlacements < 2 || g.FeasiblePlacements > g.Placements {
		t.Errorf("%d placements generated, %d feasible, for 2 gangs: want at least one feasible per gang", g.Placements, g.FeasiblePlacements)
	}
}

// ratioOrAbsent formats an optional ratio of a result.
func ratioOrAbsent(v *float64) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprint(*v)
}

// firstLine returns the first line of text that contains s.
func firstLine(text, s string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// TestSchedulerOnAnExistingCluster points `dra-bench scheduler` at a
// running cluster through --kubeconfig (a control plane this test starts),
// once creating the shape's inventory itself (--create-inventory) and once
// using what the cluster already has. Every pod must be bound and every
// claim allocated, and dra-bench must leave the cluster as it found it:
// its namespaces deleted, and with --create-inventory its nodes and slices
// too (DeviceClasses stay: they may have existed before).
func TestSchedulerOnAnExistingCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	ctx := t.Context()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cp.Stop)
	client := cp.Client

	countLeft := func() (nodes, slices, classes, namespaces int) {
		t.Helper()
		n, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.ResourceV1().DeviceClasses().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ns, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range ns.Items {
			// A deleted namespace may linger while its finalizer runs.
			if strings.HasPrefix(item.Name, "dra-bench") && item.DeletionTimestamp == nil {
				namespaces++
			}
		}
		return len(n.Items), len(s.Items), len(c.Items), namespaces
	}
	check := func(t *testing.T, stdout string, wantNodes int) {
		t.Helper()
		var rep schedbench.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout)
		}
		if !strings.Contains(rep.Settings.Target, cp.Kubeconfig) {
			t.Errorf("report target %q does not name the kubeconfig %s", rep.Settings.Target, cp.Kubeconfig)
		}
		if len(rep.Results) != 2 {
			t.Fatalf("%d results, want 2 (ours, in-tree):\n%s", len(rep.Results), stdout)
		}
		if rep.Settings.ResourceClaimWorkers != 0 {
			t.Errorf("the report claims %d resourceclaim workers of the cluster's controller, want 0 (not known)", rep.Settings.ResourceClaimWorkers)
		}
		for _, r := range rep.Results {
			if r.ResourceClaimWorkers != 0 {
				t.Errorf("%s: %d resourceclaim workers, want 0 (the cluster's)", r.Config, r.ResourceClaimWorkers)
			}
			if r.Nodes != wantNodes || r.Bound != 6 || r.Error != "" {
				t.Errorf("%s: %d nodes, %d of 6 pods bound, error %q; want %d nodes", r.Config, r.Nodes, r.Bound, r.Error, wantNodes)
			}
			if r.ClaimsAllocated != r.Claims || r.Claims < 6 || r.DuplicateDevices != 0 {
				t.Errorf("%s: %d of %d claims allocated, %d devices twice", r.Config, r.ClaimsAllocated, r.Claims, r.DuplicateDevices)
			}
		}
	}

	t.Run("with --create-inventory it creates the shape's inventory and deletes it afterwards", func(t *testing.T) {
		code, stdout, stderr := runArgs("scheduler", "--kubeconfig", cp.Kubeconfig, "--create-inventory", "--nodes", "3",
			"--pods", "6", "--warmup", "1", "--configs", "ours,in-tree", "--format", "json", "--log-dir", t.TempDir(),
			"--stall", "30s", "--timeout", "60s")
		if code != 0 {
			t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		check(t, stdout, 3)
		if nodes, slices, _, namespaces := countLeft(); nodes+slices+namespaces != 0 {
			t.Errorf("left behind %d nodes, %d slices, %d namespaces", nodes, slices, namespaces)
		}
	})

	t.Run("device-plugin with --create-inventory gives the created nodes its units through their status", func(t *testing.T) {
		code, stdout, stderr := runArgs("scheduler", "--kubeconfig", cp.Kubeconfig, "--create-inventory", "--nodes", "3",
			"--pods", "6", "--pending", "2", "--configs", "device-plugin", "--format", "json", "--log-dir", t.TempDir(),
			"--stall", "30s", "--timeout", "60s")
		if code != 0 {
			t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		var rep schedbench.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Results) != 1 {
			t.Fatalf("stdout is not a report of one result: %v\n%s", err, stdout)
		}
		if r := rep.Results[0]; r.Config != schedbench.ConfigDevicePlugin || r.Nodes != 3 || r.Bound != 6 || r.PendingPods != 2 || r.Claims != 0 || r.DuplicateDevices != 0 || r.Error != "" {
			t.Errorf("%s: %d nodes, %d of 6 pods bound, %d pending, %d claims, %d units over a node's, error %q; want device-plugin, 3, 6, 2, 0, 0, none",
				r.Config, r.Nodes, r.Bound, r.PendingPods, r.Claims, r.DuplicateDevices, r.Error)
		}
		if nodes, slices, _, namespaces := countLeft(); nodes+slices+namespaces != 0 {
			t.Errorf("left behind %d nodes, %d slices, %d namespaces", nodes, slices, namespaces)
		}
	})

	t.Run("a held backlog with --create-inventory and --claims claim labels the created nodes, and everything is deleted afterwards", func(t *testing.T) {
		code, stdout, stderr := runArgs("scheduler", "--kubeconfig", cp.Kubeconfig, "--create-inventory", "--nodes", "3", "--claims", "claim",
			"--pods", "4", "--pending", "2", "--pending-reason", "held", "--configs", "ours", "--format", "json", "--log-dir", t.TempDir(),
			"--stall", "30s", "--timeout", "60s")
		if code != 0 {
			t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		var rep schedbench.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Results) != 1 {
			t.Fatalf("stdout is not a report of one result: %v\n%s", err, stdout)
		}
		// One free node for the 4 pods; 20 holders on the other two; the
		// holders' and backlog's claims from the template, the measured
		// pods' pre-created.
		if r := rep.Results[0]; r.Bound != 4 || r.FreeNodes != 1 || r.HolderPods != 20 || r.HoldersBound != 20 || r.PendingPods != 2 || r.PendingBound != 0 ||
			r.Claims != 26 || r.ClaimsAllocated != 24 || r.Error != "" {
			t.Errorf("%d of 4 pods bound, %d free nodes, %d holders (%d bound), %d pending (%d bound), %d claims (%d allocated), error %q; want 4, 1, 20 (20), 2 (0), 26 (24), none",
				r.Bound, r.FreeNodes, r.HolderPods, r.HoldersBound, r.PendingPods, r.PendingBound, r.Claims, r.ClaimsAllocated, r.Error)
		}
		if nodes, slices, _, namespaces := countLeft(); nodes+slices+namespaces != 0 {
			t.Errorf("left behind %d nodes, %d slices, %d namespaces", nodes, slices, namespaces)
		}
	})

	t.Run("without --create-inventory it schedules onto the devices the cluster has, with one ResourceClaim per pod (--claims claim)", func(t *testing.T) {
		cluster := inventorygen.SchedulerPerf(2, 0)
		// As the cluster's drivers and kubelets would have published it.
		if err := schedbench.CreateInventory(ctx, client, cluster, 4); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runArgs("scheduler", "--kubeconfig", cp.Kubeconfig, "--pods", "6", "--warmup", "1", "--claims", "claim",
			"--configs", "ours,in-tree", "--format", "json", "--log-dir", t.TempDir(), "--stall", "30s", "--timeout", "60s")
		if code != 0 {
			t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		check(t, stdout, 2)
		var rep schedbench.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Settings.Claims != string(schedbench.ClaimsPerPod) {
			t.Errorf("the report says claims %q, want %q", rep.Settings.Claims, schedbench.ClaimsPerPod)
		}
		nodes, slices, classes, namespaces := countLeft()
		if nodes != 2 || slices != len(cluster.Slices) || classes != len(cluster.Classes) || namespaces != 0 {
			t.Errorf("after the run: %d nodes, %d slices, %d classes, %d namespaces; want the cluster's 2, %d, %d and none of dra-bench's",
				nodes, slices, classes, namespaces, len(cluster.Slices), len(cluster.Classes))
		}
	})
}

// TestSchedulerWorkloadDefaults parses flags into the run's options as
// runScheduler does: each workload's default shape and configurations.
func TestSchedulerWorkloadDefaults(t *testing.T) {
	for _, tc := range []struct {
		name        string
		args        []string
		wantShape   string
		wantConfigs string
	}{
		{"the burst workload runs schedperf in all three configurations", nil, "schedperf", "[ours in-tree no-claims]"},
		{"the gang workload runs partitionable GPUs, ours and in-tree", []string{"--workload", "gang"}, "h100-mig", "[ours in-tree]"},
		{"the gang workload takes another shape with parts and the given configurations", []string{"--workload", "gang", "--shape", "h100-mig", "--configs", "in-tree"}, "h100-mig", "[in-tree]"},
		{"the preemption workload runs ours and in-tree", []string{"--workload", "preemption", "--shape", "h100"}, "h100", "[ours in-tree]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseSchedulerFlags(t, tc.args...)
			if err != nil {
				t.Fatalf("complete: %v", err)
			}
			if f.opts.Shape.Name != tc.wantShape {
				t.Errorf("shape %s, want %s", f.opts.Shape.Name, tc.wantShape)
			}
			if got := fmt.Sprint(f.opts.Configs); got != tc.wantConfigs {
				t.Errorf("configurations %s, want %s", got, tc.wantConfigs)
			}
		})
	}
}

// parseSchedulerFlags parses args into the run's options as runScheduler
// does, without running anything; the error is complete's.
func parseSchedulerFlags(t *testing.T, args ...string) (*schedulerFlags, error) {
	t.Helper()
	f := &schedulerFlags{opts: schedbench.DefaultOptions()}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f, f.complete()
}

func TestSchedulerConfigFileFlags(t *testing.T) {
	parse := func(args ...string) (*schedulerFlags, error) { return parseSchedulerFlags(t, args...) }
	f, err := parse("--config", "shipped.yaml")
	if err != nil || !reflect.DeepEqual(f.opts.Configs, []schedbench.Config{schedbench.ConfigFile, schedbench.ConfigInTree, schedbench.ConfigNoClaims}) {
		t.Errorf("--config alone: configs %v, error %v; want file, in-tree, no-claims", f.opts.Configs, err)
	}
	if _, err := parse("--configs", "file,ours"); err == nil || !strings.Contains(err.Error(), "--config FILE") {
		t.Errorf("the configuration file without --config: error %v", err)
	}
	if _, err := parse("--config", "shipped.yaml", "--configs", "ours"); err == nil {
		t.Error("--config without the configuration file was accepted")
	}
}

// TestSchedulerBenchmarksTheShippedConfiguration runs the shipped
// KubeSchedulerConfiguration (manifests/install) end to end on 3 nodes.
func TestSchedulerBenchmarksTheShippedConfiguration(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	shipped, err := manifests.SchedulerConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shipped.yaml")
	if err := os.WriteFile(path, shipped, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runArgs("scheduler", "--config", path, "--configs", "file", "--nodes", "3", "--pods", "3",
		"--format", "json", "--quiet", "--stall", "30s", "--timeout", "40s", "--log-dir", filepath.Join(t.TempDir(), "logs"))
	if code != 0 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var rep schedbench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout)
	}
	if rep.Settings.ConfigFile != path || len(rep.Results) != 1 {
		t.Fatalf("config file %q, %d results; want %s and one", rep.Settings.ConfigFile, len(rep.Results), path)
	}
	if r := rep.Results[0]; r.Config != schedbench.ConfigFile || r.Bound != 3 || r.ClaimsAllocated != 3 || r.DuplicateDevices != 0 {
		t.Errorf("result %+v, want the file configuration with 3 pods bound and their claims allocated", r)
	}
	// The run's configuration sits beside the scheduler's log.
	data, err := os.ReadFile(strings.TrimSuffix(rep.Results[0].SchedulerLog, ".log") + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "qps: 100") {
		t.Errorf("the run's configuration does not keep the shipped qps:\n%s", data)
	}
}
