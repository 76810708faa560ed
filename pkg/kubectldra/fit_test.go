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
		Kind string `json:"kind"`
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

// writeFile writes data to a file of the test and returns its path.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// oneGPUPodSpec is a pod template's spec asking for one GPU of the dump's
// class through oneGPUClaimTemplate.
const oneGPUPodSpec = `spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: one-gpu
  containers:
  - name: main
    image: registry.example.com/worker:1.0
    resources:
      claims:
      - name: gpu
`

// oneGPUClaimTemplate is the template one-gpu, a document of its own.
const oneGPUClaimTemplate = `---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: ` + driver + `
`

// indent puts prefix before every line of text.
func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n"+prefix) + "\n"
}

func TestFitCountsThePodsOfAWorkloadsPodTemplate(t *testing.T) {
	dump := writeDump(t)
	deployment := writeFile(t, "deployment.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
`+indent(oneGPUPodSpec, "    ")+oneGPUClaimTemplate)
	jobSet := writeFile(t, "jobset.yaml", `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  namespace: team
spec:
  successPolicy: {operator: All}
  replicatedJobs:
  - name: driver
    replicas: 1
    template:
      spec:
        template:
          spec:
            containers:
            - name: main
              image: registry.example.com/driver:1.0
  - name: workers
    replicas: 4
    template:
      spec:
        parallelism: 2
        template:
`+indent(oneGPUPodSpec, "          ")+oneGPUClaimTemplate)
	for _, tc := range []struct {
		name    string
		args    []string
		count   int
		kind    string
		verdict string
	}{
		{"a Deployment's pods fit on every untainted GPU", []string{"-f", deployment}, 3, "Deployment",
			"3 more pods of deployment team/web fit now"},
		{"a JobSet's replicated job named by --replicated-job", []string{"-f", jobSet, "--replicated-job", "workers"}, 3, "JobSet",
			"3 more pods of jobset team/train (replicated job workers) fit now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, append(append([]string{"fit"}, tc.args...), "--from", dump, "-o", "json")...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var r fitJSON
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("output is not a report: %v\n%s", err, out)
			}
			if r.Count != tc.count || r.Shape.Kind != tc.kind {
				t.Errorf("count %d of a %s, want %d of a %s\n%s", r.Count, r.Shape.Kind, tc.count, tc.kind, out)
			}
			text, _ := run(t, append(append([]string{"fit"}, tc.args...), "--from", dump)...)
			if !strings.HasPrefix(text, tc.verdict) {
				t.Errorf("text output starts %q, want %q", text, tc.verdict)
			}
		})
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a JobSet of two replicated jobs without --replicated-job", []string{"-f", jobSet},
			"want one Pod or workload, found 0 pods and JobSet team/train (replicated job driver), JobSet team/train (replicated job workers)"},
		{"a replicated job the JobSet lacks", []string{"-f", jobSet, "--replicated-job", "nope"}, `no JobSet has a replicated job "nope"`},
		{"a file with neither a pod nor a workload", []string{"-f", writeFile(t, "empty.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")},
			"no Pod, Deployment, StatefulSet, Job or JobSet in it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, append(append([]string{"fit"}, tc.args...), "--from", dump)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) || kubectldra.ExitCode(err) != 2 {
				t.Errorf("error %v (exit code %d), want one containing %q, exit code 2", err, kubectldra.ExitCode(err), tc.want)
			}
		})
	}
}
