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

	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// GangResult is what the gang workload measured beyond the pods of all
// gangs (Result.Pods), those bound (Result.Bound) and their
// creation→bound latency (Result.Latency).
type GangResult struct {
	// Placement is where the gangs' pods could go, GangSize their pods
	// (and the PodGroups' minCount), Gangs how many were created, Part
	// the part of a device the pods fall back to (e.g. "3g.40gb").
	Placement GangPlacement `json:"placement"`
	GangSize  int           `json:"gangSize"`
	Gangs     int           `json:"gangs"`
	Part      string        `json:"part,omitempty"`
	// RackSize is the nodes of a rack and Racks their number when the
	// nodes are in racks (Options.RackSize); FillerPods took one device
	// each in the partly used racks before the gangs.
	RackSize   int `json:"rackSize,omitempty"`
	Racks      int `json:"racks,omitempty"`
	FillerPods int `json:"fillerPods,omitempty"`
	// SplitGangs are gangs with pods in more than one rack (with
	// GangRack: must be 0); PartlyUsedRackGangs placed gangs all in one
	// partly used rack.
	SplitGangs          int `json:"splitGangs,omitempty"`
	PartlyUsedRackGangs int `json:"partlyUsedRackGangs,omitempty"`
	// Placed gangs have every pod bound; Partial ones some but not all
	// (a gang's pods run together or not at all: must be 0).
	Placed  int `json:"placed"`
	Partial int `json:"partial"`
	// SpanNs runs from the first pod's creation to the last binding of a
	// placed gang's pod; GroupsPerSecond is Placed / SpanNs.
	SpanNs          int64   `json:"spanNs"`
	GroupsPerSecond float64 `json:"groupsPerSecond"`
	// Latency is, over the placed gangs, the time from the creation of a
	// gang's first pod to the binding of its last.
	Latency Latency `json:"latency"`
	// Cycles are the scheduler's pod-group cycles in the run
	// (scheduler_podgroup_schedule_attempts_total): Scheduled and
	// Unschedulable of them by result; CyclesPerGang is Cycles / Gangs;
	// CycleSeconds their summed duration
	// (scheduler_podgroup_scheduling_attempt_duration_seconds). PodCycles
	// are the pod attempts kube-scheduler counted
	// (scheduler_schedule_attempts_total): one per member of every
	// pod-group cycle, as the gangs' pods have no cycles of their own.
	//
	// Placements are the candidate placements the scheduler generated
	// for them (scheduler_generated_placements_total, with
	// TopologyAwareWorkloadScheduling on), FeasiblePlacements of them
	// those where the gang fit (scheduler_placement_evaluations_total);
	// PlacementsPerGang is Placements / Gangs.
	Cycles             int64   `json:"cycles"`
	Scheduled          int64   `json:"cyclesScheduled"`
	Unschedulable      int64   `json:"cyclesUnschedulable"`
	CyclesPerGang      float64 `json:"cyclesPerGang"`
	CycleSeconds       float64 `json:"cycleSeconds"`
	PodCycles          int64   `json:"podCycles"`
	Placements         int64   `json:"placements,omitempty"`
	FeasiblePlacements int64   `json:"feasiblePlacements,omitempty"`
	PlacementsPerGang  float64 `json:"placementsPerGang,omitempty"`
	// CPUSecondsPerGang is Result.SchedulerCPUSeconds / Gangs: the
	// scheduler tries every gang, placed or not, until the run ends.
	CPUSecondsPerGang float64 `json:"schedulerCPUSecondsPerGang"`
	// WholeDevices and PartDevices are the allocated claims' devices
	// chosen as whole devices and as parts (device-plugin: WholeDevices
	// is the gang pods bound, one unit each).
	WholeDevices int `json:"wholeDevices"`
	PartDevices  int `json:"partDevices"`
}

// setCycles records the scheduler's cycles of the run.
func (g *GangResult) setCycles(c cycles) {
	g.Cycles, g.Scheduled, g.Unschedulable = int64(c.groups), int64(c.scheduled), int64(c.unschedulable)
	g.CycleSeconds, g.PodCycles = c.groupSeconds, int64(c.pods)
	g.Placements, g.FeasiblePlacements = int64(c.placements), int64(c.feasiblePlacements)
	if g.Gangs > 0 {
		g.CyclesPerGang = c.groups / float64(g.Gangs)
		g.PlacementsPerGang = c.placements / float64(g.Gangs)
	}
}

// record counts the placed and partly bound gangs of members (their pods'
// names, by gang) and measures the placed ones.
func (g *GangResult) record(rec *podlatency.Recorder, members [][]string) {
	var lat []time.Duration
	var first, last time.Time
	for _, pods := range members {
		bound, created, done := rec.Samples(pods)
		if first.IsZero() || (!created.IsZero() && created.Before(first)) {
			first = created
		}
		switch {
		case len(bound) == len(pods):
			g.Placed++
			lat = append(lat, done.Sub(created))
			if done.After(last) {
				last = done
			}
		case len(bound) > 0:
			g.Partial++
		}
	}
	g.Latency = Summarize(lat)
	if g.Placed > 0 && last.After(first) {
		g.SpanNs = int64(last.Sub(first))
		g.GroupsPerSecond = float64(g.Placed) / last.Sub(first).Seconds()
	}
}

// gangProblem describes what is wrong with a gang result without an error
// or a device held twice (problem checks those), or "". Gangs
// left pending are a problem only for a configuration other than in-tree
// on nodes of their own, where every gang fits if its devices are chosen
// jointly: kube-scheduler 1.37's DynamicResources chooses pod by pod and
// strands them (recorded, not a failure), and gangs that may go anywhere
// compete for the same devices.
func (r Result) gangProblem() string {
	g := r.Gang
	switch {
	case g.Partial > 0:
		return fmt.Sprintf("%d gangs have only some of their pods bound", g.Partial)
	case r.Config != ConfigInTree && g.Placement == GangOwnNode && g.Placed < g.Gangs:
		return fmt.Sprintf("only %d of %d gangs placed, each on a node where its devices fit jointly", g.Placed, g.Gangs)
	case g.Placement == GangRack && g.SplitGangs > 0:
		return fmt.Sprintf("%d gangs have pods in more than one rack", g.SplitGangs)
	case g.Racks > 0 && g.Placed < g.Gangs:
		return fmt.Sprintf("only %d of %d gangs placed, though every gang fits a free rack", g.Placed, g.Gangs)
	case r.Config.HasClaims() && r.ClaimsAllocated != r.Bound+g.FillerPods:
		return fmt.Sprintf("%d claims allocated for %d bound pods and %d fillers: a pending gang holds devices", r.ClaimsAllocated, r.Bound, g.FillerPods)
	}
	return ""
}

// gangSummary is the progress line of a finished gang result.
func (r Result) gangSummary() string {
	g := r.Gang
	return fmt.Sprintf("%d of %d gangs placed (%d pods), %s groups/s, %d pod-group cycles, gang p50 %s, p99 %s, scheduler CPU %.2fs",
		g.Placed, g.Gangs, r.Bound, fmtFloat(g.GroupsPerSecond), g.Cycles,
		fmtNs(g.Latency.P50Ns, g.Placed), fmtNs(g.Latency.P99Ns, g.Placed), r.SchedulerCPUSeconds)
}

// writeGangTable writes one row per gang result, then a line per
// configuration that left gangs pending and the problems of failed
// results. time is GangResult.SpanNs.
func (rep *Report) writeGangTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tconfig\tgangs\tplaced\tpods bound\ttime\tgroups/s\tcycles\tcycles/gang\tplacements/gang\tms/cycle\tsched CPU s\tCPU ms/gang\tCPU vs device-plugin\tgang p50\tgang p99\twhole\tparts\t")
	for _, r := range rep.Results {
		g := r.gangOrEmpty()
		msPerCycle, placements := "-", "-"
		if g.Cycles > 0 {
			msPerCycle = fmtFloat(1000 * g.CycleSeconds / float64(g.Cycles))
		}
		if g.Placements > 0 {
			placements = fmt.Sprintf("%s (%s feasible)", fmtFloat(g.PlacementsPerGang), fmtFloat(float64(g.FeasiblePlacements)/float64(g.Gangs)))
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t\n",
			r.Nodes, r.Config, g.Gangs, g.Placed, r.Bound, fmtNs(g.SpanNs, g.Placed), fmtFloat(g.GroupsPerSecond),
			g.Cycles, fmtFloat(g.CyclesPerGang), placements, msPerCycle, fmtFloat(r.SchedulerCPUSeconds),
			fmtMillis(time.Duration(g.CPUSecondsPerGang*float64(time.Second))), fmtRatio(r.CPUVsDevicePlugin),
			fmtNs(g.Latency.P50Ns, g.Placed), fmtNs(g.Latency.P99Ns, g.Placed), g.WholeDevices, g.PartDevices)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return rep.writeNotes(w, func(r Result) []string {
		var notes []string
		g := r.gangOrEmpty()
		if g.Racks > 0 {
			notes = append(notes, fmt.Sprintf("%d racks of %d nodes, every fourth partly used by %d pods: %d placed gangs in a partly used rack, %d gangs in more than one rack",
				g.Racks, g.RackSize, g.FillerPods, g.PartlyUsedRackGangs, g.SplitGangs))
		}
		if r.Error == "" && g.Placed < g.Gangs {
			notes = append(notes, fmt.Sprintf("%d of %d gangs of %d still pending after %v", g.Gangs-g.Placed, g.Gangs, g.GangSize, time.Duration(rep.Settings.GangTimeoutNs)))
		}
		return notes
	})
}

// gangOrEmpty is r.Gang, or an empty one for a result that failed before
// it was made.
func (r Result) gangOrEmpty() GangResult {
	if r.Gang == nil {
		return GangResult{}
	}
	return *r.Gang
}
