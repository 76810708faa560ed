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

package benchcompare

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Tools whose reports this package reads.
const (
	ToolAllocator = "dra-bench allocator"
	ToolScheduler = "dra-bench scheduler"
)

// Metric is one measured value with its unit. Units follow the Go
// benchmark format: "ns/op" and the like are lower-is-better; rates such
// as "pods/s" and counts of work done such as UnitGangsPlaced are
// higher-is-better (HigherIsBetter).
type Metric struct {
	Unit  string
	Value float64
}

// Result is one benchmark run: a name in benchmark form
// ("Allocator/scenario=…/nodes=100/impl=ours") and its metrics.
type Result struct {
	Name    string
	Metrics []Metric
}

// Report is a report's results and where they were measured.
type Report struct {
	Tool   string
	Env    Env
	Result []Result
	// Notes are results left out and why.
	Notes []string
}

// Env is the provenance of a report (benchenv.Environment's JSON form).
type Env struct {
	Version     string `json:"version"`
	VCSRevision string `json:"vcsRevision"`
	VCSModified bool   `json:"vcsModified"`
	Go          string `json:"go"`
	Platform    string `json:"platform"`
	CPUModel    string `json:"cpuModel"`
	CPUs        int    `json:"cpus"`
	GOMAXPROCS  int    `json:"gomaxprocs"`
	Kernel      string `json:"kernel"`
	GOGC        string `json:"gogc"`
	GOMEMLIMIT  string `json:"gomemlimit"`
}

// Units of counts of work a scheduler run got done, of which more is
// better.
const (
	// UnitGangsPlaced counts the gangs of the gang workload with every
	// pod bound.
	UnitGangsPlaced = "gangs-placed"
	// UnitPreemptorsBound counts the preemptors of the preemption workload
	// bound.
	UnitPreemptorsBound = "preemptors-bound"
)

// HigherIsBetter reports whether a larger value of unit is an
// improvement: rates (units ending in "/s": "pods/s", "groups/s") and
// counts of work done (UnitGangsPlaced, UnitPreemptorsBound). Every other
// unit (time, bytes, allocations, CPU, cycles, excess victims) is
// lower-is-better.
func HigherIsBetter(unit string) bool {
	switch unit {
	case UnitGangsPlaced, UnitPreemptorsBound:
		return true
	}
	return strings.HasSuffix(unit, "/s")
}

// ReadFile reads a dra-bench JSON report.
func ReadFile(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Parse reads a dra-bench JSON report of either tool.
func Parse(data []byte) (*Report, error) {
	var head struct {
		Tool string `json:"tool"`
		Env
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a dra-bench JSON report: %w", err)
	}
	r := &Report{Tool: head.Tool, Env: head.Env}
	var err error
	switch head.Tool {
	case ToolAllocator:
		err = r.parseAllocator(data)
	case ToolScheduler:
		err = r.parseScheduler(data)
	default:
		return nil, fmt.Errorf("tool %q: not a dra-bench allocator or scheduler report (dra-bench ... --format json or --json-out)", head.Tool)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// allocatorLatency is allocbench.Latency's JSON form.
type allocatorLatency struct {
	Samples     int     `json:"samples"`
	P50Ns       float64 `json:"p50Ns"`
	P99Ns       float64 `json:"p99Ns"`
	AllocsPerOp float64 `json:"allocsPerOp"`
	BytesPerOp  float64 `json:"bytesPerOp"`
}

func (r *Report) parseAllocator(data []byte) error {
	var rep struct {
		Results []struct {
			Scenario  string `json:"scenario"`
			Occupancy string `json:"occupancy"`
			Nodes     int    `json:"nodes"`
			Ours      struct {
				NodeCheck allocatorLatency `json:"nodeCheck"`
				PerPod    allocatorLatency `json:"perPod"`
			} `json:"ours"`
			Upstream struct {
				NodeCheck allocatorLatency `json:"nodeCheck"`
				PerPod    allocatorLatency `json:"perPod"`
			} `json:"upstream"`
			Error string `json:"error"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("allocator report: %w", err)
	}
	for _, res := range rep.Results {
		base := fmt.Sprintf("Allocator/scenario=%s/occupancy=%s/nodes=%d", benchPart(res.Scenario), benchPart(res.Occupancy), res.Nodes)
		if res.Error != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("%s left out: %s", base, res.Error))
			continue
		}
		for _, impl := range []struct {
			name       string
			check, pod allocatorLatency
		}{{"ours", res.Ours.NodeCheck, res.Ours.PerPod}, {"upstream", res.Upstream.NodeCheck, res.Upstream.PerPod}} {
			if impl.check.Samples == 0 {
				continue
			}
			r.Result = append(r.Result, Result{Name: base + "/impl=" + impl.name, Metrics: []Metric{
				{"ns/op", impl.check.P50Ns},
				{"p99-ns/op", impl.check.P99Ns},
				{"B/op", impl.check.BytesPerOp},
				{"allocs/op", impl.check.AllocsPerOp},
				{"pod-ns/op", impl.pod.P50Ns},
			}})
		}
	}
	return nil
}

// Workloads of dra-bench scheduler (schedbench.Workload); a report
// without one is the burst workload's (older reports).
const (
	workloadBurst      = "burst"
	workloadGang       = "gang"
	workloadPreemption = "preemption"
	// workloadGangPreemption is read by gangPreemptionMetrics
	// (gang_preemption.go).
	workloadGangPreemption = "gang-preemption"
)

// schedulerReport is what is compared of a dra-bench scheduler report
// (schedbench.Report's JSON form).
type schedulerReport struct {
	Settings schedulerSettings `json:"settings"`
	Results  []schedulerResult `json:"results"`
}

type schedulerSettings struct {
	Workload string `json:"workload"`
	Shape    string `json:"shape"`
	Claims   string `json:"claims"`
}

type schedulerLatency struct {
	P50Ns float64 `json:"p50Ns"`
	P99Ns float64 `json:"p99Ns"`
}

type schedulerResult struct {
	Nodes                 int               `json:"nodes"`
	Config                string            `json:"config"`
	Pods                  int               `json:"pods"`
	Bound                 int               `json:"bound"`
	PendingPods           int               `json:"pendingPods"`
	PendingReason         string            `json:"pendingReason"`
	PodsPerSecond         float64           `json:"podsPerSecond"`
	Latency               schedulerLatency  `json:"latency"`
	SchedulerPeakRSSBytes float64           `json:"schedulerPeakRSSBytes"`
	SchedulerCPUSeconds   float64           `json:"schedulerCPUSeconds"`
	Gang                  *gangResult       `json:"gang"`
	Preemption            *preemptionResult `json:"preemption"`
	GangPreemption        *gangPreemption   `json:"gangPreemption"`
	Error                 string            `json:"error"`
}

// gangResult is schedbench.GangResult's JSON form.
type gangResult struct {
	Placement         string           `json:"placement"`
	GangSize          int              `json:"gangSize"`
	Gangs             int              `json:"gangs"`
	Placed            int              `json:"placed"`
	Partial           int              `json:"partial"`
	GroupsPerSecond   float64          `json:"groupsPerSecond"`
	Latency           schedulerLatency `json:"latency"`
	Cycles            float64          `json:"cycles"`
	CyclesPerGang     float64          `json:"cyclesPerGang"`
	CycleSeconds      float64          `json:"cycleSeconds"`
	CPUSecondsPerGang float64          `json:"schedulerCPUSecondsPerGang"`
	RackSize          int              `json:"rackSize"`
	PlacementsPerGang float64          `json:"placementsPerGang"`
}

// preemptionResult is schedbench.PreemptionResult's JSON form.
type preemptionResult struct {
	Victims    int `json:"victims"`
	MinVictims int `json:"minVictims"`
}

// schedulerMetrics names one result of a workload and gives its metrics,
// or why it has nothing to compare.
type schedulerMetrics func(schedulerSettings, schedulerResult) (name string, metrics []Metric, leftOut string)

func (r *Report) parseScheduler(data []byte) error {
	var rep schedulerReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("scheduler report: %w", err)
	}
	var read schedulerMetrics
	switch rep.Settings.Workload {
	case "", workloadBurst:
		read = burstMetrics
	case workloadGang:
		read = gangMetrics
	case workloadPreemption:
		read = preemptionMetrics
	case workloadGangPreemption:
		read = gangPreemptionMetrics
	default:
		return fmt.Errorf("scheduler report: workload %q: want %s, %s, %s or %s", rep.Settings.Workload, workloadBurst, workloadGang, workloadPreemption, workloadGangPreemption)
	}
	for _, res := range rep.Results {
		name, metrics, leftOut := read(rep.Settings, res)
		if why := firstNonEmpty(res.Error, leftOut); why != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("%s left out: %s", name, why))
			continue
		}
		r.Result = append(r.Result, Result{Name: name, Metrics: metrics})
	}
	return nil
}

// burstMetrics reads a burst result: throughput and latency of the bound
// pods.
func burstMetrics(s schedulerSettings, res schedulerResult) (string, []Metric, string) {
	name := fmt.Sprintf("Scheduler/shape=%s/claims=%s/nodes=%d/pods=%d/config=%s", benchPart(s.Shape), benchPart(s.Claims), res.Nodes, res.Pods, benchPart(res.Config))
	if res.PendingPods > 0 {
		name = fmt.Sprintf("%s/pending=%d", name, res.PendingPods)
		// A backlog waiting for held devices is another benchmark than
		// one too big for any node (the default, named as before).
		if res.PendingReason != "" && res.PendingReason != "too-big" {
			name = fmt.Sprintf("%s/pending-reason=%s", name, benchPart(res.PendingReason))
		}
	}
	if res.Bound == 0 {
		return name, nil, "no pod bound"
	}
	return name, []Metric{
		{"pods/s", res.PodsPerSecond},
		{"p50-ns", res.Latency.P50Ns},
		{"p99-ns", res.Latency.P99Ns},
		{"sched-cpu-ns/pod", res.SchedulerCPUSeconds * 1e9 / float64(res.Bound)},
		{"sched-peak-rss-B", res.SchedulerPeakRSSBytes},
	}, ""
}

// gangMetrics reads a gang result: the gangs placed, then, if any was,
// their rate and latency, and the pod-group cycles and scheduler CPU it
// took whether placed or not (in-tree places none).
func gangMetrics(s schedulerSettings, res schedulerResult) (string, []Metric, string) {
	g := res.Gang
	if g == nil {
		g = &gangResult{}
	}
	racks := ""
	if g.RackSize > 0 {
		racks = fmt.Sprintf("/rack-size=%d", g.RackSize)
	}
	name := fmt.Sprintf("Scheduler/workload=gang/shape=%s/placement=%s%s/gang-size=%d/gangs=%d/nodes=%d/config=%s",
		benchPart(s.Shape), benchPart(g.Placement), racks, g.GangSize, g.Gangs, res.Nodes, benchPart(res.Config))
	if g.Gangs == 0 {
		return name, nil, "no gang created"
	}
	// Partly bound gangs must not exist (a gang runs whole or not at
	// all): any is a regression.
	metrics := []Metric{{UnitGangsPlaced, float64(g.Placed)}, {"gangs-partial", float64(g.Partial)}}
	if g.Placed > 0 {
		metrics = append(metrics,
			Metric{"groups/s", g.GroupsPerSecond},
			Metric{"gang-p50-ns", g.Latency.P50Ns},
			Metric{"gang-p99-ns", g.Latency.P99Ns})
	}
	metrics = append(metrics, Metric{"cycles/gang", g.CyclesPerGang})
	if g.PlacementsPerGang > 0 {
		metrics = append(metrics, Metric{"placements/gang", g.PlacementsPerGang})
	}
	if g.Cycles > 0 {
		metrics = append(metrics, Metric{"ns/cycle", g.CycleSeconds * 1e9 / g.Cycles})
	}
	return name, append(metrics,
		Metric{"sched-cpu-ns/gang", g.CPUSecondsPerGang * 1e9},
		Metric{"sched-peak-rss-B", res.SchedulerPeakRSSBytes}), ""
}

// preemptionMetrics reads a preemption result: the preemptors bound, the
// victims beyond the fewest possible, then, if any preemptor was bound,
// their latency, and the scheduler CPU per preemptor, bound or not
// (in-tree binds none).
func preemptionMetrics(s schedulerSettings, res schedulerResult) (string, []Metric, string) {
	name := fmt.Sprintf("Scheduler/workload=preemption/shape=%s/nodes=%d/preemptors=%d/config=%s",
		benchPart(s.Shape), res.Nodes, res.Pods, benchPart(res.Config))
	p := res.Preemption
	if p == nil || res.Pods == 0 {
		return name, nil, "no preemptor created"
	}
	metrics := []Metric{
		{UnitPreemptorsBound, float64(res.Bound)},
		{"excess-victims", float64(max(0, p.Victims-p.MinVictims))},
	}
	if res.Bound > 0 {
		metrics = append(metrics, Metric{"p50-ns", res.Latency.P50Ns}, Metric{"p99-ns", res.Latency.P99Ns})
	}
	return name, append(metrics,
		Metric{"sched-cpu-ns/preemptor", res.SchedulerCPUSeconds * 1e9 / float64(res.Pods)},
		Metric{"sched-peak-rss-B", res.SchedulerPeakRSSBytes}), ""
}

// benchPart makes a value safe inside a benchmark name (no spaces; "/"
// separates parts).
func benchPart(s string) string {
	return strings.NewReplacer(" ", "_", "/", ":").Replace(s)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
