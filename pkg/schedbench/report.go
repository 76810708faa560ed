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
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/benchenv"
)

// ReportSchemaVersion is the version of Report's JSON form: 2 added the
// schema version itself and the environment's VCS revision, CPU model,
// kernel, GOMAXPROCS, GOGC and GOMEMLIMIT.
const ReportSchemaVersion = 2

// Report is the outcome of a run.
type Report struct {
	// Tool names the program, SchemaVersion the version of this JSON form
	// (ReportSchemaVersion).
	Tool          string `json:"tool"`
	SchemaVersion int    `json:"schemaVersion"`
	// Environment is the build and the machine (its fields are at the top
	// level of the JSON form); Version is set by the command.
	benchenv.Environment
	// StartedAt is when the run began (UTC, RFC 3339).
	StartedAt string `json:"startedAt"`
	// Settings are the options the results were measured with.
	Settings Settings `json:"settings"`
	// Results has one entry per (size, configuration), in run order.
	Results []Result `json:"results"`
}

// Settings are the options of a run, as reported.
type Settings struct {
	// Workload is what was measured (Options.Workload);
	// PreemptionTimeoutNs the preemption workload's wait for its
	// preemptors (omitted for the burst workload).
	Workload            Workload `json:"workload"`
	PreemptionTimeoutNs int64    `json:"preemptionTimeoutNs,omitempty"`
	Shape               string   `json:"shape"`
	ShapeDetail         string   `json:"shapeDescription"`
	Claims              string   `json:"claims"`
	Warmup              int      `json:"warmup"`
	Pending             int      `json:"pending,omitempty"`
	QPS                 float32  `json:"qps"`
	Burst               int32    `json:"burst"`
	Writers             int      `json:"writers"`
	TimeoutNs           int64    `json:"timeoutNs"`
	Target              string   `json:"target"`
	SchedulerName       string   `json:"schedulerName"`
	// PendingReason says why the backlog of Pending waits (omitted
	// without one).
	PendingReason PendingReason `json:"pendingReason,omitempty"`
	// ConfigFile is the KubeSchedulerConfiguration file the "file"
	// configuration ran (its qps and burst, not QPS and Burst).
	ConfigFile string `json:"configFile,omitempty"`
	// FeatureGates are the feature gates given for every configuration's
	// scheduler (Options.FeatureGates, as FeatureGates.String); each
	// result's SchedulerFeatureGates adds its configuration's defaults.
	FeatureGates string `json:"featureGates"`
	// ResourceClaimWorkers is the in-process resourceclaim controller's
	// worker count; 0 with a kubeconfig (the cluster's own controller).
	ResourceClaimWorkers int `json:"resourceClaimWorkers"`
	// GangTimeoutNs is the gang workload's wait for its gangs (omitted
	// for the other workloads).
	GangTimeoutNs int64 `json:"gangTimeoutNs,omitempty"`
}

// Latency summarizes the creation-to-binding times of one result, in
// nanoseconds; percentiles are nearest-rank (always a measured pod).
type Latency struct {
	P50Ns  int64   `json:"p50Ns"`
	P90Ns  int64   `json:"p90Ns"`
	P99Ns  int64   `json:"p99Ns"`
	MaxNs  int64   `json:"maxNs"`
	MeanNs float64 `json:"meanNs"`
}

// Summarize returns the latency summary of samples (not modified).
func Summarize(samples []time.Duration) Latency {
	l := allocbench.Summarize(samples)
	return Latency{P50Ns: l.P50Ns, P90Ns: l.P90Ns, P99Ns: l.P99Ns, MaxNs: l.MaxNs, MeanNs: l.MeanNs}
}

// Result is one configuration at one cluster size.
type Result struct {
	// Nodes is the cluster size, Devices the devices the shape publishes
	// on them (0 when an existing inventory is used).
	Nodes   int    `json:"nodes"`
	Devices int    `json:"devices"`
	Config  Config `json:"config"`
	// SchedulerFeatureGates is the scheduler's --feature-gates value, as
	// passed ("" when none: every gate at its default).
	SchedulerFeatureGates string `json:"schedulerFeatureGates"`
	// ResourceClaimWorkers is the resourceclaim controller's worker count
	// on the in-process control plane; 0 with a kubeconfig (the cluster's
	// kube-controller-manager, not known).
	ResourceClaimWorkers int `json:"resourceClaimWorkers"`
	// Pods were created and measured; Bound of them were seen bound.
	Pods  int `json:"pods"`
	Bound int `json:"bound"`
	// PendingPods were in the scheduler's queue, unschedulable, through
	// the run (Options.Pending); their claims count in Claims.
	PendingPods int `json:"pendingPods,omitempty"`
	// PendingReason says why they waited (Options.PendingReason),
	// omitted without them; PendingBound counts those found bound after
	// the run (must be 0).
	PendingReason PendingReason `json:"pendingReason,omitempty"`
	PendingBound  int           `json:"pendingBound,omitempty"`
	// HolderPods held every device of the held nodes through the run
	// with PendingHeld (pending_held.go), HoldersBound of them found
	// bound after it (must be all; their claims count in Claims,
	// allocated), and FreeNodes are the nodes the warm-up and measured
	// pods could go to; all omitted without PendingHeld.
	HolderPods   int `json:"holderPods,omitempty"`
	HoldersBound int `json:"holdersBound,omitempty"`
	FreeNodes    int `json:"freeNodes,omitempty"`
	// PodsPerSecond is Bound / SpanNs.
	PodsPerSecond float64 `json:"podsPerSecond"`
	// SpanNs runs from the first measured creation to the last binding;
	// SubmitNs is how long creating all measured pods took.
	SpanNs   int64 `json:"spanNs"`
	SubmitNs int64 `json:"submitNs"`
	// Latency is creation to binding over the bound pods.
	Latency Latency `json:"latency"`
	// RatioVsInTree is PodsPerSecond / in-tree's at the same size (absent
	// without an in-tree result); PercentOfNoClaims is 100 × PodsPerSecond /
	// no-claims' (absent without a no-claims result).
	RatioVsInTree     *float64 `json:"ratioVsInTree,omitempty"`
	PercentOfNoClaims *float64 `json:"percentOfNoClaims,omitempty"`
	// CPUVsDevicePlugin is the scheduler's CPU per measured pod
	// (SchedulerCPUSeconds / Pods) over device-plugin's at the same size:
	// what asking for devices through this configuration costs the
	// scheduler against the baseline without DRA. It is absent without a
	// device-plugin result, and when either CPU reads 0: the scheduler's
	// CPU is read from /proc in clock ticks of 10 ms, so a small run may
	// read 0, and a ratio to (or of) 0 would say nothing.
	CPUVsDevicePlugin *float64 `json:"cpuVsDevicePlugin,omitempty"`
	// P99VsDevicePlugin is Latency.P99Ns over device-plugin's at the same
	// size. The two after it tell how much of it is the API's:
	// ControlPlaneCPUVsDevicePlugin is ControlPlaneCPUSeconds per measured
	// pod over device-plugin's, and P99FloorVsDevicePlugin the p99 ratio
	// expected of a scheduler as cheap as device-plugin's beside this
	// run's control plane: (device-plugin's scheduler CPU + this control
	// plane's) over device-plugin's two together, per measured pod. Where
	// the scheduler and the control plane keep the same cores busy, a
	// burst's span, and so its p99, follows their CPU together
	// (docs/benchmarks.md), so no scheduler's p99 ratio comes below the
	// floor but by the run's noise. Each is absent without a device-plugin
	// result and where a time it divides reads 0 (ControlPlaneCPUSeconds
	// is 0 with --kubeconfig and for gangs).
	P99VsDevicePlugin             *float64 `json:"p99VsDevicePlugin,omitempty"`
	ControlPlaneCPUVsDevicePlugin *float64 `json:"controlPlaneCPUVsDevicePlugin,omitempty"`
	P99FloorVsDevicePlugin        *float64 `json:"p99FloorVsDevicePlugin,omitempty"`
	// SchedulerPeakRSSBytes is the scheduler process' VmHWM at the end;
	// SchedulerCPUSeconds its CPU time (user + system) while the measured
	// pods were scheduled, SchedulerCPUTotalSeconds since it started.
	SchedulerPeakRSSBytes    int64   `json:"schedulerPeakRSSBytes"`
	SchedulerCPUSeconds      float64 `json:"schedulerCPUSeconds"`
	SchedulerCPUTotalSeconds float64 `json:"schedulerCPUTotalSeconds"`
	// ControlPlaneCPUSeconds is the CPU time of the tool's own process
	// (the in-process kube-apiserver, etcd, resourceclaim controller and the
	// tool's clients) and APIWrites the write requests (POST, PUT, PATCH,
	// APPLY, DELETE) kube-apiserver served, both while the measured pods
	// (the preemptors) were created and scheduled; 0 with --kubeconfig and
	// for the gang workload. APIWritesBy splits APIWrites by resource,
	// subresource and verb ("resourceclaims/status PUT"), so that a gap's
	// API part can be told apart: whose writes, which objects.
	ControlPlaneCPUSeconds float64          `json:"controlPlaneCPUSeconds"`
	APIWrites              int64            `json:"apiWrites"`
	APIWritesBy            map[string]int64 `json:"apiWritesBy,omitempty"`
	// SetupNs covers control plane (or namespace), inventory and claims;
	// SchedulerStartNs the scheduler's start until /readyz.
	SetupNs          int64 `json:"setupNs"`
	SchedulerStartNs int64 `json:"schedulerStartNs"`
	// Claims in the namespace after the run, ClaimsAllocated of them with
	// an allocation, and DuplicateDevices: allocations of a device already
	// held by another claim (must be 0).
	Claims           int `json:"claims"`
	ClaimsAllocated  int `json:"claimsAllocated"`
	DuplicateDevices int `json:"duplicateDevices"`
	// WatchRestarts counts pod watches the API server ended and the run
	// resumed; WatchRelists those it could not resume, so it listed the
	// pods instead (pods found bound then get the list's time: their
	// latency is an upper bound).
	WatchRestarts int `json:"watchRestarts"`
	WatchRelists  int `json:"watchRelists"`
	// Preemption is what the preemption workload measured beyond Pods
	// (its preemptors), Bound and Latency; absent for the burst workload.
	Preemption *PreemptionResult `json:"preemption,omitempty"`
	// Gang is what the gang workload measured beyond Pods (every gang's
	// pods), Bound and Latency; absent for the other workloads.
	Gang *GangResult `json:"gang,omitempty"`
	// SchedulerLog is the scheduler's log file.
	SchedulerLog string `json:"schedulerLog,omitempty"`
	// Error says why the result is incomplete.
	Error string `json:"error,omitempty"`
}

// Failed reports whether the result is not a complete, correct run: an
// error, pods left unbound, claims without allocation (DRA configurations;
// but the pending pods'), a pending pod's claim allocated, or a device
// held twice. problem says which.
func (r Result) Failed() bool { return r.problem() != "" }

// fillComparisons sets the ratios of every result against in-tree and
// no-claims at the same size, and against device-plugin's
// (compareWithDevicePlugin).
func (rep *Report) fillComparisons() {
	devicePlugin := func(nodes int) *Result {
		for i := range rep.Results {
			if r := &rep.Results[i]; r.Nodes == nodes && r.Config == ConfigDevicePlugin {
				return r
			}
		}
		return nil
	}
	find := func(nodes int, c Config) *Result {
		for i := range rep.Results {
			if r := &rep.Results[i]; r.Nodes == nodes && r.Config == c && r.PodsPerSecond > 0 {
				return r
			}
		}
		return nil
	}
	for i := range rep.Results {
		r := &rep.Results[i]
		r.RatioVsInTree, r.PercentOfNoClaims = nil, nil
		r.CPUVsDevicePlugin, r.P99VsDevicePlugin, r.ControlPlaneCPUVsDevicePlugin, r.P99FloorVsDevicePlugin = nil, nil, nil, nil
		if dp := devicePlugin(r.Nodes); dp != nil {
			r.compareWithDevicePlugin(dp)
		}
		if r.PodsPerSecond <= 0 {
			continue
		}
		if it := find(r.Nodes, ConfigInTree); it != nil {
			v := r.PodsPerSecond / it.PodsPerSecond
			r.RatioVsInTree = &v
		}
		if nc := find(r.Nodes, ConfigNoClaims); nc != nil {
			v := 100 * r.PodsPerSecond / nc.PodsPerSecond
			r.PercentOfNoClaims = &v
		}
	}
}

// compareWithDevicePlugin sets r's ratios against dp, the device-plugin
// result at its size: the scheduler's CPU, p99, the control plane's CPU
// and the p99 floor that the control plane's CPU sets, each where what it
// divides and adds is above 0.
func (r *Result) compareWithDevicePlugin(dp *Result) {
	ratio := func(a, b float64) *float64 {
		if a <= 0 || b <= 0 {
			return nil
		}
		v := a / b
		return &v
	}
	r.CPUVsDevicePlugin = ratio(r.cpuPerPod(), dp.cpuPerPod())
	if r.Bound > 0 && dp.Bound > 0 {
		r.P99VsDevicePlugin = ratio(float64(r.Latency.P99Ns), float64(dp.Latency.P99Ns))
	}
	cp, dpCP := r.controlPlaneCPUPerPod(), dp.controlPlaneCPUPerPod()
	r.ControlPlaneCPUVsDevicePlugin = ratio(cp, dpCP)
	if r.ControlPlaneCPUVsDevicePlugin != nil && dp.cpuPerPod() > 0 {
		r.P99FloorVsDevicePlugin = ratio(dp.cpuPerPod()+cp, dp.cpuPerPod()+dpCP)
	}
}

// controlPlaneCPUPerPod is the control plane's CPU seconds per measured
// pod, 0 when it read 0 or no pod was measured.
func (r Result) controlPlaneCPUPerPod() float64 {
	if r.Pods <= 0 || r.ControlPlaneCPUSeconds <= 0 {
		return 0
	}
	return r.ControlPlaneCPUSeconds / float64(r.Pods)
}

// cpuPerPod is the scheduler's CPU seconds per measured pod (preemptor,
// gang pod), 0 when it read 0 or no pod was measured.
func (r Result) cpuPerPod() float64 {
	if r.Pods <= 0 || r.SchedulerCPUSeconds <= 0 {
		return 0
	}
	return r.SchedulerCPUSeconds / float64(r.Pods)
}

// WriteJSON writes the report as indented JSON.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteTable writes a header saying what produced the results (see
// writeHeader), one row per result (time is SpanNs: first creation to last
// binding), then the problems of failed results.
func (rep *Report) WriteTable(w io.Writer) error {
	if err := rep.writeHeader(w); err != nil {
		return err
	}
	switch rep.Settings.Workload {
	case WorkloadPreemption:
		return rep.writePreemptionTable(w)
	case WorkloadGang:
		return rep.writeGangTable(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tconfig\tpods\tbound\ttime\tpods/s\tp50\tp90\tp99\tmax\tvs in-tree\t% of no-claims\tsched RSS MiB\tCPU s\tCPU vs device-plugin\tcontrol plane CPU s\tAPI writes/pod\t")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			r.Nodes, r.Config, r.Pods, r.Bound, fmtNs(r.SpanNs, r.Bound), fmtFloat(r.PodsPerSecond),
			fmtNs(r.Latency.P50Ns, r.Bound), fmtNs(r.Latency.P90Ns, r.Bound), fmtNs(r.Latency.P99Ns, r.Bound), fmtNs(r.Latency.MaxNs, r.Bound),
			fmtRatio(r.RatioVsInTree), fmtPercent(r.PercentOfNoClaims),
			fmtMiB(r.SchedulerPeakRSSBytes), fmtFloat(r.SchedulerCPUSeconds), fmtRatio(r.CPUVsDevicePlugin), fmtFloat(r.ControlPlaneCPUSeconds), r.writesPerPod())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return rep.writeNotes(w, Result.backlogNotes)
}

// backlogNotes describes the backlog of a burst result, if it had one:
// its size and why it waited, so that runs with and without it, or with
// another reason, are told apart.
func (r Result) backlogNotes() []string {
	switch {
	case r.PendingPods == 0:
		return nil
	case r.PendingReason == PendingHeld:
		return []string{fmt.Sprintf("backlog of %d pending pods (%s) waiting for the devices %d holder pods hold on the other %d nodes; measured pods on %d free nodes",
			r.PendingPods, r.PendingReason, r.HolderPods, r.Nodes-r.FreeNodes, r.FreeNodes)}
	}
	return []string{fmt.Sprintf("backlog of %d pending pods (%s) asking for more than a node has", r.PendingPods, r.PendingReason)}
}

// writesPerPod formats APIWrites per measured pod (preemptor, gang pod),
// "-" when none were counted (with --kubeconfig).
func (r Result) writesPerPod() string {
	if r.APIWrites <= 0 || r.Pods <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(r.APIWrites)/float64(r.Pods))
}

// writeNotes writes under a table, per result, the lines notes gives for
// it (none when notes is nil), then its problem if it has one, each
// after its size and configuration.
func (rep *Report) writeNotes(w io.Writer, notes func(Result) []string) error {
	for _, r := range rep.Results {
		var lines []string
		if notes != nil {
			lines = notes(r)
		}
		if msg := r.problem(); msg != "" {
			lines = append(lines, msg)
		}
		for _, line := range lines {
			if _, err := fmt.Fprintf(w, "%d nodes, %s: %s\n", r.Nodes, r.Config, line); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeHeader writes the tool, the shape, the claims and the target, then
// per configuration (in the order of the results) the scheduler's
// --feature-gates as passed and the resourceclaim controller's workers,
// and an empty line.
func (rep *Report) writeHeader(w io.Writer) error {
	tool := rep.Tool
	if rep.Version != "" {
		tool += " " + rep.Version
	}
	s := rep.Settings
	if s.Workload != "" && s.Workload != WorkloadBurst {
		tool += ": workload " + string(s.Workload)
	}
	if _, err := fmt.Fprintf(w, "%s: shape %s, claims %s, %s\n", tool, s.Shape, s.Claims, s.Target); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "config\tscheduler --feature-gates\tresourceclaim controller workers")
	var seen []Config
	for _, r := range rep.Results {
		if slices.Contains(seen, r.Config) {
			continue
		}
		seen = append(seen, r.Config)
		gates, workers := r.SchedulerFeatureGates, strconv.Itoa(r.ResourceClaimWorkers)
		if gates == "" {
			gates = "none"
		}
		if r.ResourceClaimWorkers == 0 {
			workers = "the cluster's"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Config, gates, workers)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// problem describes what is wrong with a result, or "".
func (r Result) problem() string {
	switch {
	case r.Error != "":
		return r.Error
	case r.DuplicateDevices > 0:
		return fmt.Sprintf("%d device(s) allocated twice", r.DuplicateDevices)
	case r.Preemption != nil:
		return r.preemptionProblem()
	case r.Gang != nil:
		return r.gangProblem()
	case r.Bound < r.Pods:
		return fmt.Sprintf("only %d of %d pods bound", r.Bound, r.Pods)
	case r.PendingBound > 0:
		return fmt.Sprintf("%d of %d pending pods (%s) bound", r.PendingBound, r.PendingPods, r.PendingReason)
	case r.HoldersBound < r.HolderPods:
		return fmt.Sprintf("only %d of %d holder pods still bound after the run", r.HoldersBound, r.HolderPods)
	case r.Config.HasClaims() && r.ClaimsAllocated < r.Claims-r.PendingPods:
		return fmt.Sprintf("only %d of %d claims allocated", r.ClaimsAllocated, r.Claims-r.PendingPods)
	case r.Config.HasClaims() && r.ClaimsAllocated > r.Claims-r.PendingPods:
		return fmt.Sprintf("%d of %d claims allocated, but %d belong to pending pods, which must wait", r.ClaimsAllocated, r.Claims, r.PendingPods)
	}
	return ""
}

func fmtNs(ns int64, samples int) string {
	if samples == 0 {
		return "-"
	}
	return time.Duration(ns).Round(roundTo(time.Duration(ns))).String()
}

// roundTo keeps three significant digits of a duration.
func roundTo(d time.Duration) time.Duration {
	switch {
	case d >= 100*time.Second:
		return time.Second
	case d >= 10*time.Second:
		return 100 * time.Millisecond
	case d >= time.Second:
		return 10 * time.Millisecond
	case d >= 100*time.Millisecond:
		return time.Millisecond
	case d >= 10*time.Millisecond:
		return 100 * time.Microsecond
	case d >= time.Millisecond:
		return 10 * time.Microsecond
	}
	return time.Microsecond
}

func fmtFloat(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func fmtRatio(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64) + "×"
}

func fmtPercent(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 0, 64) + "%"
}

func fmtMiB(b int64) string {
	if b == 0 {
		return "-"
	}
	return strconv.FormatInt((b+(1<<19))>>20, 10)
}
