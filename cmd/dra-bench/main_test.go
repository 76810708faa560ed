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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// quick keeps every workload to a few milliseconds.
var quick = []string{"--duration", "1ms", "--samples", "8", "--pod-samples", "1", "--batch", "4"}

func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"help lists the allocator command", []string{"--help"}, 0, "allocator  per-(pod, node)", ""},
		{"--version names dra-bench, its commit and Kubernetes", []string{"--version"}, 0, "dra-bench dev (commit unknown, Kubernetes ", ""},
		{"no command is a usage error", nil, 2, "", "Commands:"},
		{"an unknown command is a usage error", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"the allocator's help explains the output", []string{"allocator", "--help"}, 0, "", "ratio       upstream / ours"},
		{"--list names the scenarios", []string{"allocator", "--list"}, 0, "dynamic-mig", ""},
		{"a bad node count is a usage error", []string{"allocator", "--nodes", "ten"}, 2, "", `--nodes: "ten" is not a positive node count`},
		{"a bad format is a usage error", []string{"allocator", "--format", "xml"}, 2, "", `--format "xml"`},
		{"a scenario filter matching nothing is a usage error", []string{"allocator", "--scenario", "^nothing$", "--nodes", "2"}, 2, "", "no scenario matches"},
		{"--claims without --from is a usage error", []string{"allocator", "--claims", "c.yaml"}, 2, "", "--claims needs --from"},
		{"a missing input file is an error naming it", []string{"allocator", "--from", "/nonexistent/cluster.yaml"}, 1, "", "/nonexistent/cluster.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.wantStdout, stdout)
			}
			if !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, stderr)
			}
		})
	}
}

func TestTableOutputWithProgressAndChart(t *testing.T) {
	chart := filepath.Join(t.TempDir(), "sub", "chart.svg")
	jsonOut := filepath.Join(t.TempDir(), "out", "result.json")
	args := append([]string{"allocator", "--scenario", "^schedperf$", "--nodes", "2,3", "--chart", chart, "--json-out", jsonOut}, quick...)
	code, stdout, stderr := runArgs(args...)
	if code != 0 {
		t.Fatalf("exit code %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"ours p50", "upstream p50", "ratio p50"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	for _, row := range [][]string{{"schedperf", "2", "empty", "2/2"}, {"schedperf", "3", "full", "0/3"}} {
		if !hasRow(stdout, row) {
			t.Errorf("table lacks a row starting %q:\n%s", row, stdout)
		}
	}
	for _, want := range []string{"dra-bench: [1/6] schedperf nodes=2 occupancy=empty", "agree", "wrote " + chart} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	var doc struct {
		Results []any `json:"results"`
	}
	if raw, err := os.ReadFile(jsonOut); err != nil {
		t.Error(err)
	} else if err := json.Unmarshal(raw, &doc); err != nil || len(doc.Results) != 6 {
		t.Errorf("--json-out file: %v, %d results, want 6", err, len(doc.Results))
	}
	data, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("chart is not well-formed XML: %v", err)
		}
	}
	if !bytes.Contains(data, []byte(`data-series="upstream per pod"`)) {
		t.Error("chart lacks the upstream per-pod series")
	}
}

func TestFromAKubectlDump(t *testing.T) {
	dir := t.TempDir()
	cluster := filepath.Join(dir, "cluster.yaml")
	dump := `apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: node-a-gpus}
  spec:
    driver: gpu.example.com
    nodeName: node-a
    pool: {name: node-a, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0}, {name: gpu-1}]
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu.example.com}
  spec:
    selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
`
	if err := os.WriteFile(cluster, []byte(dump), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runArgs(append([]string{"allocator", "--from", cluster, "--quiet"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit code %d\n%s\n%s", code, stdout, stderr)
	}
	if !hasRow(stdout, []string{"class:gpu.example.com", "1", "as-is", "1/1"}) {
		t.Errorf("table lacks the class workload fitting on the one node:\n%s", stdout)
	}
	if stderr != "" {
		t.Errorf("--quiet printed progress:\n%s", stderr)
	}
}

// hasRow reports whether a line of the table starts with these cells.
func hasRow(table string, cells []string) bool {
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) >= len(cells) && slices.Equal(f[:len(cells)], cells) {
			return true
		}
	}
	return false
}

// TestEveryJSONFieldIsDocumented checks that each key of the JSON output
// is named in README.md.
func TestEveryJSONFieldIsDocumented(t *testing.T) {
	args := append([]string{"allocator", "--scenario", "^nic-shared$", "--nodes", "2", "--occupancy", "half", "--format", "json", "--quiet"}, quick...)
	code, stdout, stderr := runArgs(args...)
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	keys := map[string]bool{}
	collectKeys(doc, keys)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for k := range keys {
		if !bytes.Contains(readme, []byte("`"+k+"`")) {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("README.md does not document the JSON fields %q", missing)
	}
	if len(keys) < 30 {
		t.Errorf("only %d distinct keys found; the walk is broken", len(keys))
	}
}

// collectKeys adds the field names of the JSON value v to keys.
func collectKeys(v any, keys map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			keys[k] = true
			if !keyedByData(k) {
				collectKeys(child, keys)
			}
		}
	case []any:
		for _, child := range v {
			collectKeys(child, keys)
		}
	}
}

// keyedByData reports whether the JSON field's value is a map keyed by
// what was measured, as apiWritesBy's "resourceclaims PUT", rather than
// by field names that README.md documents.
func keyedByData(field string) bool { return field == "apiWritesBy" }
