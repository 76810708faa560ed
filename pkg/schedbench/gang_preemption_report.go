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
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// GangPreemptionGoalNodes is the cluster size at which the gang
// preemption workload's CPU goal applies: scheduler CPU per gang at most
// GangPreemptionCPUGoal × device-plugin's.
const (
	GangPreemptionGoalNodes = 5000
	GangPreemptionCPUGoal   = 2.0
)

// GangPreemptionResult is what the gang preemption workload measured
// beyond the pods of all gangs (Result.Pods), those bound (Result.Bound)
// and their creation→bound latency (Result.Latency).
type GangPreemptionResult struct {
	// RackSize is the nodes of a rack, Racks their number; LowPods
	// filled them to RackOccupancyPercent before the gangs.
	RackSize int `json:"rackSize"`
	Racks    int `json:"racks"`
	LowPods  int `json:"lowPods"`
	// Gangs are the gangs in the order they were created, one after the
	// other.
	Gangs []PreemptingGang `json:"gangs"`
	// Fitting gangs had a rack that held them once its low-priority pods
	// were evicted, Bound had every pod bound, Victims and MinVictims
	// are the sums of the gangs' (MinVictims over the fitting ones).
	Fitting    int `json:"fitting"`
	Bound      int `json:"bound"`
	Victims    int `json:"victims"`
	MinVictims int `json:"minVictims"`
	// CPUSecondsPerGang is the gangs' scheduler CPU over their number.
	CPUSecondsPerGang float64 `json:"schedulerCPUSecondsPerGang"`
	// CPUPerGangVsDevicePlugin is CPUSecondsPerGang over device-plugin's
	// at the same size; absent without it or when either reads 0.
	CPUPerGangVsDevicePlugin *float64 `json:"cpuPerGangVsDevicePlugin,omitempty"`
}

// PreemptingGang is one gang of the gang preemption workload.
type PreemptingGang struct {
	// Name is its PodGroup's, Size its pods (the gang's minCount).
	Name string `json:"name"`
	Size int    `json:"size"`
	// Fits says whether a rack held the gang, once its low-priority pods
	// were evicted, when it was created; MinVictims is then the fewest
	// victims it needs (MinGangVictims), in RacksAtMinimum racks.
	Fits           bool `json:"fits"`
	MinVictims     int  `json:"minVictims"`
	RacksAtMinimum int  `json:"racksAtMinimum"`
	// Bound says every pod was bound (BoundPods of them were), TimedOut
	// that GangTimeout passed first (the gang was then deleted).
	Bound     bool `json:"bound"`
	BoundPods int  `json:"boundPods"`
	TimedOut  bool `json:"timedOut,omitempty"`
	// Victims are the low-priority pods gone or terminating between the
	// gang's creation and the next gang's (or the end); Rack is where
	// its pods went ("-": none bound, "split": more than one rack).
	Victims int    `json:"victims"`
	Rack    string `json:"rack"`
	// VictimsByEvents are the victims whose Preempted event (from the
	// scheduler) names the gang's PodGroup as their preemptor, whenever
	// they went: a cycle that outlasts its gang's wait evicts in the
	// next gang's window.
	VictimsByEvents int `json:"victimsByEvents"`
	// Cycles are the scheduler's pod-group cycles for the gang,
	// Placements the candidate placements it generated and
	// FeasiblePlacements those where the gang fit (kube-scheduler's
	// /metrics, as GangResult's).
	Cycles             int64 `json:"cycles"`
	Placements         int64 `json:"placements"`
	FeasiblePlacements int64 `json:"feasiblePlacements"`
	// SchedulerCPUSeconds is the scheduler's CPU from the gang's creation
	// until it was bound or timed out; CPUVsDevicePlugin that over
	// device-plugin's for the gang of the same index at the same size.
	SchedulerCPUSeconds float64  `json:"schedulerCPUSeconds"`
	CPUVsDevicePlugin   *float64 `json:"cpuVsDevicePlugin,omitempty"`
	// Latency is creation to binding over the gang's bound pods.
	Latency Latency `json:"latency"`

	// members are the gang's pods, lowBefore the low-priority pods
	// staying when it was created.
	members   []string
	lowBefore int
}

// state is "bound", "pending" or "partly bound".
func (g PreemptingGang) state() string {
	switch {
	case g.Bound:
		return "bound"
	case g.BoundPods > 0:
		return fmt.Sprintf("%d of %d bound", g.BoundPods, g.Size)
	}
	return "pending"
}

// total sums the gangs' counts and CPU into p.
func (p *GangPreemptionResult) total() {
	p.Fitting, p.Bound, p.Victims, p.MinVictims = 0, 0, 0, 0
	cpu := 0.0
	for _, g := range p.Gangs {
		if g.Fits {
			p.Fitting++
			p.MinVictims += g.MinVictims
		}
		if g.Bound {
			p.Bound++
		}
		p.Victims += g.Victims
		cpu += g.SchedulerCPUSeconds
	}
	p.CPUSecondsPerGang = 0
	if len(p.Gangs) > 0 {
		p.CPUSecondsPerGang = cpu / float64(len(p.Gangs))
	}
}

// baseline says whether c is one of the configurations the workload
// compares with, whose preemption is upstream's: their gangs' victims
// and pending gangs are reported, not failures.
func baseline(c Config) bool { return c == ConfigInTree || c == ConfigDevicePlugin }

// gangPreemptionProblem describes what is wrong with a gang preemption
// result without an error or a device held twice, or "". A gang with
// only some pods bound is wrong for every configuration; for ours (and
// a file's), so are a gang that fits after preemption left pending and
// victims other than the minimum. In-tree's plugin cannot free devices
// in a pod group preemption's re-run (its gangs stay pending), and
// device-plugin's is stock kube-scheduler's: both are reported.
func (r Result) gangPreemptionProblem() string {
	for _, g := range r.GangPreemption.Gangs {
		switch {
		case g.BoundPods > 0 && !g.Bound:
			return fmt.Sprintf("%s: only %d of its %d pods bound", g.Name, g.BoundPods, g.Size)
		case baseline(r.Config):
		case g.Fits && !g.Bound:
			return fmt.Sprintf("%s of %d pods left pending, though a rack holds it after %d evictions", g.Name, g.Size, g.MinVictims)
		case g.Bound && g.Victims != g.MinVictims:
			return fmt.Sprintf("%s of %d pods bound after %d evictions, the minimum is %d", g.Name, g.Size, g.Victims, g.MinVictims)
		case !g.Bound && g.Victims > 0:
			return fmt.Sprintf("%s of %d pods evicted %d pods and stayed pending", g.Name, g.Size, g.Victims)
		}
	}
	return ""
}

// gangPreemptionSummary is the progress line of a finished result.
func (r Result) gangPreemptionSummary() string {
	p := r.GangPreemption
	return fmt.Sprintf("%d of %d gangs bound (%d fit), %d victims (minimum %d), p50 %s, p99 %s, scheduler CPU %.2fs per gang",
		p.Bound, len(p.Gangs), p.Fitting, p.Victims, p.MinVictims,
		fmtNs(r.Latency.P50Ns, r.Bound), fmtNs(r.Latency.P99Ns, r.Bound), p.CPUSecondsPerGang)
}

// fillGangComparisons sets every gang preemption result's CPU ratios to
// device-plugin's at the same size: per gang, and per gang of the same
// index.
func (rep *Report) fillGangComparisons() {
	for i := range rep.Results {
		r := &rep.Results[i]
		if r.GangPreemption == nil {
			continue
		}
		r.GangPreemption.CPUPerGangVsDevicePlugin = nil
		for j := range r.GangPreemption.Gangs {
			r.GangPreemption.Gangs[j].CPUVsDevicePlugin = nil
		}
		for _, dp := range rep.Results {
			if dp.Config != ConfigDevicePlugin || dp.Nodes != r.Nodes || dp.GangPreemption == nil {
				continue
			}
			r.GangPreemption.CPUPerGangVsDevicePlugin = positiveRatio(r.GangPreemption.CPUSecondsPerGang, dp.GangPreemption.CPUSecondsPerGang)
			for j := range r.GangPreemption.Gangs {
				if j < len(dp.GangPreemption.Gangs) && dp.GangPreemption.Gangs[j].Size == r.GangPreemption.Gangs[j].Size {
					r.GangPreemption.Gangs[j].CPUVsDevicePlugin = positiveRatio(r.GangPreemption.Gangs[j].SchedulerCPUSeconds, dp.GangPreemption.Gangs[j].SchedulerCPUSeconds)
				}
			}
			break
		}
	}
}

// positiveRatio is a / b, or nil unless both are above 0.
func positiveRatio(a, b float64) *float64 {
	if a <= 0 || b <= 0 {
		return nil
	}
	v := a / b
	return &v
}

// writeGangPreemptionTable writes one row per result, one per (result,
// gang), the notes and problems, then the workload's goals.
func (rep *Report) writeGangPreemptionTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tconfig\tracks\tlow pods\tgangs\tfit\tbound\tvictims\tminimum\tpods bound\tp50\tp99\tsched CPU s\tCPU ms/gang\tCPU/gang vs device-plugin\t")
	for _, r := range rep.Results {
		p := r.gangPreemptionOrEmpty()
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n",
			r.Nodes, r.Config, p.Racks, p.LowPods, len(p.Gangs), p.Fitting, p.Bound, p.Victims, p.MinVictims, r.Bound,
			fmtNs(r.Latency.P50Ns, r.Bound), fmtNs(r.Latency.P99Ns, r.Bound), fmtFloat(r.SchedulerCPUSeconds),
			fmtMillis(time.Duration(p.CPUSecondsPerGang*float64(time.Second))), fmtRatio(p.CPUPerGangVsDevicePlugin))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tconfig\tgang\tsize\tfits\tstate\tvictims\tby events\tminimum\track\tcycles\tplacements (feasible)\tCPU ms\tCPU vs device-plugin\tp50\tp99\t")
	for _, r := range rep.Results {
		for _, g := range r.gangPreemptionOrEmpty().Gangs {
			minimum := "-"
			if g.Fits {
				minimum = fmt.Sprintf("%d (%d racks)", g.MinVictims, g.RacksAtMinimum)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%t\t%s\t%d\t%d\t%s\t%s\t%d\t%d (%d)\t%s\t%s\t%s\t%s\t\n",
				r.Nodes, r.Config, g.Name, g.Size, g.Fits, g.state(), g.Victims, g.VictimsByEvents, minimum, g.Rack, g.Cycles, g.Placements, g.FeasiblePlacements,
				fmtMillis(time.Duration(g.SchedulerCPUSeconds*float64(time.Second))), fmtRatio(g.CPUVsDevicePlugin),
				fmtNs(g.Latency.P50Ns, g.BoundPods), fmtNs(g.Latency.P99Ns, g.BoundPods))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	err := rep.writeNotes(w, func(r Result) []string {
		p := r.gangPreemptionOrEmpty()
		if r.Error != "" || p.Bound == len(p.Gangs) {
			return nil
		}
		why := ""
		if r.Config == ConfigInTree {
			why = " (Kubernetes 1.37's DynamicResources cannot free devices in a pod group preemption's re-run)"
		}
		return []string{fmt.Sprintf("%d of %d gangs still pending after %v each, then deleted%s", len(p.Gangs)-p.Bound, len(p.Gangs), time.Duration(rep.Settings.GangTimeoutNs), why)}
	})
	if err != nil {
		return err
	}
	for _, line := range rep.gangPreemptionGoals() {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// gangPreemptionGoals are the workload's goals for every result but the
// baselines', each met or not met: victims equal the minimum for every
// gang, every gang that fits after preemption bound, and at
// GangPreemptionGoalNodes scheduler CPU per gang at most
// GangPreemptionCPUGoal × device-plugin's (at other sizes the ratio is
// given for information).
func (rep *Report) gangPreemptionGoals() []string {
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "not met"
	}
	var lines []string
	for _, r := range rep.Results {
		if baseline(r.Config) || r.GangPreemption == nil {
			continue
		}
		p := r.GangPreemption
		atMinimum, fitBound := 0, 0
		for _, g := range p.Gangs {
			if (g.Fits && g.Victims == g.MinVictims) || (!g.Fits && g.Victims == 0) {
				atMinimum++
			}
			if g.Fits && g.Bound {
				fitBound++
			}
		}
		head := fmt.Sprintf("goal, %d nodes, %s:", r.Nodes, r.Config)
		lines = append(lines,
			fmt.Sprintf("%s victims equal the minimum for every gang: %s (%d of %d gangs; %d victims, minimum %d)",
				head, verdict(r.Error == "" && atMinimum == len(p.Gangs)), atMinimum, len(p.Gangs), p.Victims, p.MinVictims),
			fmt.Sprintf("%s every gang that fits after preemption is bound: %s (%d of %d)",
				head, verdict(r.Error == "" && fitBound == p.Fitting), fitBound, p.Fitting))
		ratio := p.CPUPerGangVsDevicePlugin
		switch {
		case ratio == nil:
			lines = append(lines, fmt.Sprintf("%s scheduler CPU per gang ≤ %.0f× device-plugin's: no device-plugin result to compare with", head, GangPreemptionCPUGoal))
		case r.Nodes == GangPreemptionGoalNodes:
			lines = append(lines, fmt.Sprintf("%s scheduler CPU per gang ≤ %.0f× device-plugin's: %s (%s)", head, GangPreemptionCPUGoal, verdict(*ratio <= GangPreemptionCPUGoal), fmtRatio(ratio)))
		default:
			lines = append(lines, fmt.Sprintf("%s scheduler CPU per gang %s device-plugin's (the goal, ≤ %.0f×, is at %d nodes)", head, fmtRatio(ratio), GangPreemptionCPUGoal, GangPreemptionGoalNodes))
		}
	}
	return lines
}

// gangPreemptionOrEmpty is r.GangPreemption, or an empty one for a result
// that failed before it was made.
func (r Result) gangPreemptionOrEmpty() GangPreemptionResult {
	if r.GangPreemption == nil {
		return GangPreemptionResult{}
	}
	return *r.GangPreemption
}
