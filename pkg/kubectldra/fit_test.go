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

package kubectldra_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/kubectldra"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// fitJSON is the part of fit's -o json the tests read.
type fitJSON struct {
	APIVersion string `json:"apiVersion"`
	Shape      struct {
		Name string `json:"name"`
		Self bool   `json:"self"`
	} `json:"shape"`
	Count int  `json:"count"`
	Fits  bool `json:"fits"`
	Exact bool `json:"exact"`
	Nodes []struct {
		Node  string `json:"node"`
		Count int    `json:"count"`
	} `json:"nodes"`
	Next struct {
		Groups []struct {
			Reason string `json:"reason"`
			Count  int    `json:"count"`
		} `json:"groups"`
	} `json:"next"`
}

// writeOneGPUPod writes a pod with a one-GPU claim from a template that
// the file carries and the cluster lacks.
func writeOneGPUPod(t *testing.T) string {
	t.Helper()
	data, err := objects.KubectlList(
		objects.MakePod("worker", "team").ClaimFromTemplate("gpu", "one-gpu").Obj(),
		objects.ClaimTemplate("one-gpu", "team", "gpu", driver, 1),
	)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "worker.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFitCountsCopiesAndExitsByTheCountWanted(t *testing.T) {
	dump, worker := writeDump(t), writeOneGPUPod(t)
	for _, tc := range []struct {
		name      string
		args      []string
		count     int
		self      bool
		exit      int
		perNode   map[string]int
		firstNext string
	}{
		{
			name: "a pending pod's two-GPU shape fits once, on the node whose devices are untainted",
			args: []string{"fit", "pod", "trainer", "-n", "team"}, count: 1, self: true, exit: 0,
			perNode:   map[string]int{"node-1": 1},
			firstNext: "",
		},
		{
			name: "asking for two copies of it exits 1",
			args: []string{"fit", "pod", "trainer", "-n", "team", "--count", "2"}, count: 1, self: true, exit: 1,
			perNode: map[string]int{"node-1": 1},
		},
		{
			name: "a file's one-GPU pod fits on every untainted GPU",
			args: []string{"fit", "-f", worker, "--count", "3"}, count: 3, exit: 0,
			perNode: map[string]int{"node-1": 2, "node-2": 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, append(tc.args, "--from", dump, "-o", "json")...)
			if code := kubectldra.ExitCode(err); code != tc.exit {
				t.Fatalf("exit code %d (%v), want %d\n%s", code, err, tc.exit, out)
			}
			var r fitJSON
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("output is not a report: %v\n%s", err, out)
			}
			if r.APIVersion != "dra-scheduler.io/fit/v1alpha1" || r.Count != tc.count || r.Shape.Self != tc.self || r.Fits != (tc.exit == 0) || !r.Exact {
				t.Errorf("report %+v: want count %d, self %v, fits %v, exact", r, tc.count, tc.self, tc.exit == 0)
			}
			got := map[string]int{}
			for _, n := range r.Nodes {
				got[n.Node] = n.Count
			}
			if len(got) != len(tc.perNode) {
				t.Errorf("copies per node %v, want %v", got, tc.perNode)
			}
			for n, c := range tc.perNode {
				if got[n] != c {
					t.Errorf("copies per node %v, want %v", got, tc.perNode)
				}
			}
			if len(r.Next.Groups) == 0 {
				t.Errorf("nothing says what stops the next copy:\n%s", out)
			}
		})
	}

	text, err := run(t, "fit", "pod", "trainer", "-n", "team", "--from", dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"1 more copy of pod team/trainer fit now; wanted 1: enough",
		"  node-1: 1\n",
		`1 of 2 nodes: free devices matching request "gpu" have taints it does not tolerate`,
		"node-2 gpu/gpu (class gpu.example.com): need 2, matching 2, allocated 0, tainted 1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
}

func TestFitRefusesBadArgumentsWithExitCode2(t *testing.T) {
	dump := writeDump(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"neither a pod nor a file", []string{"fit", "--from", dump}, "want pod NAME or -f FILE"},
		{"a pod the dump lacks", []string{"fit", "pod", "nope", "-n", "team", "--from", dump}, "kubectl get pod nope -n team -o yaml"},
		{"a file without a pod", []string{"fit", "-f", dump + ".missing", "--from", dump}, "missing"},
		{"a negative count", []string{"fit", "pod", "trainer", "--count", "-1", "--from", dump}, "want 0 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) || kubectldra.ExitCode(err) != 2 {
				t.Errorf("error %v (exit code %d), want one containing %q, exit code 2", err, kubectldra.ExitCode(err), tc.want)
			}
		})
	}
}

// TestTheDocumentedFitExamplesAnswerAsTheDocsSay runs the examples of
// docs/troubleshooting.md over docs/examples/fit and checks their answers
// and that the docs quote them.
func TestTheDocumentedFitExamplesAnswerAsTheDocsSay(t *testing.T) {
	examples := filepath.Join("..", "..", "docs", "examples", "fit")
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "troubleshooting.md"))
	if err != nil {
		t.Fatal(err)
	}
	cluster := filepath.Join(examples, "cluster.yaml")
	for _, tc := range []struct {
		pod     string
		args    []string
		count   int
		exit    int
		perNode map[string]int
	}{
		{"eight-h100.yaml", nil, 1, 0, map[string]int{"h100-2": 1}},
		{"mig-1g.yaml", []string{"--count", "25"}, 21, 1, map[string]int{"a100-0": 7, "a100-1": 14}},
	} {
		t.Run(tc.pod, func(t *testing.T) {
			args := append([]string{"fit", "-f", filepath.Join(examples, tc.pod), "--from", cluster}, tc.args...)
			out, err := run(t, append(args, "-o", "json")...)
			if code := kubectldra.ExitCode(err); code != tc.exit {
				t.Fatalf("exit code %d (%v), want %d\n%s", code, err, tc.exit, out)
			}
			var r fitJSON
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("output is not a report: %v\n%s", err, out)
			}
			got := map[string]int{}
			for _, n := range r.Nodes {
				got[n.Node] = n.Count
			}
			if r.Count != tc.count || !r.Exact || len(got) != len(tc.perNode) {
				t.Errorf("count %d (exact %v) on %v, want %d on %v", r.Count, r.Exact, got, tc.count, tc.perNode)
			}
			for n, c := range tc.perNode {
				if got[n] != c {
					t.Errorf("copies per node %v, want %v", got, tc.perNode)
				}
			}
			text, _ := run(t, args...)
			first, _, _ := strings.Cut(text, "\n")
			if !strings.Contains(string(docs), "\n"+first+"\n") {
				t.Errorf("docs/troubleshooting.md does not quote the answer's first line %q", first)
			}
		})
	}
}
