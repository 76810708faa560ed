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
	"slices"
	"strconv"
	"text/tabwriter"
	"time"
)

// The table form of a burst Report: its header, one row per result and
// the notes and problems under it, and the cell formats every workload's
// table uses.

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
	case WorkloadGangPreemption:
		return rep.writeGangPreemptionTable(w)
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
