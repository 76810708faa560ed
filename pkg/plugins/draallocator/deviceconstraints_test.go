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

package draallocator

import (
	"maps"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// pcieRootAttribute is the attribute the device-constraints cases tie by.
const pcieRootAttribute = "resource.kubernetes.io/pcieRoot"

// pcieCluster is node-1 with gpu-0 on pci-a, gpu-1 on pci-b and nic-0 on
// pci-b, node-2 with gpu-0 on pci-c and nic-0 on pci-d, and the claims
// "gpu" and "nic" of one device of their kind each.
func pcieCluster() ([]*v1.Node, []runtime.Object) {
	slice := func(node string, devices ...[3]string) *resourceapi.ResourceSlice {
		w := objects.MakeSlice(node, testDriver, node)
		for _, d := range devices {
			w.Device(d[0], nil).Attribute("kind", d[1])
			root := d[2]
			w.Spec.Devices[len(w.Spec.Devices)-1].Attributes[pcieRootAttribute] = resourceapi.DeviceAttribute{StringValue: &root}
		}
		return w.Obj()
	}
	kind := func(k string) string { return `device.attributes["` + testDriver + `"].kind == "` + k + `"` }
	return []*v1.Node{objects.MakeNode("node-1").Obj(), objects.MakeNode("node-2").Obj()}, []runtime.Object{
		objects.DeviceClass(testDriver, testDriver),
		slice("node-1", [3]string{"gpu-0", "gpu", "pci-a"}, [3]string{"gpu-1", "gpu", "pci-b"}, [3]string{"nic-0", "nic", "pci-b"}),
		slice("node-2", [3]string{"gpu-0", "gpu", "pci-c"}, [3]string{"nic-0", "nic", "pci-d"}),
		objects.Claim("gpu", testNamespace, objects.ClaimSpec("dev", testDriver, 1, kind("gpu"))),
		objects.Claim("nic", testNamespace, objects.ClaimSpec("dev", testDriver, 1, kind("nic"))),
	}
}

// constrainedPod is a pod of the claims gpu and nic with the annotation
// value (none if empty).
func constrainedPod(name, value string) *v1.Pod {
	pod := objects.MakePod(name, testNamespace).Claim("gpu", "gpu").Claim("nic", "nic").Obj()
	if value != "" {
		pod.Annotations = map[string]string{deviceconstraints.Annotation: value}
	}
	return pod
}

func TestDeviceConstraintsAcrossAPodsClaims(t *testing.T) {
	tied := `[{"requests": ["gpu/dev", "nic"], "matchAttribute": "` + pcieRootAttribute + `"}]`
	for _, tc := range []struct {
		name string
		// value is the annotation's; allocatedNIC and allocatedGPU are
		// the node-1 devices the claims have already, if any.
		value, allocatedNIC, allocatedGPU string
		wantNodes                         []string
		wantGPU                           string // on the first feasible node
		wantStatus                        string // PreFilter's, if it fails
	}{
		{name: "without the annotation the pod fits on both nodes and takes the first GPU", wantNodes: []string{"node-1", "node-2"}, wantGPU: "gpu-0"},
		{name: "a GPU and a NIC tied by pcieRoot fit only where they share a root, the GPU on the NIC's", value: tied, wantNodes: []string{"node-1"}, wantGPU: "gpu-1"},
		{name: "an empty requests list ties every request of every claim", value: `[{"matchAttribute": "` + pcieRootAttribute + `"}]`, wantNodes: []string{"node-1"}, wantGPU: "gpu-1"},
		{name: "YAML is read as JSON", value: "- requests: [gpu, nic]\n  matchAttribute: " + pcieRootAttribute + "\n", wantNodes: []string{"node-1"}, wantGPU: "gpu-1"},
		{name: "an allocated NIC fixes the GPU's root", value: tied, allocatedNIC: "nic-0", wantNodes: []string{"node-1"}, wantGPU: "gpu-1"},
		{name: "allocated claims that break the constraint leave the pod pending saying so", value: tied, allocatedNIC: "nic-0", allocatedGPU: "gpu-0",
			wantStatus: "annotation " + deviceconstraints.Annotation + ": the pod's allocated claims break it: constraint 0 across claims: device gpu.example.com/node-1/nic-0"},
		{name: "an unparsable value leaves the pod pending saying so", value: `[{"requests": ["gpu"`,
			wantStatus: "annotation " + deviceconstraints.Annotation + ": "},
		{name: "a misspelt field is named", value: `[{"matchAtribute": "` + pcieRootAttribute + `"}]`,
			wantStatus: "matchAtribute"},
		{name: "an unknown claim is named", value: `[{"requests": ["gpu", "nics"], "matchAttribute": "` + pcieRootAttribute + `"}]`,
			wantStatus: `"nics"`},
		{name: "an unknown request is named with those the claim has", value: `[{"requests": ["gpu/devs"], "matchAttribute": "` + pcieRootAttribute + `"}]`,
			wantStatus: "claim gpu has no request devs (it has: dev)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, objs := pcieCluster()
			allocated := map[string]string{"nic": tc.allocatedNIC, "gpu": tc.allocatedGPU}
			for i, o := range objs {
				if c, ok := o.(*resourceapi.ResourceClaim); ok && allocated[c.Name] != "" {
					c = c.DeepCopy()
					c.Status.Allocation = allocationOf("node-1", allocated[c.Name])
					c.Status.Allocation.NodeSelector = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
						{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"node-1"}}}}}}
					objs[i] = c
				}
			}
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			pod := constrainedPod("pod", tc.value)
			c, st := h.filter(h.plugins[0], pod)
			if tc.wantStatus != "" {
				if st == nil || st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), tc.wantStatus) {
					t.Fatalf("PreFilter: %v, want the pod unschedulable saying %q", st, tc.wantStatus)
				}
				events := h.events("Warning " + eventInvalidDeviceConstraints)
				if invalid := tc.allocatedGPU == ""; invalid && (len(events) != 1 || !strings.Contains(events[0], tc.wantStatus)) || !invalid && len(events) != 0 {
					t.Errorf("events %v, want one Warning %s saying %q for a wrong annotation, none otherwise", events, eventInvalidDeviceConstraints, tc.wantStatus)
				}
				return
			}
			if st != nil {
				t.Fatalf("PreFilter: %v", st)
			}
			if !slices.Equal(c.feasible, tc.wantNodes) {
				t.Fatalf("feasible nodes %v, want %v", c.feasible, tc.wantNodes)
			}
			if st := c.reserve(); !st.IsSuccess() {
				t.Fatalf("Reserve: %v", st)
			}
			s, err := getState(c.state)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.claims[0].allocation; got == nil || got.Devices.Results[0].Device != tc.wantGPU {
				t.Errorf("the GPU claim got %v, want %s", got, tc.wantGPU)
			}
		})
	}
}

func TestAPodIsRetriedWhenItsDeviceConstraintsChange(t *testing.T) {
	withValue := func(value string) *v1.Pod { return constrainedPod("pod", value) }
	labelled := withValue("[]")
	labelled.Labels = map[string]string{"app": "x"}
	for _, tc := range []struct {
		name     string
		old, new *v1.Pod
		want     fwk.QueueingHint
	}{
		{"a fixed value queues the pod", withValue(`[{"matchAtribute": "x/y"}]`), withValue(`[{"matchAttribute": "x/y"}]`), fwk.Queue},
		{"a value set queues the pod", withValue(""), withValue("[]"), fwk.Queue},
		{"a value removed queues the pod", withValue("[]"), withValue(""), fwk.Queue},
		{"another change of the pod does not", withValue("[]"), labelled, fwk.QueueSkip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hint, err := isSchedulableAfterDeviceConstraintsChange(klog.Background(), tc.new, tc.old, tc.new)
			if err != nil || hint != tc.want {
				t.Errorf("hint %v, %v; want %v", hint, err, tc.want)
			}
		})
	}
}

func TestANodeWhereOnlyTheDeviceConstraintsFailSaysSo(t *testing.T) {
	nodes, objs := pcieCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pod := constrainedPod("pod", `[{"requests": ["gpu", "nic"], "matchAttribute": "`+pcieRootAttribute+`"}]`)
	c, st := h.filter(h.plugins[0], pod)
	if st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	status := h.plugins[0].Filter(h.ctx, c.state, pod, h.nodes[1])
	want := "the pod's device constraints (annotation " + deviceconstraints.Annotation + ") are not met on node node-2: its claims fit there without them" +
		"; closest: matchAttribute " + pcieRootAttribute + ": gpu/dev on pci-c, nic/dev on pci-d"
	if status.IsSuccess() || !strings.Contains(status.Message(), want) {
		t.Errorf("Filter on node-2: %v, want a refusal saying %q", status, want)
	}
}

// TestAGangsJointPlanHonoursEachMembersDeviceConstraints: two pods of a
// gang, each a GPU claim and a NIC claim; only b ties them by pcieRoot.
// node-1, first in the plan's order, has a GPU and a NIC on pci-x; node-2
// a GPU on pci-a and a NIC on pci-b. Pod a, which plans the group, fits
// on either node; a plan blind to b's constraints gives a node-1 and b
// node-2, where b's own Filter refuses it, and the gang fails. The plan
// with every member's constraints gives b node-1 and a node-2.
func TestAGangsJointPlanHonoursEachMembersDeviceConstraints(t *testing.T) {
	withPodGroups(t, false)
	kind := func(k string) string { return `device.attributes["` + testDriver + `"].kind == "` + k + `"` }
	slice := func(node string, devices ...[3]string) *resourceapi.ResourceSlice {
		w := objects.MakeSlice(node, testDriver, node)
		for _, d := range devices {
			w.Device(d[0], nil).Attribute("kind", d[1])
			root := d[2]
			w.Spec.Devices[len(w.Spec.Devices)-1].Attributes[pcieRootAttribute] = resourceapi.DeviceAttribute{StringValue: &root}
		}
		return w.Obj()
	}
	nodes := []*v1.Node{objects.MakeNode("node-1").Obj(), objects.MakeNode("node-2").Obj()}
	objs := []runtime.Object{objects.DeviceClass(testDriver, testDriver), gangGroup(2),
		slice("node-1", [3]string{"gpu-0", "gpu", "pci-x"}, [3]string{"nic-0", "nic", "pci-x"}),
		slice("node-2", [3]string{"gpu-0", "gpu", "pci-a"}, [3]string{"nic-0", "nic", "pci-b"})}
	var pods []*v1.Pod
	for _, name := range []string{"a", "b"} {
		pod := gangPod(name)
		pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, objects.MakePod(name, testNamespace).Claim("nic", name+"-nic").Obj().Spec.ResourceClaims...)
		if name == "b" {
			pod.Annotations = map[string]string{deviceconstraints.Annotation: `[{"matchAttribute": "` + pcieRootAttribute + `"}]`}
		}
		objs = append(objs, objects.Claim(name+"-gpu", testNamespace, objects.ClaimSpec("gpu", testDriver, 1, kind("gpu"))),
			objects.Claim(name+"-nic", testNamespace, objects.ClaimSpec("nic", testDriver, 1, kind("nic"))), pod)
		pods = append(pods, pod)
	}
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	_, devices, failures := runGangCycle(t, h, pods)
	if len(failures) != 0 {
		t.Fatalf("failures %v, want both pods placed", failures)
	}
	if want := map[string]string{"a": "node-2/gpu-0", "b": "node-1/gpu-0"}; !maps.Equal(devices, want) {
		t.Errorf("the gang's GPUs %v, want %v", devices, want)
	}
}
