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

package perf

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// dataItems is scheduler_perf's DataItems JSON (perf-dash format).
type dataItems struct {
	DataItems []struct {
		Data   map[string]float64 `json:"data"`
		Unit   string             `json:"unit"`
		Labels map[string]string  `json:"labels"`
	} `json:"dataItems"`
}

// measurement is what the table shows of one workload in one variant.
type measurement struct {
	throughput float64 // SchedulingThroughput average, pods/s; 0 = not measured
	duration   float64 // SchedulingDuration, s
	// extension point -> bucket (Perc50, Perc99) -> ms
	latency map[string]map[string]float64
}

// resultSet collects the measurements of a benchmark run.
type resultSet struct {
	rows []string                           // "<topic>/<TestCase>/<workload>[/<namespace>]", in order of appearance
	data map[string]map[string]*measurement // row -> variant -> measurement
}

func (r *resultSet) empty() bool { return len(r.rows) == 0 }

// read adds the DataItems files in dir. Their Name label is the workload's
// test name followed by the namespace: prefix (the variant benchmark's name)
// is replaced by the topic.
func (r *resultSet) read(dir, topic, variant, prefix string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	if r.data == nil {
		r.data = map[string]map[string]*measurement{}
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		var items dataItems
		if err := json.Unmarshal(data, &items); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		for _, item := range items.DataItems {
			row := topic + "/" + strings.TrimPrefix(item.Labels["Name"], prefix)
			if r.data[row] == nil {
				r.rows = append(r.rows, row)
				r.data[row] = map[string]*measurement{}
			}
			m := r.data[row][variant]
			if m == nil {
				m = &measurement{latency: map[string]map[string]float64{}}
				r.data[row][variant] = m
			}
			switch item.Labels["Metric"] {
			case "SchedulingThroughput":
				m.throughput = item.Data["Average"]
			case "SchedulingDuration":
				m.duration = item.Data["Duration"]
			case "scheduler_framework_extension_point_duration_seconds":
				if ep := item.Labels["extension_point"]; ep == "Filter" || ep == "PreFilter" {
					m.latency[ep] = item.Data
				}
			}
		}
	}
	return nil
}

// table renders one line per workload: throughput of both variants and
// their ratio (DRAAllocator / in-tree), the measured phase's duration, and
// the Filter and PreFilter extension points' p50/p99 per scheduling cycle.
func (r *resultSet) table() string {
	var sb strings.Builder
	w := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "workload\tin-tree pods/s\tours pods/s\tratio\tduration s (in-tree|ours)\tFilter p50/p99 ms (in-tree|ours)\tPreFilter p50/p99 ms (in-tree|ours)\t")
	for _, row := range r.rows {
		in, ours := r.data[row][variantInTree], r.data[row][variantDRAAllocator]
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s|%s\t%s|%s\t%s|%s\t\n", row,
			throughput(in), throughput(ours), ratio(in, ours),
			duration(in), duration(ours),
			latency(in, "Filter"), latency(ours, "Filter"),
			latency(in, "PreFilter"), latency(ours, "PreFilter"))
	}
	_ = w.Flush()
	return sb.String()
}

func throughput(m *measurement) string {
	if m == nil || m.throughput == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", m.throughput)
}

func ratio(in, ours *measurement) string {
	if in == nil || ours == nil || in.throughput == 0 || ours.throughput == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", ours.throughput/in.throughput)
}

func duration(m *measurement) string {
	if m == nil || m.duration == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", m.duration)
}

func latency(m *measurement, extensionPoint string) string {
	if m == nil || m.latency[extensionPoint] == nil {
		return "-"
	}
	l := m.latency[extensionPoint]
	return fmt.Sprintf("%.2f/%.2f", l["Perc50"], l["Perc99"])
}
