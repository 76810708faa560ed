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

package benchcompare_test

import (
	"reflect"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchcompare"
)

func TestGangPreemptionReportsAreReadByTheirMetrics(t *testing.T) {
	const name = "Scheduler/workload=gang-preemption/shape=h100-mig/rack-size=18/gangs=2/nodes=72/config="
	for _, tc := range []struct {
		name   string
		report string
		want   []benchcompare.Result
	}{
		{"a result gives the gangs bound, victims beyond the minimum, latency and CPU per gang",
			schedulerReport("gang-preemption", `{"nodes": 72, "config": "ours", "pods": 52, "bound": 52,
				"latency": {"p50Ns": 4000, "p99Ns": 9000}, "schedulerPeakRSSBytes": 2048,
				"gangPreemption": {"rackSize": 18, "bound": 2, "victims": 40, "minVictims": 30, "schedulerCPUSecondsPerGang": 1.5,
					"gangs": [{"size": 16}, {"size": 36}]}}`),
			[]benchcompare.Result{{Name: name + "ours", Metrics: []benchcompare.Metric{
				{Unit: "gangs-placed", Value: 2}, {Unit: "excess-victims", Value: 10}, {Unit: "p50-ns", Value: 4000}, {Unit: "p99-ns", Value: 9000},
				{Unit: "sched-cpu-ns/gang", Value: 1.5e9}, {Unit: "sched-peak-rss-B", Value: 2048},
			}}}},
		{"a result with no gang bound still gives the CPU per gang",
			schedulerReport("gang-preemption", `{"nodes": 72, "config": "in-tree", "pods": 52, "bound": 0, "schedulerPeakRSSBytes": 2048,
				"gangPreemption": {"rackSize": 18, "bound": 0, "victims": 0, "minVictims": 30, "schedulerCPUSecondsPerGang": 0.5,
					"gangs": [{"size": 16}, {"size": 36}]}}`),
			[]benchcompare.Result{{Name: name + "in-tree", Metrics: []benchcompare.Metric{
				{Unit: "gangs-placed", Value: 0}, {Unit: "excess-victims", Value: 0},
				{Unit: "sched-cpu-ns/gang", Value: 5e8}, {Unit: "sched-peak-rss-B", Value: 2048},
			}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := benchcompare.Parse([]byte(tc.report))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Result, tc.want) {
				t.Errorf("results\n%+v\nwant\n%+v", r.Result, tc.want)
			}
		})
	}
}
