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
	"context"
	"regexp"
	"testing"
	"time"
)

// quickOptions keep every workload to a few milliseconds.
func quickOptions() Options {
	o := DefaultOptions()
	o.Duration = time.Millisecond
	o.Samples = 8
	o.PodSamples = 1
	o.BatchSize = 4
	return o
}

func TestEveryScenarioBuildsAndBothAllocatorsAgree(t *testing.T) {
	const nodes = 3
	for _, sc := range Scenarios() {
		for _, w := range sc.Workloads(nodes, DefaultOccupancies()) {
			t.Run(w.String(), func(t *testing.T) {
				res, err := measure(context.Background(), &w, quickOptions(), newProgress(nil, 0))
				if err != nil {
					t.Fatal(err)
				}
				if res.Error != "" {
					t.Fatalf("not measured: %s", res.Error)
				}
				a := res.Agreement
				if a.Mismatches != 0 || a.NodesCompared != nodes {
					t.Fatalf("agreement %+v, want %d nodes compared and no mismatch", a, nodes)
				}
				switch w.Occupancy {
				case "empty":
					if a.FitNodes != nodes {
						t.Errorf("the pod fits on %d of %d empty nodes, want all", a.FitNodes, nodes)
					}
				case "full":
					if a.FitNodes != 0 {
						t.Errorf("the pod fits on %d full nodes, want none", a.FitNodes)
					}
				}
				if res.UpstreamAllocator != "incubating" {
					t.Errorf("upstream chose the %q allocator, want incubating (Kubernetes 1.37 default gates)", res.UpstreamAllocator)
				}
				for name, l := range map[string]Latency{
					"ours node check": res.Ours.NodeCheck, "upstream node check": res.Upstream.NodeCheck,
					"ours per pod": res.Ours.PerPod, "upstream per pod": res.Upstream.PerPod,
				} {
					if l.Samples == 0 || l.P50Ns <= 0 || l.P50Ns > l.P90Ns || l.P90Ns > l.P99Ns || l.P99Ns > l.MaxNs {
						t.Errorf("%s: implausible summary %+v", name, l)
					}
				}
				if res.Ratio.NodeCheckP50 <= 0 || res.Ratio.PerPodP50 <= 0 {
					t.Errorf("ratios %+v, want positive", res.Ratio)
				}
			})
		}
	}
}

func TestScenarioJobs(t *testing.T) {
	tests := []struct {
		name      string
		filter    *regexp.Regexp
		sizes     []int
		wantNames []string
	}{
		{"a filter selects scenarios by name, smallest sizes first", regexp.MustCompile(`^h[12]00$`), []int{2, 5},
			[]string{"h100 nodes=2", "h200 nodes=2", "h100 nodes=5", "h200 nodes=5"}},
		{"a filter matching nothing gives no jobs", regexp.MustCompile(`^nothing$`), []int{2}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs := ScenarioJobs(Scenarios(), tc.sizes, DefaultOccupancies(), tc.filter)
			var names []string
			for _, j := range jobs {
				names = append(names, j.Name)
				if j.Workloads != 3 {
					t.Errorf("%s: %d workloads, want one per occupancy", j.Name, j.Workloads)
				}
			}
			if len(names) != len(tc.wantNames) {
				t.Fatalf("jobs %q, want %q", names, tc.wantNames)
			}
			for i := range names {
				if names[i] != tc.wantNames[i] {
					t.Errorf("job %d is %q, want %q", i, names[i], tc.wantNames[i])
				}
			}
		})
	}
}

func TestGPUAndNICShareNodesAndPCIeRoots(t *testing.T) {
	c := gpuNICCluster(2)
	if len(c.Nodes) != 2 {
		t.Fatalf("%d nodes, want 2", len(c.Nodes))
	}
	for _, n := range c.Nodes {
		drivers := map[string]bool{}
		for _, s := range c.SlicesForNode(n.Name) {
			drivers[s.Spec.Driver] = true
			if s.Spec.Pool.Name != n.Name {
				t.Errorf("slice %s of node %s is in pool %s", s.Name, n.Name, s.Spec.Pool.Name)
			}
		}
		if len(drivers) != 2 {
			t.Errorf("node %s has drivers %v, want GPUs and NICs", n.Name, drivers)
		}
	}
}

func TestParseOccupancies(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Occupancy
		wantErr bool
	}{
		{"names map to their fractions", "empty, full", []Occupancy{{"empty", 0}, {"full", 1}}, false},
		{"a fraction is its own name", "0.25", []Occupancy{{"0.25", 0.25}}, false},
		{"a fraction above one is refused", "1.5", nil, true},
		{"an unknown word is refused", "busy", nil, true},
		{"an empty list is refused", " , ", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseOccupancies(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error: %v", err, tc.wantErr)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}
