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
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const (
	nic       = "nic.example.com"
	pcieRoot  = "resource.kubernetes.io/pcieRoot"
	annPrefix = "annotation " + deviceconstraints.Annotation + ": "
	// notMet is what a node says where the claims fit but for the device
	// constraints.
	notMet = "the device constraints (annotation " + deviceconstraints.Annotation + ") are not met on this node"
	// tied ties the GPU and the NIC by their PCIe root.
	tied = `[{"requests": ["gpu", "nic/net"], "matchAttribute": "` + pcieRoot + `"}]`
)

// pcieCluster is node-1 with a GPU on pci-a and a NIC on pci-b, node-2
// with a GPU and a NIC on pci-c (pci-d for node-2's NIC when apart), and
// the claims "gpu" (request "gpu") and "nic" (request "net") of one
// device each.
func pcieCluster(apart bool) *clusterstate.Objects {
	device := func(driver, node, name, root string) *resourceapi.ResourceSlice {
		return objects.MakeSlice(node+"-"+name, driver, node).Device(name, nil).Attribute(pcieRoot, root).Obj()
	}
	node2NIC := "pci-c"
	if apart {
		node2NIC = "pci-d"
	}
	return &clusterstate.Objects{
		Nodes: []*v1.Node{objects.MakeNode("node-1").Obj(), objects.MakeNode("node-2").Obj()},
		Slices: []*resourceapi.ResourceSlice{
			device(gpu, "node-1", "gpu-0", "pci-a"), device(nic, "node-1", "nic-0", "pci-b"),
			device(gpu, "node-2", "gpu-0", "pci-c"), device(nic, "node-2", "nic-0", node2NIC),
		},
		Classes: []*resourceapi.DeviceClass{objects.DeviceClass(gpu, gpu), objects.DeviceClass(nic, nic)},
		Claims: []*resourceapi.ResourceClaim{
			objects.Claim("gpu", ns, objects.ClaimSpec("gpu", gpu, 1)),
			objects.Claim("nic", ns, objects.ClaimSpec("net", nic, 1)),
		},
	}
}

// allocate gives objs' claim name the device of driver on node.
func allocate(objs *clusterstate.Objects, name, driver, node, device string) {
	for i, claim := range objs.Claims {
		if claim.Name != name {
			continue
		}
		claim = claim.DeepCopy()
		claim.Status.Allocation = &resourceapi.AllocationResult{
			Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
				{Request: claim.Spec.Devices.Requests[0].Name, Driver: driver, Pool: node, Device: device},
			}},
			NodeSelector: objects.NodeSelectorFor(node),
		}
		objs.Claims[i] = claim
	}
}

// takenBy adds claim name of another namespace holding the device of
// driver on node.
func takenBy(objs *clusterstate.Objects, name, driver, node, device string) {
	objs.Claims = append(objs.Claims, objects.Claim(name, "other", objects.ClaimSpec("dev", driver, 1)))
	allocate(objs, name, driver, node, device)
}

// gpuAndNIC is a pod of the claims gpu and nic with the annotation value
// (none if empty).
func gpuAndNIC(value string) *v1.Pod {
	pod := objects.MakePod("p", ns).Claim("gpu", "gpu").Claim("nic", "nic").Obj()
	if value != "" {
		pod.Annotations = map[string]string{deviceconstraints.Annotation: value}
	}
	return pod
}

// schedulerMessage is the scheduler's message for pod's annotation on
// objs' claims: deviceconstraints.Of's error, else CheckPod's.
func schedulerMessage(t *testing.T, objs *clusterstate.Objects, pod *v1.Pod) string {
	t.Helper()
	constraints, _, err := deviceconstraints.Of(pod)
	if err == nil {
		specs := map[string]*resourceapi.ResourceClaimSpec{}
		for _, claim := range objs.Claims {
			specs[claim.Name] = &claim.Spec // pod claims are named as their claims
		}
		err = deviceconstraints.CheckPod(constraints, pod, specs)
	}
	if err == nil {
		t.Fatalf("the annotation %q is valid", pod.Annotations[deviceconstraints.Annotation])
	}
	return err.Error()
}

func TestAWrongDeviceConstraintsAnnotationIsAProblemOfThePodWithTheSchedulersMessage(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        string // in the message
	}{
		{"an unparsable value is the parser's error", `[{"requests": ["gpu"`, annPrefix},
		{"a misspelt field is named", `[{"matchAtribute": "` + pcieRoot + `"}]`, "matchAtribute"},
		{"a claim the pod does not have is named with those it has", `[{"requests": ["gpu", "nics"], "matchAttribute": "` + pcieRoot + `"}]`,
			`pod has no resource claim nics (it has: gpu, nic)`},
		{"a request the claim does not have is named with those it has", `[{"requests": ["gpu/accel"], "matchAttribute": "` + pcieRoot + `"}]`,
			`claim gpu has no request accel (it has: gpu)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := pcieCluster(false)
			pod := gpuAndNIC(tc.value)
			want := schedulerMessage(t, objs, pod)
			r := explainPod(t, objs, pod)
			if !reflect.DeepEqual(r.Problems, []string{want}) || r.Now.Nodes != 0 {
				t.Fatalf("problems %q, nodes asked %d; want [%q] and none asked", r.Problems, r.Now.Nodes, want)
			}
			if !strings.HasPrefix(want, annPrefix) || !strings.Contains(want, tc.want) {
				t.Errorf("message %q, want it to start with %q and say %q", want, annPrefix, tc.want)
			}
			if r.Verdict != "the scheduler cannot try any node: "+want {
				t.Errorf("verdict %q, want the message", r.Verdict)
			}
			var text bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "Problem:  "+want+"\n") || strings.Contains(text.String(), "Now:") {
				t.Errorf("text %q, want the problem and no answer per node", text.String())
			}
			out, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var back struct{ Problems []string }
			if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back.Problems, []string{want}) {
				t.Errorf("-o json problems %q (%v), want [%q]", back.Problems, err, want)
			}
		})
	}
}

func TestClaimsTiedByTheirPCIeRootFitOnlyWhereTheyShareOne(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		wantNodes   []string
		wantDevices []string // on the best node
		wantReasons map[string][]string
	}{
		{name: "without the annotation the pod fits on both nodes", wantNodes: []string{"node-1", "node-2"},
			wantDevices: []string{"gpu/gpu: gpu.example.com/node-1/gpu-0", "nic/net: nic.example.com/node-1/nic-0"}, wantReasons: map[string][]string{}},
		{name: "a GPU and a NIC tied by pcieRoot fit only on the node where they share a root", value: tied, wantNodes: []string{"node-2"},
			wantDevices: []string{"gpu/gpu: gpu.example.com/node-2/gpu-0", "nic/net: nic.example.com/node-2/nic-0"},
			wantReasons: map[string][]string{"cannot allocate all claims; " + notMet: {"node-1"}}},
		{name: "an empty requests list ties every claim of the pod", value: `[{"matchAttribute": "` + pcieRoot + `"}]`, wantNodes: []string{"node-2"},
			wantDevices: []string{"gpu/gpu: gpu.example.com/node-2/gpu-0", "nic/net: nic.example.com/node-2/nic-0"},
			wantReasons: map[string][]string{"cannot allocate all claims; " + notMet: {"node-1"}}},
		{name: "a distinct attribute the devices do not share fits everywhere", value: `[{"distinctAttribute": "` + pcieRoot + `"}]`, wantNodes: []string{"node-1"},
			wantDevices: []string{"gpu/gpu: gpu.example.com/node-1/gpu-0", "nic/net: nic.example.com/node-1/nic-0"},
			wantReasons: map[string][]string{"cannot allocate all claims; " + notMet: {"node-2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := explainPod(t, pcieCluster(false), gpuAndNIC(tc.value))
			if len(r.Problems) > 0 {
				t.Fatalf("problems %q", r.Problems)
			}
			if !reflect.DeepEqual(r.Now.FitNodes, tc.wantNodes) || !reflect.DeepEqual(r.Empty.FitNodes, tc.wantNodes) {
				t.Errorf("fits now on %v, with nothing allocated on %v; want %v both", r.Now.FitNodes, r.Empty.FitNodes, tc.wantNodes)
			}
			if len(r.Now.Candidates) == 0 || !reflect.DeepEqual(r.Now.Candidates[0].Devices, tc.wantDevices) {
				t.Errorf("candidates %+v, want the first with %v", r.Now.Candidates, tc.wantDevices)
			}
			if got := reasons(r.Now); !reflect.DeepEqual(got, tc.wantReasons) {
				t.Errorf("reasons %v, want %v", got, tc.wantReasons)
			}
		})
	}
}

func TestWhereNoNodeFitsTheNodesTheDeviceConstraintsFailOnNameThem(t *testing.T) {
	for _, tc := range []struct {
		name        string
		objs        func() *clusterstate.Objects
		wantNow     map[string][]string
		wantEmpty   []string
		wantNotMet  int // nodes with nothing allocated that fail only by the constraints
		wantVerdict string
		// wantClosest is what came closest on each node where only the
		// constraints fail now.
		wantClosest map[string]string
	}{
		{
			name: "a taken NIC on the shared root leaves the other node, which fails by the constraints",
			objs: func() *clusterstate.Objects {
				objs := pcieCluster(false)
				takenBy(objs, "taken", nic, "node-2", "nic-0")
				return objs
			},
			wantNow: map[string][]string{
				"cannot allocate all claims; " + notMet:            {"node-1"},
				`all devices matching request "net" are allocated`: {"node-2"},
			},
			wantEmpty:   []string{"node-2"},
			wantNotMet:  1, // node-1
			wantVerdict: "fits on no node now, but on 1 of 2 nodes with nothing allocated",
			wantClosest: map[string]string{"node-1": "matchAttribute " + pcieRoot + ": gpu/gpu on pci-a, nic/net on pci-b"},
		},
		{
			name: "no node with a shared root fails everywhere by the constraints, even with nothing allocated",
			objs: func() *clusterstate.Objects { return pcieCluster(true) },
			wantNow: map[string][]string{
				"cannot allocate all claims; " + notMet: {"node-1", "node-2"},
			},
			wantEmpty:  []string{},
			wantNotMet: 2,
			wantVerdict: "fits on none of 2 nodes, even with nothing allocated: its device constraints (annotation " + deviceconstraints.Annotation +
				") cannot be met on the 2 nodes where its claims would fit without them",
			wantClosest: map[string]string{
				"node-1": "matchAttribute " + pcieRoot + ": gpu/gpu on pci-a, nic/net on pci-b",
				"node-2": "matchAttribute " + pcieRoot + ": gpu/gpu on pci-c, nic/net on pci-d",
			},
		},
		{
			name: "an allocated NIC fixes the root the GPU must be on",
			objs: func() *clusterstate.Objects {
				objs := pcieCluster(false)
				allocate(objs, "nic", nic, "node-1", "nic-0")
				return objs
			},
			wantNow: map[string][]string{
				"cannot allocate all claims; " + notMet:                                 {"node-1"},
				"node(s) not among those an allocated claim's devices are available on": {"node-2"},
			},
			wantEmpty:  []string{},
			wantNotMet: 1,
			wantVerdict: "fits on none of 2 nodes, even with nothing allocated: its device constraints (annotation " + deviceconstraints.Annotation +
				") cannot be met on the 1 node where its claims would fit without them",
			wantClosest: map[string]string{"node-1": "matchAttribute " + pcieRoot + ": gpu/gpu on pci-a, nic/net (allocated) on pci-b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := explainPod(t, tc.objs(), gpuAndNIC(tied))
			if len(r.Problems) > 0 {
				t.Fatalf("problems %q", r.Problems)
			}
			if len(r.Now.FitNodes) != 0 {
				t.Errorf("fits now on %v, want none", r.Now.FitNodes)
			}
			if got := reasons(r.Now); !reflect.DeepEqual(got, tc.wantNow) {
				t.Errorf("reasons now %v, want %v", got, tc.wantNow)
			}
			if !reflect.DeepEqual(r.Empty.FitNodes, tc.wantEmpty) || r.Empty.ConstraintsNotMet != tc.wantNotMet {
				t.Errorf("with nothing allocated fits on %v, %d failing by the constraints; want %v, %d",
					r.Empty.FitNodes, r.Empty.ConstraintsNotMet, tc.wantEmpty, tc.wantNotMet)
			}
			if !strings.HasPrefix(r.Verdict, tc.wantVerdict) {
				t.Errorf("verdict %q, want it to start with %q", r.Verdict, tc.wantVerdict)
			}
			closest := map[string]string{}
			for _, g := range r.Now.NotFit {
				for _, ex := range g.Examples {
					if ex.Closest != "" {
						closest[ex.Node] = ex.Closest
					}
				}
			}
			if !reflect.DeepEqual(closest, tc.wantClosest) {
				t.Errorf("closest %q, want %q", closest, tc.wantClosest)
			}
			var text bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			for node, want := range tc.wantClosest {
				if !strings.Contains(text.String(), node+": closest: "+want+"\n") {
					t.Errorf("the text does not say what came closest on %s:\n%s", node, text.String())
				}
			}
		})
	}
}

func TestAllocatedClaimsThatBreakTheDeviceConstraintsAreAProblemOfThePod(t *testing.T) {
	objs := pcieCluster(false)
	allocate(objs, "gpu", gpu, "node-1", "gpu-0")
	allocate(objs, "nic", nic, "node-1", "nic-0")
	r := explainPod(t, objs, gpuAndNIC(tied))
	// The plugin's message (crossclaims.Broken, via CheckFixed) for the allocator's
	// finding: the GPU on pci-a cannot join the NIC on pci-b.
	want := annPrefix + "the pod's allocated claims break it: constraint 0 across claims: device nic.example.com/node-1/nic-0, allocated to claim nic for request net, " +
		"does not meet it (its attribute is missing, or its value conflicts with the other devices')"
	if !reflect.DeepEqual(r.Problems, []string{want}) || r.Now.Nodes != 0 {
		t.Errorf("problems %q, nodes asked %d; want [%q] and none asked", r.Problems, r.Now.Nodes, want)
	}
	if r.Verdict != "the scheduler cannot try any node: "+want {
		t.Errorf("verdict %q", r.Verdict)
	}

	// Allocated on one root, they are fine: nothing is left to allocate.
	objs = pcieCluster(false)
	allocate(objs, "gpu", gpu, "node-2", "gpu-0")
	allocate(objs, "nic", nic, "node-2", "nic-0")
	r = explainPod(t, objs, gpuAndNIC(tied))
	if len(r.Problems) > 0 || !reflect.DeepEqual(r.Now.FitNodes, []string{"node-2"}) {
		t.Errorf("problems %q, fits on %v; want none and node-2", r.Problems, r.Now.FitNodes)
	}
}

func TestAClaimTheAnnotationNamesIsCheckedOnlyOnceItResolves(t *testing.T) {
	// The scheduler reports a missing claim first; the annotation, which
	// names it, is not wrong for that.
	objs := pcieCluster(false)
	objs.Claims = objs.Claims[:1]
	r := explainPod(t, objs, gpuAndNIC(tied))
	want := []string{"claim nic: ResourceClaim team/nic does not exist"}
	if !reflect.DeepEqual(r.Problems, want) {
		t.Errorf("problems %q, want %q", r.Problems, want)
	}
	if !strings.HasPrefix(r.Verdict, "the scheduler cannot try any node: "+want[0]) {
		t.Errorf("verdict %q", r.Verdict)
	}
}

// railGroup is pcieCluster(false) with a second NIC on node-1 (nic-1, on
// pci-c), and PodGroup "train" whose annotation is value; its pod "sib",
// bound to node-2, holds node-2's NIC (pci-c) through claim sib-nic. It
// returns the pod of the group to explain: p, with claims gpu and nic.
func railGroup(value string) (*clusterstate.Objects, *v1.Pod) {
	objs := pcieCluster(false)
	extra := objects.MakeSlice("node-1-nic-1", nic, "node-1").Device("nic-1", nil).Attribute(pcieRoot, "pci-c").Obj()
	extra.Spec.Pool.Name = "node-1-extra"
	objs.Slices = append(objs.Slices, extra)
	pg := &schedulingapi.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: ns, Annotations: map[string]string{deviceconstraints.Annotation: value}}}
	objs.PodGroups = append(objs.PodGroups, pg)
	sib := objects.MakePod("sib", ns).Claim("nic", "sib-nic").Obj()
	sib.UID, sib.Spec.NodeName, sib.Status.Phase = "uid-sib", "node-2", v1.PodRunning
	sib.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("train")}
	objs.Pods = append(objs.Pods, sib)
	objs.Claims = append(objs.Claims, objects.Claim("sib-nic", ns, objects.ClaimSpec("net", nic, 1)))
	allocate(objs, "sib-nic", nic, "node-2", "nic-0")
	pod := gpuAndNIC("")
	pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("train")}
	return objs, pod
}

func TestAPodGroupsDeviceConstraintsTieAPodToItsSiblingsDevices(t *testing.T) {
	t.Run("a NIC tied to the group's takes the one on its sibling's root", func(t *testing.T) {
		objs, pod := railGroup(`[{"requests": ["nic/net"], "matchAttribute": "` + pcieRoot + `"}]`)
		r := explainPod(t, objs, pod)
		if len(r.Problems) > 0 {
			t.Fatalf("problems %q", r.Problems)
		}
		if len(r.Now.Candidates) == 0 || !slices.Contains(r.Now.Candidates[0].Devices, "nic/net: nic.example.com/node-1-extra/nic-1") {
			t.Errorf("candidates %+v, want the first with node-1's nic-1, on pci-c as its sibling's", r.Now.Candidates)
		}
	})
	t.Run("without the group's annotation the NIC is the node's first", func(t *testing.T) {
		objs, pod := railGroup(`[]`)
		r := explainPod(t, objs, pod)
		if len(r.Now.Candidates) == 0 || !slices.Contains(r.Now.Candidates[0].Devices, "nic/net: nic.example.com/node-1/nic-0") {
			t.Errorf("candidates %+v, want the first with node-1's nic-0", r.Now.Candidates)
		}
	})
	t.Run("a wrong annotation on the PodGroup is a problem of the pod, with the scheduler's message", func(t *testing.T) {
		objs, pod := railGroup(`[{"requests": ["nic/nett"], "matchAttribute": "` + pcieRoot + `"}]`)
		r := explainPod(t, objs, pod)
		want := "PodGroup " + ns + "/train: pod p: " + annPrefix + `constraint 0: requests[0] "nic/nett": claim nic has no request nett (it has: net)`
		if len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0], want) || !strings.Contains(r.Problems[0], "pod sib: ") {
			t.Fatalf("problems %q, want one starting %q and naming the sibling too", r.Problems, want)
		}
	})
}
