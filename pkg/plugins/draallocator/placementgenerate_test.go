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
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// topologyGroup is gangGroup with a topology constraint on key ("" for
// none).
func topologyGroup(key string) *schedulingapi.PodGroup {
	pg := gangGroup(2)
	if key != "" {
		pg.Spec.SchedulingConstraints = &schedulingapi.PodGroupSchedulingConstraints{Topology: []schedulingapi.TopologyConstraint{{Key: key}}}
	}
	return pg
}

// describePlacements reads generated placements as "name: node node",
// nodes by name.
func describePlacements(got *fwk.GeneratePlacementsResult) []string {
	var out []string
	for _, p := range got.Placements {
		var nodes []string
		for _, n := range p.Nodes {
			nodes = append(nodes, n.Node().Name)
		}
		slices.Sort(nodes)
		out = append(out, fmt.Sprintf("%s: %s", p.Name, strings.Join(nodes, " ")))
	}
	return out
}

// placementNames are the generated placements' names.
func placementNames(got *fwk.GeneratePlacementsResult) []string {
	var out []string
	for _, p := range got.Placements {
		out = append(out, p.Name)
	}
	return out
}

func TestPlacementsAreGeneratedAsUpstreamsForANodeLabel(t *testing.T) {
	// Racks b, a and c (names out of order), and a node without a rack.
	nodes := []*v1.Node{
		objects.MakeNode("node-b1").Label("rack", "b").Obj(),
		objects.MakeNode("node-a1").Label("rack", "a").Obj(),
		objects.MakeNode("node-a2").Label("rack", "a").Obj(),
		objects.MakeNode("node-c1").Label("rack", "c").Obj(),
		objects.MakeNode("node-none").Obj(),
	}
	scheduledOn := func(node string) *v1.Pod {
		pod := gangPod("placed-" + node)
		pod.Spec.NodeName = node
		return pod
	}
	for _, tc := range []struct {
		name    string
		key     string
		placed  []*v1.Pod
		want    []string // "name: nodes"
		wantErr string
		code    fwk.Code
	}{
		{name: "a group without a constraint gets its parent placement whole", want: []string{": node-a1 node-a2 node-b1 node-c1 node-none"}},
		{name: "one placement per value of the label, in name order, nodes without it left out", key: "rack",
			want: []string{"a: node-a1 node-a2", "b: node-b1", "c: node-c1"}},
		{name: "a group with a scheduled pod is pinned to that pod's domain", key: "rack", placed: []*v1.Pod{scheduledOn("node-a2")},
			want: []string{"a: node-a1 node-a2"}},
		{name: "a key no node carries leaves the group pending, naming the key", key: "zone", code: fwk.Unschedulable,
			wantErr: `pod group test/gang: no node carries its topology key "zone" as a label`},
		{name: "scheduled pods in two domains are an error", key: "rack", placed: []*v1.Pod{scheduledOn("node-a1"), scheduledOn("node-b1")},
			code: fwk.Error, wantErr: "its pods are in two domains"},
		{name: "a scheduled pod on a node without the label is an error", key: "rack", placed: []*v1.Pod{scheduledOn("node-none")},
			code: fwk.Error, wantErr: `node node-none of pod test/placed-node-none has no label "rack"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPodGroups(t, false)
			pg := topologyGroup(tc.key)
			objs := []runtime.Object{pg}
			for _, p := range tc.placed {
				objs = append(objs, p)
			}
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			parent := &fwk.Placement{Nodes: h.nodes}
			info := &framework.PodGroupInfo{Namespace: testNamespace, Name: pg.Name, PodGroup: pg}
			got, st := h.plugins[0].GeneratePlacements(h.ctx, framework.NewCycleState(), info, parent)
			if tc.wantErr != "" {
				if st.Code() != tc.code || !strings.Contains(st.Message(), tc.wantErr) {
					t.Fatalf("status %v, want %v with %q", st, tc.code, tc.wantErr)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("status %v", st)
			}
			placements := describePlacements(got)
			if !slices.Equal(placements, tc.want) {
				t.Errorf("placements\n%s\nwant\n%s", strings.Join(placements, "\n"), strings.Join(tc.want, "\n"))
			}
			// The snapshot's own NodeInfos, as AssumePlacement requires.
			for _, p := range got.Placements {
				for _, n := range p.Nodes {
					if !slices.Contains(h.nodes, n) {
						t.Errorf("placement %s holds a NodeInfo of %s that is not the snapshot's", p.Name, n.Node().Name)
					}
				}
			}
		})
	}
}

// nvlinkNodes are node-a with GPUs 0 and 1 in NVLink domain nvl-1 and 2
// and 3 in nvl-2, and node-b with two GPUs in nvl-2: domains published
// only as a device attribute, no node label.
func nvlinkNodes() ([]*v1.Node, []runtime.Object) {
	a := objects.MakeSlice("node-a", testDriver, "node-a")
	for i, domain := range []string{"nvl-1", "nvl-1", "nvl-2", "nvl-2"} {
		a.Device(fmt.Sprintf("gpu-%d", i), nil).Attribute("nvlinkDomain", domain)
	}
	b := objects.MakeSlice("node-b", testDriver, "node-b").Device("gpu-0", nil).Attribute("nvlinkDomain", "nvl-2").Device("gpu-1", nil).Attribute("nvlinkDomain", "nvl-2")
	return []*v1.Node{objects.MakeNode("node-a").Obj(), objects.MakeNode("node-b").Obj()},
		[]runtime.Object{objects.DeviceClass(testDriver, testDriver), a.Obj(), b.Obj()}
}

const nvlinkKey = testDriver + "/nvlinkDomain"

func TestAGangIsPlacedInOneDomainOfADeviceAttribute(t *testing.T) {
	withPodGroups(t, false)
	nodes, objs := nvlinkNodes()
	pg := topologyGroup(nvlinkKey)
	objs = append(objs, pg)
	objs = append(objs, gangPodsOf([]string{"pod-0", "pod-1"}, 2)...)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	group := framework.NewCycleState()
	info := &framework.PodGroupInfo{Namespace: testNamespace, Name: pg.Name, PodGroup: pg}
	got, st := pl.GeneratePlacements(h.ctx, group, info, &fwk.Placement{Nodes: h.nodes})
	if !st.IsSuccess() {
		t.Fatalf("GeneratePlacements: %v", st)
	}
	names := describePlacements(got)
	if want := []string{"nvl-1: node-a", "nvl-2: node-a node-b"}; !slices.Equal(names, want) {
		t.Fatalf("placements %q, want %q (a node in every domain one of its devices is in)", names, want)
	}

	pods := []*v1.Pod{gangPod("pod-0"), gangPod("pod-1")}
	nvl1 := h.tryPlacement(pl, group, got.Placements[0], pods)
	want := "pod group test/gang in " + nvlinkKey + "=nvl-1: the devices of only 1 of its pods fit together (node-a 1), it needs 2"
	if nvl1.failures["pod-0"] != want {
		t.Errorf("nvl-1: pod-0: %q, want %q", nvl1.failures["pod-0"], want)
	}
	nvl2 := h.tryPlacement(pl, group, got.Placements[1], pods)
	if len(nvl2.failures) != 0 {
		t.Fatalf("nvl-2: failures %v", nvl2.failures)
	}
	inNVL2 := []string{"node-a/gpu-2", "node-a/gpu-3", "node-b/gpu-0", "node-b/gpu-1"}
	for _, p := range pods {
		if d := nvl2.devices[p.Name]; !slices.Contains(inNVL2, d) {
			t.Errorf("nvl-2: %s got %s, a device outside the domain", p.Name, d)
		}
	}
}

func TestDeviceAttributeDomainsArePinnedAndMissingKeysNamed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		key     string
		placed  bool
		want    []string
		wantErr string
	}{
		{name: "a group whose scheduled pod has a device of nvl-1 stays in nvl-1", key: nvlinkKey, placed: true, want: []string{"nvl-1"}},
		{name: "a key neither a label nor an attribute leaves the group pending, naming it", key: testDriver + "/clique",
			wantErr: `pod group test/gang: no node carries its topology key "gpu.example.com/clique" as a label, and no device as an attribute`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPodGroups(t, false)
			nodes, objs := nvlinkNodes()
			pg := topologyGroup(tc.key)
			objs = append(objs, pg)
			if tc.placed {
				claim := objects.Claim("placed-gpu", testNamespace, objects.ClaimSpec("gpu", testDriver, 1))
				claim.Status.Allocation = allocationOf("node-a", "gpu-0")
				pod := gangPod("placed")
				pod.Spec.NodeName = "node-a"
				objs = append(objs, claim, pod)
			}
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			info := &framework.PodGroupInfo{Namespace: testNamespace, Name: pg.Name, PodGroup: pg}
			got, st := h.plugins[0].GeneratePlacements(h.ctx, framework.NewCycleState(), info, &fwk.Placement{Nodes: h.nodes})
			if tc.wantErr != "" {
				if st.Code() != fwk.Unschedulable || st.Message() != tc.wantErr {
					t.Fatalf("status %v, want Unschedulable %q", st, tc.wantErr)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("status %v", st)
			}
			if names := placementNames(got); !slices.Equal(names, tc.want) {
				t.Errorf("placements %v, want %v", names, tc.want)
			}
		})
	}
}

// TestDomainsOfEveryNodeAreToldApartByTheOrderTheyAreTriedIn: when every
// node has GPUs of both domains, both placements hold every node and the
// snapshot names neither; each pod still gets devices of the domain
// being tried.
func TestDomainsOfEveryNodeAreToldApartByTheOrderTheyAreTriedIn(t *testing.T) {
	withPodGroups(t, false)
	var nodes []*v1.Node
	objs := []runtime.Object{objects.DeviceClass(testDriver, testDriver)}
	for _, name := range []string{"node-a", "node-b"} {
		slice := objects.MakeSlice(name, testDriver, name)
		for i, domain := range []string{"nvl-1", "nvl-1", "nvl-2", "nvl-2"} {
			slice.Device(fmt.Sprintf("gpu-%d", i), nil).Attribute("nvlinkDomain", domain)
		}
		nodes = append(nodes, objects.MakeNode(name).Obj())
		objs = append(objs, slice.Obj())
	}
	pg := topologyGroup(nvlinkKey)
	objs = append(objs, pg)
	objs = append(objs, gangPodsOf([]string{"pod-0", "pod-1"}, 2)...)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	group := framework.NewCycleState()
	info := &framework.PodGroupInfo{Namespace: testNamespace, Name: pg.Name, PodGroup: pg}
	got, st := pl.GeneratePlacements(h.ctx, group, info, &fwk.Placement{Nodes: h.nodes})
	if !st.IsSuccess() || len(got.Placements) != 2 {
		t.Fatalf("GeneratePlacements: %v, %v", got, st)
	}
	pods := []*v1.Pod{gangPod("pod-0"), gangPod("pod-1")}
	for _, p := range got.Placements {
		tr := h.tryPlacement(pl, group, p, pods)
		if len(tr.failures) != 0 {
			t.Fatalf("%s: failures %v", p.Name, tr.failures)
		}
		want := map[string][]string{"nvl-1": {"gpu-0", "gpu-1"}, "nvl-2": {"gpu-2", "gpu-3"}}[p.Name]
		for _, pod := range pods {
			d := tr.devices[pod.Name]
			if !slices.Contains(want, d[strings.Index(d, "/")+1:]) {
				t.Errorf("%s: %s got %s, outside the domain", p.Name, pod.Name, d)
			}
		}
	}
}

func TestDomainsTooSmallForTheGroupsDevicesAreDroppedBeforeAnyPodIsTried(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gpus    int64 // per pod
		want    []string
		wantErr string
	}{
		{name: "the rack whose GPUs are all held is dropped", gpus: 1, want: []string{"rack-2"}},
		{name: "no rack has the four GPUs two pods of two need: the group is told each rack's free devices", gpus: 2,
			wantErr: "pod group test/gang: no domain of rack has the 4 free devices its pods need at least (rack=rack-1: 0 free, rack=rack-2: 2 free)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPodGroups(t, false)
			nodes, objs := gpuNodes([]string{"rack-1-node", "rack-2-node"}, 2)
			nodes[0].Labels["rack"], nodes[1].Labels["rack"] = "rack-1", "rack-2"
			for i := range 2 {
				held := objects.Claim(fmt.Sprintf("held-%d", i), testNamespace, objects.ClaimSpec("gpu", testDriver, 1))
				held.Status.Allocation = allocationOf("rack-1-node", fmt.Sprintf("gpu-%d", i))
				objs = append(objs, held)
			}
			pg := topologyGroup("rack")
			objs = append(objs, pg)
			objs = append(objs, gangPodsOf([]string{"pod-0", "pod-1"}, tc.gpus)...)
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			info := &framework.PodGroupInfo{Namespace: testNamespace, Name: pg.Name, PodGroup: pg,
				UnscheduledPods: []*v1.Pod{gangPod("pod-0"), gangPod("pod-1")}}
			got, st := h.plugins[0].GeneratePlacements(h.ctx, framework.NewCycleState(), info, &fwk.Placement{Nodes: h.nodes})
			if tc.wantErr != "" {
				if st.Code() != fwk.Unschedulable || st.Message() != tc.wantErr {
					t.Fatalf("status %v\nwant Unschedulable %q", st, tc.wantErr)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("status %v", st)
			}
			if names := placementNames(got); !slices.Equal(names, tc.want) {
				t.Errorf("placements %v, want %v", names, tc.want)
			}
		})
	}
}

// TestDomainsAreCountedByTheDevicesTheGroupsClaimsSelect: the halves of
// GPUs whose other halves are held are free devices, but not for a gang
// of whole GPUs, and a GPU with a held half is no whole GPU to have.
func TestDomainsAreCountedByTheDevicesTheGroupsClaimsSelect(t *testing.T) {
	wholeGPU := func(pod string) *resourceapi.ResourceClaim {
		return objects.Claim(pod+"-gpu", testNamespace, objects.ClaimSpec("gpu", wholeClass, 1))
	}
	for _, tc := range []struct {
		name    string
		claim   func(pod string) *resourceapi.ResourceClaim
		want    []string
		wantErr string
	}{
		{name: "a gang of whole GPUs: rack-1, two free halves and no whole GPU, is dropped", claim: wholeGPU, want: []string{"rack-2"}},
		{name: "a gang that takes a whole GPU else a half: rack-1's halves may serve it", claim: wholeElseHalf, want: []string{"rack-1", "rack-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPodGroups(t, false)
			nodes := []*v1.Node{objects.MakeNode("rack-1-node").Label("rack", "rack-1").Obj(), objects.MakeNode("rack-2-node").Label("rack", "rack-2").Obj()}
			objs := partitionedGPUs([]string{"rack-1-node", "rack-2-node"}, 2)
			for g := range 2 {
				held := objects.Claim(fmt.Sprintf("held-%d", g), testNamespace, objects.ClaimSpec("gpu", halfClass, 1))
				held.Status.Allocation = allocationOf("rack-1-node", fmt.Sprintf("gpu-%d-half-0", g))
				objs = append(objs, held)
			}
			pg := topologyGroup("rack")
			objs = append(objs, pg)
			for _, name := range []string{"pod-0", "pod-1"} {
				objs = append(objs, tc.claim(name), gangPod(name))
			}
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			info := &framework.PodGroupInfo{Namespace: testNamespace, Name: pg.Name, PodGroup: pg,
				UnscheduledPods: []*v1.Pod{gangPod("pod-0"), gangPod("pod-1")}}
			got, st := h.plugins[0].GeneratePlacements(h.ctx, framework.NewCycleState(), info, &fwk.Placement{Nodes: h.nodes})
			if !st.IsSuccess() {
				t.Fatalf("status %v", st)
			}
			if names := placementNames(got); !slices.Equal(names, tc.want) {
				t.Errorf("placements %v, want %v", names, tc.want)
			}
		})
	}
}

func TestLeastDevicesIsWhatAClaimAsksForAtLeast(t *testing.T) {
	for _, tc := range []struct {
		name  string
		claim *resourceapi.ResourceClaim
		want  int
	}{
		{"a count of three", objects.Claim("c", testNamespace, objects.ClaimSpec("r", testDriver, 3)), 3},
		{"the smaller of two alternatives", wholeElseHalf("p"), 1},
	} {
		if got := leastDevices(tc.claim); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
