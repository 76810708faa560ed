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
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/benchcompare"
)

func TestMannWhitneyPMatchesTheExactDistribution(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []float64
		want float64
	}{
		// All 4 old below all 4 new: 2 of C(8,4)=70 splits are as extreme.
		{"completely separated samples of four", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70},
		{"identical samples", []float64{3, 3, 3, 3}, []float64{3, 3, 3, 3}, 1},
		{"interleaved samples", []float64{1, 3, 5, 7}, []float64{2, 4, 6, 8}, 0.686},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := benchcompare.MannWhitneyP(tc.a, tc.b); math.Abs(got-tc.want) > 0.001 {
				t.Errorf("p = %.4f, want %.4f", got, tc.want)
			}
		})
	}
	// Beyond the exact limit, the normal approximation: clearly separated
	// samples of ten are significant, shuffled ones are not.
	var lo, hi, mixA, mixB []float64
	for i := range 10 {
		lo, hi = append(lo, float64(i)), append(hi, float64(i+100))
		mixA, mixB = append(mixA, float64(2*i)), append(mixB, float64(2*i+1))
	}
	if p := benchcompare.MannWhitneyP(lo, hi); p > 0.001 {
		t.Errorf("separated samples of ten: p = %.5f, want < 0.001", p)
	}
	if p := benchcompare.MannWhitneyP(mixA, mixB); p < 0.5 {
		t.Errorf("interleaved samples of ten: p = %.3f, want > 0.5", p)
	}
}

// allocatorReport is an allocator report as dra-bench writes it, with
// count repetitions of one scenario whose node check takes ns[i].
func allocatorReport(t *testing.T, ns ...int64) *benchcompare.Report {
	t.Helper()
	rep := allocbench.Report{Tool: "dra-bench allocator"}
	for _, v := range ns {
		res := allocbench.Result{Scenario: "gpu-1", Occupancy: "0.5", Nodes: 100}
		res.Ours.NodeCheck = allocbench.Latency{Samples: 100, P50Ns: v, P99Ns: 2 * v, AllocsPerOp: 0, BytesPerOp: 0}
		res.Ours.PerPod = allocbench.Latency{Samples: 10, P50Ns: 100 * v}
		rep.Results = append(rep.Results, res)
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := benchcompare.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCompareShowsRatiosAndSignificanceOfRepeatedRuns(t *testing.T) {
	old := allocatorReport(t, 100, 102, 98, 101, 99)
	faster := allocatorReport(t, 50, 51, 49, 50, 52)
	rows := benchcompare.Compare(old, faster)
	var check *benchcompare.Row
	for i := range rows {
		if rows[i].Unit == "ns/op" {
			check = &rows[i]
		}
	}
	if check == nil || check.Name != "Allocator/scenario=gpu-1/occupancy=0.5/nodes=100/impl=ours" {
		t.Fatalf("rows %+v, want the ours node check in ns/op", rows)
	}
	if check.OldMedian != 100 || check.NewMedian != 50 || check.Ratio != 0.5 || !(check.P < 0.05) {
		t.Errorf("row %+v, want medians 100 and 50, ratio 0.5, p < 0.05", *check)
	}
	var out bytes.Buffer
	if err := benchcompare.WriteTable(&out, old, faster, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "-50.0% (p=0.008) better") {
		t.Errorf("table lacks the change with its p-value:\n%s", out.String())
	}

	same := benchcompare.Compare(old, allocatorReport(t, 101, 99, 100, 98, 102))
	for _, r := range same {
		if r.Unit == "ns/op" && !(r.P >= 0.05) {
			t.Errorf("the same distribution shuffled: p = %.3f, want not significant", r.P)
		}
	}
	single := benchcompare.Compare(allocatorReport(t, 100), allocatorReport(t, 80))
	if r := single[0]; !math.IsNaN(r.P) || math.Abs(r.Ratio-0.8) > 1e-9 {
		t.Errorf("one sample a side: %+v, want the ratio 0.8 and no p-value", r)
	}
}

func TestBenchfmtIsWhatBenchstatReads(t *testing.T) {
	var out bytes.Buffer
	if err := benchcompare.WriteBenchfmt(&out, allocatorReport(t, 100, 110)); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^Benchmark[^\s]+ 1( [0-9.e+-]+ [^\s]+)+$`)
	config := regexp.MustCompile(`^[a-z][a-z0-9-]*: .+$`)
	var benchmarks int
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		switch {
		case line.MatchString(l):
			benchmarks++
		case config.MatchString(l):
		default:
			t.Errorf("line %q is neither a configuration nor a benchmark line", l)
		}
	}
	if benchmarks != 2 || !strings.Contains(out.String(), "BenchmarkAllocator/scenario=gpu-1/occupancy=0.5/nodes=100/impl=ours 1 100 ns/op 200 p99-ns/op") {
		t.Errorf("benchfmt output:\n%s\nwant two benchmark lines of the scenario", out.String())
	}
}

func TestReportsOfOtherToolsAreRefused(t *testing.T) {
	if _, err := benchcompare.Parse([]byte(`{"tool": "benchstat"}`)); err == nil || !strings.Contains(err.Error(), `tool "benchstat"`) {
		t.Errorf("error %v, want one naming the tool", err)
	}
}
