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

package allocbench

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchchart"
)

// smallReport runs two scenarios at two sizes with quick settings.
func smallReport(t *testing.T) *Report {
	t.Helper()
	opts := quickOptions()
	jobs := ScenarioJobs(Scenarios(), []int{2, 4}, DefaultOccupancies(), regexp.MustCompile(`^(h100|nic-shared)$`))
	r, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunReportsEveryWorkloadInJSON(t *testing.T) {
	r := smallReport(t)
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tool              string `json:"tool"`
		UpstreamModule    string `json:"upstreamModule"`
		UpstreamAllocator string `json:"upstreamAllocator"`
		Mismatches        *int   `json:"mismatches"`
		Settings          struct {
			Features []string `json:"features"`
		} `json:"settings"`
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tool != "dra-bench allocator" || !strings.HasPrefix(doc.UpstreamModule, "k8s.io/dynamic-resource-allocation") ||
		doc.UpstreamAllocator != "incubating" || doc.Mismatches == nil || *doc.Mismatches != 0 {
		t.Errorf("header %+v", doc)
	}
	if len(doc.Settings.Features) == 0 {
		t.Error("settings.features is empty")
	}
	if len(doc.Results) != 12 {
		t.Fatalf("%d results, want 2 scenarios × 2 sizes × 3 occupancies", len(doc.Results))
	}
	first := doc.Results[0]
	if first["scenario"] != "h100" || first["nodes"] != float64(2) || first["occupancy"] != "empty" {
		t.Errorf("first result %v, want h100 at 2 nodes, empty", first)
	}
	for _, impl := range []string{"ours", "upstream"} {
		m := first[impl].(map[string]any)
		for _, phase := range []string{"nodeCheck", "perPod"} {
			l := m[phase].(map[string]any)
			for _, key := range []string{"samples", "p50Ns", "p90Ns", "p99Ns", "meanNs", "allocsPerOp", "bytesPerOp"} {
				if v, ok := l[key].(float64); !ok || v <= 0 && key != "allocsPerOp" && key != "bytesPerOp" {
					t.Errorf("%s.%s.%s = %v, want a positive number", impl, phase, key, l[key])
				}
			}
		}
	}
	if v := first["ratio"].(map[string]any)["nodeCheckP50"].(float64); v <= 0 {
		t.Errorf("ratio.nodeCheckP50 = %v, want positive", v)
	}
}

func TestTheFigureShowsLatencyAndThroughputPerScenario(t *testing.T) {
	r := smallReport(t)
	fig := r.Figure("half")
	if len(fig.Panels) != 4 {
		t.Fatalf("%d panels, want latency and throughput for 2 scenarios", len(fig.Panels))
	}
	titles := []string{"h100: latency", "h100: throughput", "nic-shared: latency", "nic-shared: throughput"}
	for i, p := range fig.Panels {
		if p.Title != titles[i] {
			t.Errorf("panel %d is %q, want %q", i, p.Title, titles[i])
		}
		for _, s := range p.Series {
			if len(s.Points) != 2 || s.Points[0].X != 2 || s.Points[1].X != 4 {
				t.Errorf("%s / %s: points %v, want one per cluster size (2, 4)", p.Title, s.Name, s.Points)
			}
		}
	}
	if got := len(fig.Panels[0].Series); got != 4 {
		t.Errorf("latency panel has %d series, want per pod and node check for ours and upstream", got)
	}
	var svg bytes.Buffer
	if err := benchchart.WriteSVG(&svg, fig); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-series="ours per pod"`, `data-series="upstream node check p50"`} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("SVG lacks %s", want)
		}
	}
	if empty := r.Figure("as-is"); len(empty.Panels) != 0 {
		t.Errorf("an occupancy without results gives %d panels, want none", len(empty.Panels))
	}
}

func TestRunStopsOnCancellationWithPartialResults(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	jobs := ScenarioJobs(Scenarios(), []int{2}, DefaultOccupancies(), regexp.MustCompile(`^h100$`))
	r, err := Run(ctx, jobs, quickOptions())
	if err == nil || r == nil {
		t.Fatalf("report %v, error %v: want a report and the context's error", r, err)
	}
	if len(r.Results) != 1 {
		t.Errorf("%d results, want the one interrupted", len(r.Results))
	}
}
