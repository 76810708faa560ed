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
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// placementOf is the placement name over the harness's nodes of those
// names: the snapshot's own NodeInfos, as a generator must give them.
func (h *harness) placementOf(name string, nodes ...string) *fwk.Placement {
	h.t.Helper()
	p := &fwk.Placement{Name: name}
	for _, n := range nodes {
		info, err := h.snapshot.NodeInfos().Get(n)
		if err != nil {
			h.t.Fatal(err)
		}
		p.Nodes = append(p.Nodes, info)
	}
	return p
}

// trial is one placement tried in a pod-group cycle.
type trial struct {
	// state is the placement cycle state the pods' cycles shared.
	state *framework.CycleState
	// cycles are the pods' cycles, in order; devices and failures as
	// runGangCycle's.
	cycles   []*cycle
	devices  map[string]string
	failures map[string]string
}

// tryPlacement runs pods through placement as kube-scheduler's pod-group
// cycle does with topology-aware scheduling: the snapshot restricted to
// the placement's nodes, a fresh placement cycle state under group, each
// pod through PreFilter, Filter on the placement's nodes and a trial
// Reserve on the first that passed; then every reservation reverted, last
// first, and the restriction lifted.
func (h *harness) tryPlacement(pl *DRAAllocator, group fwk.PodGroupCycleState, placement *fwk.Placement, pods []*v1.Pod) *trial {
	h.t.Helper()
	if err := h.snapshot.AssumePlacement(placement); err != nil {
		h.t.Fatal(err)
	}
	defer h.snapshot.ForgetPlacement()
	nodes, err := h.snapshot.ListNodesInPlacement()
	if err != nil {
		h.t.Fatal(err)
	}
	tr := &trial{state: framework.NewCycleState(), devices: map[string]string{}, failures: map[string]string{}}
	tr.state.SetPodGroupSchedulingCycle(group)
	var reserved []*cycle
	for _, pod := range pods {
		c := &cycle{h: h, pl: pl, pod: pod, state: framework.NewCycleState()}
		c.state.(*framework.CycleState).SetPodGroupSchedulingCycle(group)
		c.state.(*framework.CycleState).SetPlacementCycleState(tr.state)
		tr.cycles = append(tr.cycles, c)
		if _, st := pl.PreFilter(h.ctx, c.state, pod, h.nodes); !st.IsSuccess() {
			tr.failures[pod.Name] = st.Message()
			continue
		}
		for _, node := range nodes {
			if st := pl.Filter(h.ctx, c.state, pod, node); st.IsSuccess() {
				c.feasible = append(c.feasible, node.Node().Name)
			}
		}
		if len(c.feasible) == 0 {
			tr.failures[pod.Name] = "fits on no node"
			continue
		}
		if st := c.reserve(); !st.IsSuccess() {
			h.t.Fatalf("Reserve of %s: %v", pod.Name, st)
		}
		reserved = append(reserved, c)
		pending := h.manager.ResourceClaims().GetPendingAllocation(h.claim(testNamespace, pod.Name+"-gpu").UID)
		if pending == nil {
			h.t.Fatalf("Reserve of %s left no pending allocation", pod.Name)
		}
		r := pending.Devices.Results[0]
		tr.devices[pod.Name] = r.Pool + "/" + r.Device
	}
	for _, c := range slices.Backward(reserved) {
		c.unreserve()
	}
	return tr
}

// plannedNodes returns the nodes the placement's plan puts pods on.
func (tr *trial) plannedNodes(t *testing.T) []string {
	t.Helper()
	plan, err := stateAs[*gangPlan](tr.state.Read(gangPlanKey))
	if err != nil {
		t.Fatalf("placement state holds no plan: %v", err)
	}
	var nodes []string
	for _, n := range plan.planned {
		if !slices.Contains(nodes, n) {
			nodes = append(nodes, n)
		}
	}
	slices.Sort(nodes)
	return nodes
}

// rackCluster is two racks of one node each: rack-1's node has one GPU
// that is a whole device or two halves, rack-2's one whole GPU only; and
// a gang of two pods each preferring a whole GPU and accepting a half.
func rackCluster() ([]*v1.Node, []runtime.Object) {
	nodes := []*v1.Node{
		objects.MakeNode("rack-1-node").Label("rack", "rack-1").Obj(),
		objects.MakeNode("rack-2-node").Label("rack", "rack-2").Obj(),
	}
	objs := partitionedGPUs([]string{"rack-1-node"}, 1)
	objs = append(objs, objects.MakeSlice("rack-2-node", testDriver, "rack-2-node").Device("gpu-0-whole", nil).Attribute("size", "whole").Obj())
	gang := gangOf(2, 2)
	gang[0] = topologyGroup("rack")
	return nodes, append(objs, gang...)
}

func TestAGangIsPlannedInEachPlacementOverThePlacementsNodesOnly(t *testing.T) {
	withPodGroups(t, false)
	nodes, objs := rackCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	pods := []*v1.Pod{gangPod("pod-0"), gangPod("pod-1")}
	group := framework.NewCycleState()

	rack2 := h.tryPlacement(pl, group, h.placementOf("rack-2", "rack-2-node"), pods)
	want := "pod group test/gang in rack=rack-2: the devices of only 1 of its pods fit together (rack-2-node 1), it needs 2"
	for _, p := range pods {
		if rack2.failures[p.Name] != want {
			t.Errorf("rack-2: %s: %q, want %q", p.Name, rack2.failures[p.Name], want)
		}
	}
	if got := rack2.plannedNodes(t); !slices.Equal(got, []string{"rack-2-node"}) {
		t.Errorf("rack-2's plan puts pods on %v, want rack-2-node only", got)
	}

	rack1 := h.tryPlacement(pl, group, h.placementOf("rack-1", "rack-1-node"), pods)
	if len(rack1.failures) != 0 {
		t.Fatalf("rack-1: pods failed: %v", rack1.failures)
	}
	for _, p := range pods {
		if d := rack1.devices[p.Name]; d != "rack-1-node/gpu-0-half-0" && d != "rack-1-node/gpu-0-half-1" {
			t.Errorf("rack-1: %s got %q, want a half of rack-1-node's GPU", p.Name, d)
		}
	}
	if rack1.devices["pod-0"] == rack1.devices["pod-1"] {
		t.Errorf("rack-1: both pods got %s", rack1.devices["pod-0"])
	}
	// Each placement keeps its own plan: rack-2's is untouched by rack-1's.
	if got := rack2.plannedNodes(t); !slices.Equal(got, []string{"rack-2-node"}) {
		t.Errorf("after rack-1, rack-2's plan puts pods on %v", got)
	}
	if _, err := group.Read(gangPlanKey); err == nil {
		t.Errorf("a plan was kept in the pod-group cycle state, which every placement shares")
	}
}

// TestTheCommitReservesTheWinningPlacementsDevicesOnly: kube-scheduler
// tries every placement and reverts its reservations, then reserves the
// winner's pods again, with their states from that placement, outside the
// pod-group cycle. The devices in flight are then the winner's, and
// nothing of the placements tried stays behind.
func TestTheCommitReservesTheWinningPlacementsDevicesOnly(t *testing.T) {
	for _, winner := range []int{0, 1} {
		t.Run(fmt.Sprintf("placement %d of 2 wins", winner+1), func(t *testing.T) {
			withPodGroups(t, false)
			nodes := []*v1.Node{objects.MakeNode("rack-1-node").Obj(), objects.MakeNode("rack-2-node").Obj()}
			objs := append(partitionedGPUs([]string{"rack-1-node", "rack-2-node"}, 1), gangOf(2, 2)...)
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			pl := h.plugins[0]
			pods := []*v1.Pod{gangPod("pod-0"), gangPod("pod-1")}
			group := framework.NewCycleState()
			trials := []*trial{
				h.tryPlacement(pl, group, h.placementOf("rack-1", "rack-1-node"), pods),
				h.tryPlacement(pl, group, h.placementOf("rack-2", "rack-2-node"), pods),
			}
			for i, tr := range trials {
				if len(tr.failures) != 0 || len(tr.devices) != 2 {
					t.Fatalf("placement %d: failures %v, devices %v", i+1, tr.failures, tr.devices)
				}
			}
			for _, p := range pods {
				if a := h.manager.ResourceClaims().GetPendingAllocation(h.claim(testNamespace, p.Name+"-gpu").UID); a != nil {
					t.Fatalf("%s's claim in flight after the placements were reverted", p.Name)
				}
			}

			won := trials[winner]
			for _, c := range won.cycles {
				c.state.(*framework.CycleState).SetPodGroupSchedulingCycle(nil)
				if st := c.reserve(); !st.IsSuccess() {
					t.Fatalf("commit Reserve of %s: %v", c.pod.Name, st)
				}
			}
			for _, p := range pods {
				a := h.manager.ResourceClaims().GetPendingAllocation(h.claim(testNamespace, p.Name+"-gpu").UID)
				if a == nil {
					t.Fatalf("%s's claim not in flight after the commit", p.Name)
				}
				r := a.Devices.Results[0]
				if got := r.Pool + "/" + r.Device; got != won.devices[p.Name] {
					t.Errorf("%s committed with %s, want the winning placement's %s", p.Name, got, won.devices[p.Name])
				}
			}
			// The binding cycle fails (Permit times out): everything is
			// released again.
			for _, c := range slices.Backward(won.cycles) {
				c.unreserve()
			}
			for _, p := range pods {
				if a := h.manager.ResourceClaims().GetPendingAllocation(h.claim(testNamespace, p.Name+"-gpu").UID); a != nil {
					t.Errorf("%s's claim still in flight after the commit was undone", p.Name)
				}
			}
		})
	}
}

// withTopology turns topology-aware workload scheduling on, as
// withPodGroups does GenericWorkload, before the plugins are made.
func withTopology(t *testing.T) {
	withPodGroups(t, false)
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.TopologyAwareWorkloadScheduling, true)
}

func TestEachDomainTriedIsExplainedAndTheChosenOneNamed(t *testing.T) {
	t.Run("a group that fits in no domain is told, on each pod, what the device plan found in each", func(t *testing.T) {
		withTopology(t)
		nodes, objs := rackCluster()
		objs = append(objs, wholeElseHalf("pod-2"), gangPod("pod-2"))
		var pg *schedulingapi.PodGroup
		for _, o := range objs {
			if g, ok := o.(*schedulingapi.PodGroup); ok {
				pg = g
			}
		}
		pg.Spec.SchedulingPolicy.Gang.MinCount = 3
		h := newHarness(t, nil, []string{"default"}, nodes, objs...)
		pl := h.plugins[0]
		pods := []*v1.Pod{gangPod("pod-0"), gangPod("pod-1"), gangPod("pod-2")}
		group := framework.NewCycleState()
		for _, p := range []*fwk.Placement{h.placementOf("rack-1", "rack-1-node"), h.placementOf("rack-2", "rack-2-node")} {
			if tr := h.tryPlacement(pl, group, p, pods); len(tr.failures) != 3 {
				t.Fatalf("%s: failures %v, want all three pods", p.Name, tr.failures)
			}
		}
		info := &framework.PodGroupInfo{Namespace: testNamespace, Name: pg.Name, PodGroup: pg, UnscheduledPods: pods}
		if _, st := pl.PodGroupPostFilter(h.ctx, group, info, nil); st.Code() != fwk.Unschedulable {
			t.Fatalf("PodGroupPostFilter: %v, want Unschedulable", st)
		}
		want := "Warning FailedTopologyDomains domains tried by the device plan of pod group test/gang: " +
			"rack=rack-1: the devices of 2 of its pods fit together (rack-1-node 2), it needs 3; " +
			"rack=rack-2: the devices of 1 of its pods fit together (rack-2-node 1), it needs 3"
		got := h.events("FailedTopologyDomains")
		if len(got) != 3 || got[0] != want {
			t.Errorf("events %q\nwant three times %q", got, want)
		}
	})
	t.Run("each pod of a placed group is told its domain", func(t *testing.T) {
		withTopology(t)
		nodes, objs := rackCluster()
		h := newHarness(t, nil, []string{"default"}, nodes, objs...)
		pl := h.plugins[0]
		pods := []*v1.Pod{gangPod("pod-0"), gangPod("pod-1")}
		tr := h.tryPlacement(pl, framework.NewCycleState(), h.placementOf("rack-1", "rack-1-node"), pods)
		if len(tr.failures) != 0 {
			t.Fatalf("failures %v", tr.failures)
		}
		if got := h.events("TopologyDomain"); len(got) != 0 {
			t.Errorf("events before the commit: %q", got)
		}
		for _, c := range tr.cycles {
			c.state.(*framework.CycleState).SetPodGroupSchedulingCycle(nil)
			if st := c.reserve(); !st.IsSuccess() {
				t.Fatalf("commit Reserve of %s: %v", c.pod.Name, st)
			}
		}
		want := "Normal TopologyDomain pod group test/gang placed in rack=rack-1: the devices of 2 of its pods fit together (rack-1-node 2), it needs 2"
		if got := h.events("TopologyDomain"); len(got) != 2 || got[0] != want || got[1] != want {
			t.Errorf("events %q\nwant twice %q", got, want)
		}
	})
}
