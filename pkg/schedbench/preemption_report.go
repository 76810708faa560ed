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
	"strconv"
	"text/tabwriter"
	"time"
)

// PreemptionResult is what the preemption workload measured beyond the
// preemptors' count (Result.Pods), bindings (Result.Bound) and latency
// (Result.Latency).
type PreemptionResult struct {
	// LowPods filled every device of the nodes, one each.
	LowPods int `json:"lowPods"`
	// Victims are the low-priority pods gone or terminating afterwards;
	// MinVictims the fewest the preemptors could have taken (MinVictims).
	Victims    int `json:"victims"`
	MinVictims int `json:"minVictims"`
	// UnattributedVictims are victims without a Preempted event naming a
	// preemptor; they count in Victims but in no size.
	UnattributedVictims int `json:"unattributedVictims,omitempty"`
	// Sizes has one entry per device count of the preemptors, smallest
	// first.
	Sizes []PreemptorSize `json:"sizes"`
}

// PreemptorSize is the result of the preemptors of one device count.
type PreemptorSize struct {
	Devices    int `json:"devices"`
	Preemptors int `json:"preemptors"`
	Bound      int `json:"bound"`
	// Victims were evicted for these preemptors (by the scheduler's
	// Preempted events), MinVictims is Devices × Preemptors.
	Victims    int     `json:"victims"`
	MinVictims int     `json:"minVictims"`
	Latency    Latency `json:"latency"`
}

// preemptionProblem describes what is wrong with a preemption result
// without an error or a device held twice (problem checks those), or "".
// Preemptors left pending are a problem for every configuration but
// in-tree, whose plugin cannot preempt for devices (Kubernetes 1.37):
// its result records that, it is not a failure. More victims than the
// minimum is a problem for every configuration, and so is a different
// number once every preemptor is bound.
func (r Result) preemptionProblem() string {
	p := r.Preemption
	switch {
	case p.Victims > p.MinVictims:
		return fmt.Sprintf("%d low-priority pods evicted, more than the %d devices the preemptors need", p.Victims, p.MinVictims)
	case r.Config != ConfigInTree && r.Bound < r.Pods:
		return fmt.Sprintf("only %d of %d preemptors bound", r.Bound, r.Pods)
	case r.Bound == r.Pods && p.Victims != p.MinVictims:
		return fmt.Sprintf("every preemptor bound after %d evictions, but they need %d devices held by low-priority pods", p.Victims, p.MinVictims)
	}
	return ""
}

// preemptionSummary is the progress line of a finished preemption result.
func (r Result) preemptionSummary() string {
	return fmt.Sprintf("%d of %d preemptors bound, %d victims (minimum %d), p50 %s, p99 %s, scheduler CPU %.2fs",
		r.Bound, r.Pods, r.Preemption.Victims, r.Preemption.MinVictims,
		fmtNs(r.Latency.P50Ns, r.Bound), fmtNs(r.Latency.P99Ns, r.Bound), r.SchedulerCPUSeconds)
}

// cpuPerPreemptor is the scheduler's CPU time per created preemptor: in
// the measured phase it tries, and preempts for, every one of them,
// whether it binds or not.
func (r Result) cpuPerPreemptor() time.Duration {
	if r.Pods == 0 {
		return 0
	}
	return time.Duration(r.SchedulerCPUSeconds * float64(time.Second) / float64(r.Pods))
}

// writePreemptionTable writes one row per preemption result, then one per
// (result, preemptor size), then the problems of failed results. time is
// SpanNs (first preemptor created to last bound); API writes/preemptor
// counts every write while the preemptors were created and scheduled:
// their creation and binding, the victims' deletions and the scheduler's
// events and status updates; p99 floor is P99FloorVsDevicePlugin, what
// the control plane's CPU leaves of the p99 ratio.
func (rep *Report) writePreemptionTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tconfig\tpreemptors\tbound\tvictims\tminimum\ttime\tp50\tp99\tmax\tsched CPU s\tCPU ms/preemptor\tCPU vs device-plugin\tAPI writes/preemptor\tp99 vs device-plugin\tcontrol plane CPU vs device-plugin\tp99 floor\t")
	for _, r := range rep.Results {
		p := r.preemptionOrEmpty()
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			r.Nodes, r.Config, r.Pods, r.Bound, p.Victims, p.MinVictims, fmtNs(r.SpanNs, r.Bound),
			fmtNs(r.Latency.P50Ns, r.Bound), fmtNs(r.Latency.P99Ns, r.Bound), fmtNs(r.Latency.MaxNs, r.Bound),
			fmtFloat(r.SchedulerCPUSeconds), fmtMillis(r.cpuPerPreemptor()), fmtRatio(r.CPUVsDevicePlugin), r.writesPerPod(),
			fmtRatio(r.P99VsDevicePlugin), fmtRatio(r.ControlPlaneCPUVsDevicePlugin), fmtRatio(r.P99FloorVsDevicePlugin))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tconfig\tdevices\tpreemptors\tbound\tvictims\tminimum\tvictims/preemptor\tp50\tp99\tmax\t")
	for _, r := range rep.Results {
		for _, s := range r.preemptionOrEmpty().Sizes {
			perPreemptor := "-"
			if s.Preemptors > 0 {
				perPreemptor = strconv.FormatFloat(float64(s.Victims)/float64(s.Preemptors), 'f', 2, 64)
			}
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n",
				r.Nodes, r.Config, s.Devices, s.Preemptors, s.Bound, s.Victims, s.MinVictims, perPreemptor,
				fmtNs(s.Latency.P50Ns, s.Bound), fmtNs(s.Latency.P99Ns, s.Bound), fmtNs(s.Latency.MaxNs, s.Bound))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return rep.writeNotes(w, func(r Result) []string {
		var notes []string
		if p := r.preemptionOrEmpty(); p.UnattributedVictims > 0 {
			notes = append(notes, fmt.Sprintf("%d victims without a Preempted event naming their preemptor (in no size above)", p.UnattributedVictims))
		}
		if r.Config == ConfigInTree && r.Error == "" && r.Bound < r.Pods {
			notes = append(notes, fmt.Sprintf("%d of %d preemptors still pending after %v (Kubernetes 1.37's DynamicResources cannot preempt for devices)",
				r.Pods-r.Bound, r.Pods, time.Duration(rep.Settings.PreemptionTimeoutNs)))
		}
		return notes
	})
}

// preemptionOrEmpty is r.Preemption, or an empty one for a result that
// failed before it was made.
func (r Result) preemptionOrEmpty() PreemptionResult {
	if r.Preemption == nil {
		return PreemptionResult{}
	}
	return *r.Preemption
}

// fmtMillis formats d in milliseconds with three significant digits, "-"
// for 0.
func fmtMillis(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmtFloat(float64(d) / float64(time.Millisecond))
}
