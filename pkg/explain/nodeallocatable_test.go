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

package explain_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const cpuDriver = "cpu.example.com"

// cpuNodes has two nodes whose devices are 4 cpu of their node each and
// cost 256Mi of memory per pod; claim "held" has node-1's device and is
// reserved for pod "owner".
func cpuNodes() *clusterstate.Objects {
	slice := func(node string) *resourceapi.ResourceSlice {
		return objects.MakeSlice(node+"-cpu", cpuDriver, node).Device("cpu-0", nil).
			MapsNodeResource(v1.ResourceCPU, "4").NodeOverhead(v1.ResourceMemory, "256Mi", "").Obj()
	}
	held := objects.Claim("held", ns, objects.ClaimSpec("cpu", cpuDriver, 1))
	held.Status.Allocation = &resourceapi.AllocationResult{
		Devices:      resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "cpu", Driver: cpuDriver, Pool: "node-1", Device: "cpu-0"}}},
		NodeSelector: objects.NodeSelectorFor("node-1"),
	}
	held.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "owner", UID: "owner-uid"}}
	return &clusterstate.Objects{
		Nodes:     []*v1.Node{objects.MakeNode("node-1").Obj(), objects.MakeNode("node-2").Obj()},
		Slices:    []*resourceapi.ResourceSlice{slice("node-1"), slice("node-2")},
		Classes:   []*resourceapi.DeviceClass{objects.DeviceClass(cpuDriver, cpuDriver)},
		Claims:    []*resourceapi.ResourceClaim{held},
		Templates: []*resourceapi.ResourceClaimTemplate{objects.ClaimTemplate("one-cpu-device", ns, "cpu", cpuDriver, 1)},
	}
}

func explainWith(t *testing.T, objs *clusterstate.Objects, pod *v1.Pod, nodeAllocatable bool) *explain.PodReport {
	t.Helper()
	objs.Pods = append(objs.Pods, pod)
	c := explain.NewCluster(objs, explain.Settings{Features: features, Policy: allocator.FirstFit, NodeAllocatable: nodeAllocatable})
	r, err := c.Pod(t.Context(), pod)
	if err != nil {
		t.Fatalf("Pod: %v", err)
	}
	return r
}

func TestWithNodeAllocatableResourcesCandidatesTellWhatTheirDevicesTakeOfTheNode(t *testing.T) {
	pod := objects.MakePod("worker", ns).ClaimFromTemplate("cpus", "one-cpu-device").Obj()
	r := explainWith(t, cpuNodes(), pod, true)
	if len(r.Now.Candidates) != 1 || r.Now.Candidates[0].Node != "node-2" {
		t.Fatalf("candidates %+v, want node-2 (node-1's device is held)", r.Now.Candidates)
	}
	if got, want := r.Now.Candidates[0].NodeResources, []string{"cpu 4", "memory 256Mi"}; !slices.Equal(got, want) {
		t.Errorf("node resources %q, want %q", got, want)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "node-2 (0): cpus/cpu: cpu.example.com/node-2/cpu-0; node resources: cpu 4, memory 256Mi") {
		t.Errorf("the text does not list node-2's node resources:\n%s", text.String())
	}
	if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "whether the node has that much free is not checked") }) {
		t.Errorf("notes %q do not say that free cpu and memory are not checked", r.Notes)
	}

	off := explainWith(t, cpuNodes(), pod, false)
	if len(off.Now.Candidates) != 1 || off.Now.Candidates[0].NodeResources != nil {
		t.Errorf("with the gate off, candidates %+v, want node-2 without node resources", off.Now.Candidates)
	}
}

func TestWithNodeAllocatableResourcesAClaimOfMappedDevicesHeldByAnotherPodIsAProblem(t *testing.T) {
	pod := objects.MakePod("second", ns).Claim("cpus", "held").Obj()
	r := explainWith(t, cpuNodes(), pod, true)
	want := "claim cpus: node allocatable resource claim held has a mapped device and cannot be shared across pods"
	if !slices.Equal(r.Problems, []string{want}) {
		t.Errorf("problems %q, want %q", r.Problems, want)
	}
	// Without the gate the claim may be shared: the pod goes to node-1.
	off := explainWith(t, cpuNodes(), pod, false)
	if len(off.Problems) != 0 || !slices.Equal(off.Now.FitNodes, []string{"node-1"}) {
		t.Errorf("with the gate off: problems %q, fits on %v; want none and node-1", off.Problems, off.Now.FitNodes)
	}
}
