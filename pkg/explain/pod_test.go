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
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodecheck"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const (
	gpu = "gpu.example.com"
	ns  = "team"
)

var features = structured.Features{PrioritizedList: true, PartitionableDevices: true, DeviceTaints: true, AdminAccess: true}

// fiveNodes is a cluster whose nodes each fail a two-GPU claim for another
// reason, but node-2:
//   - node-1: two GPUs, both allocated to claim "taken";
//   - node-2: two free GPUs;
//   - node-3: one GPU;
//   - node-4: two free GPUs, cordoned;
//   - node-5: two free GPUs, one tainted.
func fiveNodes() *clusterstate.Objects {
	twoGPUs := func(node string) *objects.SliceWrapper {
		return objects.MakeSlice(node+"-gpu", gpu, node).Device("gpu-0", nil).Device("gpu-1", nil)
	}
	cordoned := objects.MakeNode("node-4").Obj()
	cordoned.Spec.Unschedulable = true
	taken := objects.Claim("taken", "other", objects.ClaimSpec("gpu", gpu, 2))
	taken.Status.Allocation = &resourceapi.AllocationResult{
		Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
			{Request: "gpu", Driver: gpu, Pool: "node-1", Device: "gpu-0"},
			{Request: "gpu", Driver: gpu, Pool: "node-1", Device: "gpu-1"},
		}},
		NodeSelector: objects.NodeSelectorFor("node-1"),
	}
	return &clusterstate.Objects{
		Nodes: []*v1.Node{
			objects.MakeNode("node-1").Obj(), objects.MakeNode("node-2").Obj(), objects.MakeNode("node-3").Obj(),
			cordoned, objects.MakeNode("node-5").Obj(),
		},
		Slices: []*resourceapi.ResourceSlice{
			twoGPUs("node-1").Obj(), twoGPUs("node-2").Obj(),
			objects.MakeSlice("node-3-gpu", gpu, "node-3").Device("gpu-0", nil).Obj(),
			twoGPUs("node-4").Obj(),
			twoGPUs("node-5").Taint("maintenance", "", resourceapi.DeviceTaintEffectNoSchedule).Obj(),
		},
		Classes: []*resourceapi.DeviceClass{objects.DeviceClass(gpu, gpu)},
		Claims:  []*resourceapi.ResourceClaim{taken},
		Templates: []*resourceapi.ResourceClaimTemplate{
			objects.ClaimTemplate("two-gpus", ns, "gpu", gpu, 2),
			objects.ClaimTemplate("three-gpus", ns, "gpu", gpu, 3),
		},
	}
}

func explainPod(t *testing.T, objs *clusterstate.Objects, pod *v1.Pod) *explain.PodReport {
	t.Helper()
	objs.Pods = append(objs.Pods, pod)
	c := explain.NewCluster(objs, explain.Settings{Features: features, Policy: allocator.FirstFit})
	r, err := c.Pod(t.Context(), pod)
	if err != nil {
		t.Fatalf("Pod: %v", err)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", text.String())
	return r
}

// reasons maps each reason to the example nodes of its group.
func reasons(a explain.Answer) map[string][]string {
	out := map[string][]string{}
	for _, g := range a.NotFit {
		for _, ex := range g.Examples {
			out[g.Reason] = append(out[g.Reason], ex.Node)
		}
	}
	return out
}

func TestAPodFromATemplateIsToldWhereItFitsAndWhyNotElsewhere(t *testing.T) {
	pod := objects.MakePod("trainer", ns).ClaimFromTemplate("gpu", "two-gpus").Obj()
	r := explainPod(t, fiveNodes(), pod)

	if c := r.Claims; len(c) != 1 || c[0].PodClaim != "gpu" || c[0].Name != "trainer-gpu-…" || c[0].Template != "two-gpus" || c[0].State != explain.ClaimNotCreated {
		t.Errorf("claims %+v, want gpu from template two-gpus, not created yet, named as the controller will", r.Claims)
	}
	if want := []string{"node-2"}; !reflect.DeepEqual(r.Now.FitNodes, want) {
		t.Errorf("fits now on %v, want %v", r.Now.FitNodes, want)
	}
	if len(r.Now.Candidates) != 1 || !reflect.DeepEqual(r.Now.Candidates[0].Devices, []string{"gpu/gpu: gpu.example.com/node-2/gpu-0", "gpu/gpu: gpu.example.com/node-2/gpu-1"}) {
		t.Errorf("candidates %+v, want node-2 with both its GPUs", r.Now.Candidates)
	}
	wantNow := map[string][]string{
		`all devices matching request "gpu" are allocated`:                                                          {"node-1"},
		`request "gpu" needs 2 matching devices, more than the node has, allocated or free (class gpu.example.com)`: {"node-3"},
		"node(s) were unschedulable": {"node-4"},
		`free devices matching request "gpu" have taints it does not tolerate (class gpu.example.com)`: {"node-5"},
	}
	if got := reasons(r.Now); !reflect.DeepEqual(got, wantNow) {
		t.Errorf("reasons now %v, want %v", got, wantNow)
	}
	for _, g := range r.Now.NotFit {
		if g.Examples[0].Node != "node-5" {
			continue
		}
		want := explain.RequestCount{Claim: "gpu", Request: "gpu", Class: gpu, Selectors: []string{`device.driver == "gpu.example.com"`}, Need: 2, Matching: 2, Tainted: 1, Usable: 1}
		if got := g.Examples[0].Requests; len(got) != 1 || !reflect.DeepEqual(got[0], want) {
			t.Errorf("node-5's counts %+v, want %+v", got, want)
		}
	}
	if want := []string{"node-1", "node-2"}; !reflect.DeepEqual(r.Empty.FitNodes, want) {
		t.Errorf("with nothing allocated it fits on %v, want %v (node-1's GPUs freed)", r.Empty.FitNodes, want)
	}
	if !strings.HasPrefix(r.Verdict, "fits on 1 of 5 nodes now") {
		t.Errorf("verdict %q", r.Verdict)
	}
}

func TestAClaimTooBigForAnyNodeIsToldApartFromAllTaken(t *testing.T) {
	tooBig := explainPod(t, fiveNodes(), objects.MakePod("big", ns).ClaimFromTemplate("gpu", "three-gpus").Obj())
	if len(tooBig.Now.FitNodes)+len(tooBig.Empty.FitNodes) != 0 || !strings.Contains(tooBig.Verdict, "even with nothing allocated") {
		t.Errorf("three GPUs: fits now %v, empty %v, verdict %q; want no node either way", tooBig.Now.FitNodes, tooBig.Empty.FitNodes, tooBig.Verdict)
	}

	objs := fiveNodes()
	// node-2's GPUs taken too: nothing is left now, node-1 and node-2 when empty.
	also := objects.Claim("also-taken", "other", objects.ClaimSpec("gpu", gpu, 2))
	also.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: gpu, Pool: "node-2", Device: "gpu-0"}, {Request: "gpu", Driver: gpu, Pool: "node-2", Device: "gpu-1"},
	}}}
	objs.Claims = append(objs.Claims, also)
	taken := explainPod(t, objs, objects.MakePod("waits", ns).ClaimFromTemplate("gpu", "two-gpus").Obj())
	if len(taken.Now.FitNodes) != 0 || len(taken.Empty.FitNodes) != 2 || !strings.Contains(taken.Verdict, "taken or blocked") {
		t.Errorf("two GPUs, all taken: fits now %v, empty %v, verdict %q; want none now, two when empty", taken.Now.FitNodes, taken.Empty.FitNodes, taken.Verdict)
	}
}

func TestAnAllocatedClaimKeepsThePodOnItsNode(t *testing.T) {
	objs := fiveNodes()
	mine := objects.Claim("mine", ns, objects.ClaimSpec("gpu", gpu, 1))
	mine.Status.Allocation = &resourceapi.AllocationResult{
		Devices:      resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "gpu", Driver: gpu, Pool: "node-5", Device: "gpu-1"}}},
		NodeSelector: objects.NodeSelectorFor("node-5"),
	}
	objs.Claims = append(objs.Claims, mine)
	r := explainPod(t, objs, objects.MakePod("pinned", ns).Claim("gpu", "mine").Obj())
	if want := []string{"node-5"}; !reflect.DeepEqual(r.Now.FitNodes, want) {
		t.Errorf("fits on %v, want %v (where its claim's device is)", r.Now.FitNodes, want)
	}
	if r.Claims[0].State != explain.ClaimAllocated || !reflect.DeepEqual(r.Claims[0].Devices, []string{"gpu: gpu.example.com/node-5/gpu-1"}) {
		t.Errorf("claim %+v, want allocated with node-5's gpu-1", r.Claims[0])
	}
	if got := reasons(r.Now)["node(s) not among those an allocated claim's devices are available on"]; len(got) != 3 {
		t.Errorf("nodes excluded by the allocation's node selector (examples) %v, want three", got)
	}
}

func TestWhatKeepsTheSchedulerFromTryingAnyNodeIsAProblem(t *testing.T) {
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		want string
	}{
		{"a missing template", objects.MakePod("p", ns).ClaimFromTemplate("gpu", "nope").Obj(), "claim gpu: ResourceClaimTemplate team/nope does not exist"},
		{"a missing claim", objects.MakePod("p", ns).Claim("gpu", "nope").Obj(), "claim gpu: ResourceClaim team/nope does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := explainPod(t, fiveNodes(), tc.pod)
			if !reflect.DeepEqual(r.Problems, []string{tc.want}) || r.Now.Nodes != 0 {
				t.Errorf("problems %q, nodes asked %d; want %q and none asked", r.Problems, r.Now.Nodes, tc.want)
			}
		})
	}
	objs := fiveNodes()
	objs.Templates = append(objs.Templates, objects.ClaimTemplate("no-class", ns, "gpu", "nvidia.com", 1))
	r := explainPod(t, objs, objects.MakePod("p", ns).ClaimFromTemplate("gpu", "no-class").Obj())
	if want := []string{"claim gpu: request gpu: DeviceClass nvidia.com does not exist"}; !reflect.DeepEqual(r.Problems, want) {
		t.Errorf("problems %q, want %q", r.Problems, want)
	}
}

func TestAPodAskingForADeviceClassesExtendedResourceIsToldItIsNotExplained(t *testing.T) {
	objs := fiveNodes()
	objs.Classes[0].Spec.ExtendedResourceName = ptr.To("example.com/gpu")
	pod := objects.MakePod("legacy", ns).ClaimFromTemplate("gpu", "two-gpus").ExtendedResource("example.com/gpu", 1).Obj()
	r := explainPod(t, objs, pod)
	if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "(example.com/gpu)") }) {
		t.Errorf("notes %q, want one naming example.com/gpu", r.Notes)
	}
	plain := explainPod(t, fiveNodes(), objects.MakePod("plain", ns).ClaimFromTemplate("gpu", "two-gpus").ExtendedResource("example.com/gpu", 1).Obj())
	if slices.ContainsFunc(plain.Notes, func(n string) bool { return strings.Contains(n, "extended resources") }) {
		t.Errorf("notes %q: no class provides example.com/gpu there, so no note", plain.Notes)
	}
}

func TestATolerationThatComparesTaintValuesCountsOnlyWithItsGate(t *testing.T) {
	objs := fiveNodes()
	for _, n := range objs.Nodes {
		if n.Name == "node-2" {
			n.Spec.Taints = []v1.Taint{{Key: "gpu-generation", Value: "7", Effect: v1.TaintEffectNoSchedule}}
		}
	}
	pod := objects.MakePod("trainer", ns).ClaimFromTemplate("gpu", "two-gpus").Obj()
	pod.Spec.Tolerations = []v1.Toleration{{Key: "gpu-generation", Operator: v1.TolerationOpGt, Value: "5", Effect: v1.TaintEffectNoSchedule}}
	objs.Pods = append(objs.Pods, pod)
	for _, tc := range []struct {
		name string
		on   bool
		fits []string
	}{
		{"with TaintTolerationComparisonOperators on, Gt 5 tolerates the taint 7", true, []string{"node-2"}},
		{"with it off, as the scheduler, the toleration tolerates nothing", false, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := explain.NewCluster(objs, explain.Settings{Features: features, Policy: allocator.FirstFit, NodeChecks: nodecheck.Features{TolerationComparisonOperators: tc.on}})
			r, err := c.Pod(t.Context(), pod)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Now.FitNodes, tc.fits) {
				t.Errorf("fits now on %v, want %v", r.Now.FitNodes, tc.fits)
			}
		})
	}
}
