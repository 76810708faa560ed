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
	"context"
	"fmt"
	"strings"
)

// The scheduler's own count of its scheduling cycles, from its /metrics
// (kube-scheduler 1.37, pkg/scheduler/metrics): a pod group is placed in
// pod-group cycles, counted by scheduler_podgroup_schedule_attempts_total
// by result (scheduled, unschedulable, waiting_on_preemption, error) when
// GenericWorkload is on. scheduler_schedule_attempts_total counts pods:
// one per pod outside any group per cycle, and one per member a pod-group
// cycle tried (a cycle of a gang of 8 counts 8, placed or not).
const (
	podGroupAttemptsMetric = "scheduler_podgroup_schedule_attempts_total"
	podGroupSecondsMetric  = "scheduler_podgroup_scheduling_attempt_duration_seconds_sum"
	podAttemptsMetric      = "scheduler_schedule_attempts_total"
	// With TopologyAwareWorkloadScheduling on, a pod-group cycle of a
	// group with a topology constraint generates candidate placements
	// (scheduler_generated_placements_total) and evaluates them one by
	// one (scheduler_placement_evaluations_total, by result feasible or
	// infeasible).
	generatedPlacementsMetric  = "scheduler_generated_placements_total"
	placementEvaluationsMetric = "scheduler_placement_evaluations_total"
)

// cycles are scheduling cycles counted by the scheduler since it started.
type cycles struct {
	// groups are pod-group cycles, scheduled and unschedulable of them by
	// result; groupSeconds their summed duration.
	groups, scheduled, unschedulable float64
	groupSeconds                     float64
	// pods are pod attempts: single pods' cycles and the members each
	// pod-group cycle tried.
	pods float64
	// placements are the candidate placements generated,
	// feasiblePlacements those evaluated where the group fit.
	placements, feasiblePlacements float64
}

// readCycles scrapes the scheduler's cycles of the benchmark's profile.
// The scheduler must let /metrics be read (metricsPaths).
func readCycles(ctx context.Context, sched *child) (cycles, error) {
	client := loopbackClient()
	defer client.CloseIdleConnections()
	series, err := scrape(ctx, client, sched.port, podGroupAttemptsMetric, podGroupSecondsMetric, podAttemptsMetric,
		generatedPlacementsMetric, placementEvaluationsMetric)
	if err != nil {
		return cycles{}, fmt.Errorf("read the scheduler's cycles from /metrics: %w", err)
	}
	profile := fmt.Sprintf("profile=%q", SchedulerName)
	return cycles{
		groups:             sumSeries(series, podGroupAttemptsMetric, profile),
		scheduled:          sumSeries(series, podGroupAttemptsMetric, profile, `result="scheduled"`),
		unschedulable:      sumSeries(series, podGroupAttemptsMetric, profile, `result="unschedulable"`),
		groupSeconds:       sumSeries(series, podGroupSecondsMetric, profile),
		pods:               sumSeries(series, podAttemptsMetric, profile),
		placements:         sumSeries(series, generatedPlacementsMetric, profile),
		feasiblePlacements: sumSeries(series, placementEvaluationsMetric, profile, `result="feasible"`),
	}, nil
}

// minus returns the cycles since earlier.
func (c cycles) minus(earlier cycles) cycles {
	return cycles{
		groups:             c.groups - earlier.groups,
		scheduled:          c.scheduled - earlier.scheduled,
		unschedulable:      c.unschedulable - earlier.unschedulable,
		groupSeconds:       c.groupSeconds - earlier.groupSeconds,
		pods:               c.pods - earlier.pods,
		placements:         c.placements - earlier.placements,
		feasiblePlacements: c.feasiblePlacements - earlier.feasiblePlacements,
	}
}

// sumSeries adds up the series of metric name (keyed as scrape returns
// them) whose labels include every one of labels, e.g. `result="scheduled"`.
func sumSeries(series map[string]float64, name string, labels ...string) float64 {
	total := 0.0
	for key, v := range series {
		base, rest, _ := strings.Cut(key, "{")
		if base != name {
			continue
		}
		all := true
		for _, l := range labels {
			if !strings.Contains(rest, l) {
				all = false
				break
			}
		}
		if all {
			total += v
		}
	}
	return total
}
