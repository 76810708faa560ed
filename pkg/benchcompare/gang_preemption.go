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

import "fmt"

// gangPreemption is schedbench.GangPreemptionResult's JSON form, what is
// compared of it.
type gangPreemption struct {
	RackSize          int     `json:"rackSize"`
	Bound             int     `json:"bound"`
	Victims           int     `json:"victims"`
	MinVictims        int     `json:"minVictims"`
	CPUSecondsPerGang float64 `json:"schedulerCPUSecondsPerGang"`
	Gangs             []struct {
		Size int `json:"size"`
	} `json:"gangs"`
}

// gangPreemptionMetrics reads a gang preemption result: the gangs with
// every pod bound (UnitGangsPlaced), the victims beyond the fewest
// possible, then, if a pod was bound, the gang pods' latency, and the
// scheduler CPU per gang, bound or not (in-tree binds none).
func gangPreemptionMetrics(s schedulerSettings, res schedulerResult) (string, []Metric, string) {
	p := res.GangPreemption
	if p == nil {
		p = &gangPreemption{}
	}
	name := fmt.Sprintf("Scheduler/workload=gang-preemption/shape=%s/rack-size=%d/gangs=%d/nodes=%d/config=%s",
		benchPart(s.Shape), p.RackSize, len(p.Gangs), res.Nodes, benchPart(res.Config))
	if len(p.Gangs) == 0 {
		return name, nil, "no gang created"
	}
	metrics := []Metric{
		{UnitGangsPlaced, float64(p.Bound)},
		{"excess-victims", float64(max(0, p.Victims-p.MinVictims))},
	}
	if res.Bound > 0 {
		metrics = append(metrics, Metric{"p50-ns", res.Latency.P50Ns}, Metric{"p99-ns", res.Latency.P99Ns})
	}
	return name, append(metrics,
		Metric{"sched-cpu-ns/gang", p.CPUSecondsPerGang * 1e9},
		Metric{"sched-peak-rss-B", res.SchedulerPeakRSSBytes}), ""
}
