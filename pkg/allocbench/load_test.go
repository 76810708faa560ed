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
	"os"
	"path/filepath"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
)

// kubectlList is what `kubectl get resourceslices,deviceclasses,pods -o
// yaml` prints: one List holding several kinds.
const kubectlList = `apiVersion: v1
items:
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata:
    name: node-a-gpu.example.com-abcde
  spec:
    driver: gpu.example.com
    nodeName: node-a
    pool:
      generation: 1
      name: node-a
      resourceSliceCount: 1
    devices:
    - name: gpu-0
      attributes:
        model: {string: LATEST-GPU-MODEL}
      capacity:
        memory: {value: 80Gi}
    - name: gpu-1
      attributes:
        model: {string: LATEST-GPU-MODEL}
      capacity:
        memory: {value: 80Gi}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata:
    name: gpu.example.com
  spec:
    selectors:
    - cel:
        expression: device.driver == "gpu.example.com"
- apiVersion: v1
  kind: Pod
  metadata:
    name: some-pod
    namespace: default
kind: List
metadata:
  resourceVersion: ""
`

// multiDoc has a second node's slice, an allocated claim, a pending claim
// without the fields the API server defaults, and a template.
const multiDoc = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-b-gpu.example.com-fghij
spec:
  driver: gpu.example.com
  nodeName: node-b
  pool: {name: node-b, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    capacity:
      memory: {value: 80Gi}
  - name: gpu-1
    capacity:
      memory: {value: 80Gi}
---
# an empty document
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: taken, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-0}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: pending, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus, namespace: team}
spec:
  spec:
    devices:
      requests:
      - name: gpus
        exactly: {deviceClassName: gpu.example.com, count: 2}
`

func load(t *testing.T, docs map[string]string) *Input {
	t.Helper()
	in := &Input{}
	for _, name := range []string{"cluster.yaml", "claims.yaml"} {
		if doc, ok := docs[name]; ok {
			if err := in.Add(name, strings.NewReader(doc)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return in
}

func TestLoadingAKubectlListAndMultipleDocuments(t *testing.T) {
	in := load(t, map[string]string{"cluster.yaml": kubectlList, "claims.yaml": multiDoc})
	if len(in.Slices) != 2 || len(in.Classes) != 1 {
		t.Fatalf("%d slices and %d classes, want 2 and 1", len(in.Slices), len(in.Classes))
	}
	if len(in.Notes) != 1 || !strings.Contains(in.Notes[0], `cluster.yaml: document 1, items[2]: skipped Pod "default/some-pod"`) {
		t.Errorf("notes %q, want one saying the Pod was skipped", in.Notes)
	}
	if in.AllocatedClaims != 1 || len(in.Allocated.Devices) != 1 || in.Allocated.Devices[0].String() != "gpu.example.com/node-a/gpu-0" {
		t.Errorf("allocated %+v from %d claims, want gpu-0 of node-a from 1", in.Allocated, in.AllocatedClaims)
	}
	if len(in.Claims) != 2 || in.Claims[0].Name != "pending" || in.Claims[1].Name != "two-gpus" || in.Claims[1].Namespace != "team" {
		t.Fatalf("claims %v, want pending and the template's two-gpus", in.Claims)
	}
	req := in.Claims[0].Spec.Devices.Requests[0].Exactly
	if req.AllocationMode != resourceapi.DeviceAllocationModeExactCount || req.Count != 1 {
		t.Errorf("pending claim not defaulted as the API server would: mode %q count %d", req.AllocationMode, req.Count)
	}

	workloads, err := in.Workloads()
	if err != nil {
		t.Fatal(err)
	}
	if len(workloads) != 2 || workloads[0].Scenario != "claim:default/pending" || workloads[1].Scenario != "claim:team/two-gpus" {
		t.Fatalf("workloads %v, want one per pending claim", workloads)
	}
	w := workloads[1]
	if got := len(w.Cluster.Nodes); got != 2 || w.Cluster.Nodes[0].Name != "node-a" || w.Cluster.Nodes[1].Name != "node-b" {
		t.Fatalf("nodes %v, want node-a and node-b from the slices", w.Cluster.Nodes)
	}
	// node-a has one GPU left, node-b two: two GPUs fit on node-b only.
	res, err := measure(context.Background(), &w, quickOptions(), newProgress(nil, 0))
	if err != nil || res.Error != "" {
		t.Fatalf("measure: %v %s", err, res.Error)
	}
	if res.Agreement.FitNodes != 1 || res.Agreement.Mismatches != 0 || res.Occupancy != OccupancyAsIs {
		t.Errorf("result %+v, want a fit on one node, no mismatch, occupancy as-is", res.Agreement)
	}
}

func TestWithoutClaimsEveryClassGetsAOneDeviceClaim(t *testing.T) {
	in := load(t, map[string]string{"cluster.yaml": kubectlList})
	workloads, err := in.Workloads()
	if err != nil {
		t.Fatal(err)
	}
	if len(workloads) != 1 || workloads[0].Scenario != "class:gpu.example.com" {
		t.Fatalf("workloads %v, want one for the class", workloads)
	}
	req := workloads[0].Claims[0].Spec.Devices.Requests[0].Exactly
	if req.DeviceClassName != "gpu.example.com" || req.Count != 1 {
		t.Errorf("request %+v, want one device of the class", req)
	}
}

func TestBadInputIsReportedWithFileAndObject(t *testing.T) {
	slice := func(apiVersion, name, extra string) string {
		return "apiVersion: " + apiVersion + "\nkind: ResourceSlice\nmetadata: {name: " + name + "}\n" +
			"spec: {driver: d, nodeName: node-1, pool: {name: p, generation: 1, resourceSliceCount: 1}" + extra + "}\n"
	}
	tests := []struct {
		name    string
		doc     string
		wantErr string
	}{
		{"an older API version is refused, naming the object and the fix", slice("resource.k8s.io/v1beta2", "s", ""),
			`bad.yaml: document 1: ResourceSlice "s" has apiVersion "resource.k8s.io/v1beta2"; only resource.k8s.io/v1 is supported`},
		{"a value of the wrong type names the object", "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\n" +
			"spec: {devices: {requests: [{name: r, exactly: {deviceClassName: x, count: two}}]}}\n",
			`bad.yaml: document 1: ResourceClaim "ns/c": `},
		{"a document without a kind is refused", slice("resource.k8s.io/v1", "s", "") + "---\nfoo: bar\n",
			"bad.yaml: document 2: no kind"},
		{"a list item's position is named", "kind: List\napiVersion: v1\nitems:\n- kind: DeviceClass\n  apiVersion: resource.k8s.io/v1\n  metadata: {}\n",
			"bad.yaml: document 1, items[0]: DeviceClass has no metadata.name"},
		{"an object given twice is refused", slice("resource.k8s.io/v1", "s", "") + "---\n" + slice("resource.k8s.io/v1", "s", ""),
			`bad.yaml: document 2: ResourceSlice "s" appears twice (first in bad.yaml: document 1)`},
		{"a slice without a driver is refused", "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {pool: {name: p}}\n",
			`bad.yaml: document 1: ResourceSlice "s": spec.driver and spec.pool.name are required`},
		{"text that is not YAML is refused", "a: [b\n", "bad.yaml: document 1: not YAML"},
		{"a claim without requests is refused", "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {}\n",
			`bad.yaml: document 1: ResourceClaim "ns/c": spec.devices.requests is empty`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := (&Input{}).Add("bad.yaml", strings.NewReader(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestUnknownFieldsAreNotedNotFatal(t *testing.T) {
	in := &Input{}
	doc := "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec: {selectorz: []}\n"
	if err := in.Add("x.yaml", strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	if len(in.Classes) != 1 || len(in.Notes) != 1 || !strings.Contains(in.Notes[0], `x.yaml: document 1: DeviceClass "c": ignored: unknown field "spec.selectorz"`) {
		t.Errorf("classes %d, notes %q: want the class and a note on the unknown field", len(in.Classes), in.Notes)
	}
}

func TestInputsThatCannotBeMeasured(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		wantErr string
	}{
		{"no slices", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\n", "no ResourceSlices"},
		{"slices for all nodes but no Node objects", "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n" +
			"spec: {driver: d, allNodes: true, pool: {name: p, generation: 1, resourceSliceCount: 1}}\n", "names no node"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &Input{}
			if err := in.Add("x.yaml", strings.NewReader(tc.doc)); err != nil {
				t.Fatal(err)
			}
			if _, err := in.Job("x.yaml"); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestLoadFilesNamesAMissingFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(kubectlList), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFiles(nil, good); err != nil {
		t.Fatalf("good file: %v", err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	if _, err := LoadFiles(nil, good, missing); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("error %v, want one naming missing.yaml", err)
	}
}
