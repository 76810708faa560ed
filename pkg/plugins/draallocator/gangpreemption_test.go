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
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// gangCycle is one pod's cycle in a pod-group cycle whose state is group,
// over the snapshot's nodes as they are now (the copies of a mutation
// session in one).
type gangCycle struct {
	*cycle
	nodes []fwk.NodeInfo
}

// preFilterInGroup runs PreFilter for pod in the pod-group cycle group.
func (h *harness) preFilterInGroup(pl *DRAAllocator, pod *v1.Pod, group *framework.CycleState) *gangCycle {
	h.t.Helper()
	c := &cycle{h: h, pl: pl, pod: pod, state: framework.NewCycleState()}
	c.state.(*framework.CycleState).SetPodGroupSchedulingCycle(group)
	nodes, err := h.snapshot.NodeInfos().List()
	if err != nil {
		h.t.Fatal(err)
	}
	if _, st := pl.PreFilter(h.ctx, c.state, pod, nodes); !st.IsSuccess() {
		h.t.Fatalf("PreFilter: %v", st)
	}
	return &gangCycle{cycle: c, nodes: nodes}
}

// fits reports whether Filter lets the pod on node.
func (c *gangCycle) fits(node string) bool {
	for _, ni := range c.nodes {
		if ni.Node().Name == node {
			return c.pl.Filter(c.h.ctx, c.state, c.pod, ni).IsSuccess()
		}
	}
	c.h.t.Fatalf("no node %s", node)
	return false
}

// gangPreemptionCluster is node-1 and node-2 with each device held by its
// own low-priority pod (low-<i> on node-1, far-<i> on node-2), and the
// preemptors want-1, want-2 and want-4.
func gangPreemptionCluster() ([]*v1.Node, []runtime.Object, []*v1.Pod) {
	nodes, objs := preemptionCluster()
	lows, held := fullNode1()
	objs = append(objs, held...)
	for i := range 4 {
		pod := boundPod(fmt.Sprintf("far-%d", i), "node-2", lowPriority, fmt.Sprintf("far-%d", i))
		lows = append(lows, pod)
		objs = append(objs, pod, heldClaim(fmt.Sprintf("far-%d", i), "node-2", []string{fmt.Sprintf("dev-%d", i)}, consumer(pod)))
	}
	return nodes, append(objs, wantPreemptors(1, 2, 4)...), lows
}

// TestAPodGroupPreemptionsReRunSeesTheRemovedPodsDevicesFree: DefaultPreemption's
// PodGroupPostFilter removes lower-priority pods from the snapshot in a
// mutation session and schedules the group again with fresh cycle states;
// only there do the devices of the removed pods count as free, exactly
// those, and a victim given back (AddPod) takes its device back.
func TestAPodGroupPreemptionsReRunSeesTheRemovedPodsDevicesFree(t *testing.T) {
	nodes, objs, lows := gangPreemptionCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	logger := klog.FromContext(h.ctx)
	want := func(n int) *v1.Pod { return h.pod(fmt.Sprintf("want-%d", n)) }

	if h.preFilterInGroup(pl, want(1), framework.NewCycleState()).fits("node-1") {
		t.Fatal("a preemptor of one device fits on node-1 outside a preemption: the case checks nothing")
	}

	if err := h.snapshot.StartMutations(); err != nil {
		t.Fatal(err)
	}
	for _, pod := range lows[:2] { // low-0 and low-1, on node-1
		if err := h.snapshot.RemovePod(logger, pod, pod.Spec.NodeName); err != nil {
			t.Fatal(err)
		}
	}
	rerun := framework.NewCycleState()
	two := h.preFilterInGroup(pl, want(2), rerun)
	if !two.fits("node-1") {
		t.Error("in the re-run, a preemptor of two devices does not fit on node-1, where two pods holding one device each were removed")
	}
	if two.fits("node-2") {
		t.Error("in the re-run, a preemptor of two devices fits on node-2, where nobody was removed")
	}
	if h.preFilterInGroup(pl, want(4), rerun).fits("node-1") {
		t.Error("in the re-run, a preemptor of four devices fits on node-1, where only two were freed")
	}

	// The reprieve: low-0 given back, then removed again.
	node1 := two.nodes[0]
	if st := pl.AddPod(h.ctx, two.state, two.pod, podInfo(t, lows[0]), node1); !st.IsSuccess() {
		t.Fatalf("AddPod: %v", st)
	}
	if two.fits("node-1") {
		t.Error("with low-0 given back, a preemptor of two devices still fits on node-1")
	}
	if st := pl.RemovePod(h.ctx, two.state, two.pod, podInfo(t, lows[0]), node1); !st.IsSuccess() {
		t.Fatalf("RemovePod: %v", st)
	}
	if !two.fits("node-1") {
		t.Error("with low-0 removed again, a preemptor of two devices does not fit on node-1")
	}
	if err := h.snapshot.EndMutations(); err != nil {
		t.Fatal(err)
	}

	if h.preFilterInGroup(pl, want(1), framework.NewCycleState()).fits("node-1") {
		t.Error("after the mutation session, a preemptor of one device fits on node-1: the removed pods' devices still count as free")
	}
}

// TestAPodDeletedSinceItWasSeenIsNotTakenForARemovedOne: a pod the
// snapshot lost because it was deleted is not a victim whose devices a
// re-run may count: the tracker frees them when its claim goes.
func TestAPodDeletedSinceItWasSeenIsNotTakenForARemovedOne(t *testing.T) {
	nodes, objs, lows := gangPreemptionCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	seen := make(seenNodeInfos)
	infos, err := h.snapshot.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	for _, ni := range infos {
		seen[ni.Node().Name] = ni
	}
	copies := make([]fwk.NodeInfo, 0, len(infos))
	logger := klog.FromContext(h.ctx)
	for _, ni := range infos {
		c := ni.Snapshot()
		for _, pod := range lows[:2] {
			if pod.Spec.NodeName == ni.Node().Name {
				if err := c.RemovePod(logger, pod); err != nil {
					t.Fatal(err)
				}
			}
		}
		copies = append(copies, c)
	}
	if !replacedEvery(seen, copies) {
		t.Fatal("copies of every node are not recognized as a mutation session")
	}
	if replacedEvery(seen, infos) {
		t.Error("the NodeInfos seen are taken for a mutation session")
	}
	removedNames := func(infos []fwk.PodInfo) []string {
		var pods []*v1.Pod
		for _, pi := range infos {
			pods = append(pods, pi.GetPod())
		}
		return slices.Sorted(slices.Values(podNames(pods)))
	}
	if got := removedNames(pl.removedPods(seen, copies)); !slices.Equal(got, []string{"low-0", "low-1"}) {
		t.Errorf("removed pods %v, want low-0 and low-1", got)
	}
	h.deletePod(lows[1])
	h.eventually("the informer to lose low-1", func() bool { return !pl.stillRunsOn(lows[1], "node-1") })
	if got := removedNames(pl.removedPods(seen, copies)); !slices.Equal(got, []string{"low-0"}) {
		t.Errorf("removed pods %v once low-1 is deleted, want low-0 alone", got)
	}
}

func TestTheReRunRanksNodesAndPlacementsByTheVictimsDevicesTheyNeed(t *testing.T) {
	victim := func(devices ...string) deviceNames { return devices }
	for _, tc := range []struct {
		name    string
		victims deviceNames
		devices []string
		want    int64
	}{
		{"devices no victim holds score the maximum", victim("dev-0"), []string{"dev-1", "dev-2"}, fwk.MaxScore},
		{"half of them a victim's score half", victim("dev-0"), []string{"dev-0", "dev-1"}, fwk.MaxScore / 2},
		{"all of them victims' score 0", victim("dev-0", "dev-1"), []string{"dev-0", "dev-1"}, 0},
		{"no devices at all score the maximum", victim("dev-0"), nil, fwk.MaxScore},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &gangPreemption{victimDevices: tc.victims.ids()}
			var results []resourceapi.AllocationResult
			for _, d := range tc.devices {
				results = append(results, *allocationOf("node-1", d))
			}
			if got := g.victimScore(results); got != tc.want {
				t.Errorf("victimScore(%v) = %d, want %d", tc.devices, got, tc.want)
			}
		})
	}
}

// deviceNames name devices of testDriver's pool node-1.
type deviceNames []string

func (ids deviceNames) ids() map[structured.DeviceID]bool {
	out := map[structured.DeviceID]bool{}
	for _, d := range ids {
		out[structured.MakeDeviceID(testDriver, "node-1", d)] = true
	}
	return out
}

func TestAReprieveOnANodeFreesOnlyThatNodesVictimsDevicesNotGivenBack(t *testing.T) {
	pod := func(name, node string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name)}, Spec: v1.PodSpec{NodeName: node}}
	}
	a, b, c, shared := pod("a", "n1"), pod("b", "n1"), pod("c", "n2"), pod("s", "n2")
	alloc := func(name string) *resourceapi.AllocationResult {
		return &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Device: name}}}}
	}
	ofA, ofB, ofC, ofAS, releasing := alloc("a"), alloc("b"), alloc("c"), alloc("a+s"), alloc("releasing")
	g := &gangPreemption{
		removed:   map[types.UID]*v1.Pod{a.UID: a, b.UID: b, c.UID: c, shared.UID: shared},
		releases:  []eviction.Release{{Allocation: ofA, Needs: []types.UID{"a"}}, {Allocation: ofB, Needs: []types.UID{"b"}}, {Allocation: ofC, Needs: []types.UID{"c"}}, {Allocation: ofAS, Needs: []types.UID{"a", "s"}}},
		releasing: []*resourceapi.AllocationResult{releasing},
	}
	g.indexReleases()
	none := func(types.UID) bool { return false }
	backA := func(uid types.UID) bool { return uid == "a" }
	for _, tc := range []struct {
		name      string
		node      string
		givenBack func(types.UID) bool
		want      []*resourceapi.AllocationResult
	}{
		{"a node's victims free their claims there, one two nodes' pods share included", "n1", none, []*resourceapi.AllocationResult{ofA, ofB, ofAS, releasing}},
		{"a pod given back frees nothing it needs", "n1", backA, []*resourceapi.AllocationResult{ofB, releasing}},
		{"the other node's share goes with its pod given back", "n2", backA, []*resourceapi.AllocationResult{ofC, releasing}},
		{"a node without victims frees only what is being released", "n3", none, []*resourceapi.AllocationResult{releasing}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := g.freedOn(tc.node, tc.givenBack); !slices.Equal(got, tc.want) {
				t.Errorf("freed %v, want %v", got, tc.want)
			}
		})
	}
}
