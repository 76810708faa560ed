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
	// GangTimeoutNs is the gang workload's wait for its gangs, and the
	// gang preemption workload's for each gang (omitted for the other
	// workloads).
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
	// GangPreemption is what the gang preemption workload measured beyond
	// Pods (every gang's pods), Bound and Latency, gang by gang; absent
	// for the other workloads.
	GangPreemption *GangPreemptionResult `json:"gangPreemption,omitempty"`
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
	rep.fillGangComparisons()
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
	case r.GangPreemption != nil:
		return r.gangPreemptionProblem()
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
