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
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// The preemption tests run on "node-1", with four devices dev-0..dev-3,
// and "node-2" with four more; a network-attached device "net-0" reaches
// both. Pods on node-1 hold devices through claims named after them.

const (
	lowPriority  = 100
	highPriority = 1000
)

// preemptionCluster is node-1 and node-2 with four devices each and the
// class of all of them.
func preemptionCluster() ([]*v1.Node, []runtime.Object) {
	node1 := objects.MakeSlice("node-1", testDriver, "node-1")
	node2 := objects.MakeSlice("node-2", testDriver, "node-2")
	for i := range 4 {
		node1.Device(fmt.Sprintf("dev-%d", i), nil)
		node2.Device(fmt.Sprintf("dev-%d", i), nil)
	}
	return []*v1.Node{objects.MakeNode("node-1").Obj(), objects.MakeNode("node-2").Obj()}, []runtime.Object{
		objects.DeviceClass(testDriver, testDriver), node1.Obj(), node2.Obj(),
	}
}

// networkDevice is the slice of "net-0", a device every node reaches.
func networkDevice() *resourceapi.ResourceSlice {
	net := objects.MakeSlice("net", testDriver, "").Device("net-0", nil).Obj()
	net.Spec.NodeName = nil
	net.Spec.AllNodes = ptr.To(true)
	net.Spec.Pool.Name = "net"
	return net
}

// boundPod is a pod on node with priority, using the named claims.
func boundPod(name, node string, priority int32, claims ...string) *v1.Pod {
	w := objects.MakePod(name, testNamespace)
	for i, c := range claims {
		w.Claim(fmt.Sprintf("c%d", i), c)
	}
	pod := w.Obj()
	pod.UID = types.UID("pod-" + name)
	pod.Spec.NodeName = node
	pod.Spec.Priority = ptr.To(priority)
	return pod
}

// preemptor is an unscheduled pod of highPriority asking for n devices.
func preemptor(n int64) (*v1.Pod, *resourceapi.ResourceClaim) {
	claim := objects.Claim("want", testNamespace, objects.ClaimSpec("dev", testDriver, n))
	pod := boundPod("preemptor", "", highPriority, "want")
	return pod, claim
}

// heldClaim is claim name, allocated the devices of pool, reserved for
// consumers (pods, or other references).
func heldClaim(name, pool string, devices []string, consumers ...resourceapi.ResourceClaimConsumerReference) *resourceapi.ResourceClaim {
	claim := objects.Claim(name, testNamespace, objects.ClaimSpec("dev", testDriver, int64(len(devices))))
	alloc := &resourceapi.AllocationResult{}
	for _, d := range devices {
		alloc.Devices.Results = append(alloc.Devices.Results, resourceapi.DeviceRequestAllocationResult{Request: "dev", Driver: testDriver, Pool: pool, Device: d})
	}
	if pool != "net" {
		alloc.NodeSelector = objects.NodeSelectorFor(pool)
	}
	claim.Status.Allocation = alloc
	claim.Status.ReservedFor = consumers
	return claim
}

// consumer is a pod's entry in reservedFor.
func consumer(pod *v1.Pod) resourceapi.ResourceClaimConsumerReference {
	return resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID}
}

// fullNode1 is node-1 with each device held by its own low-priority pod
// low-<i> through claim held-<i>.
func fullNode1() (pods []*v1.Pod, objs []runtime.Object) {
	for i := range 4 {
		pod := boundPod(fmt.Sprintf("low-%d", i), "node-1", lowPriority, fmt.Sprintf("held-%d", i))
		pods = append(pods, pod)
		objs = append(objs, pod, heldClaim(fmt.Sprintf("held-%d", i), "node-1", []string{fmt.Sprintf("dev-%d", i)}, consumer(pod)))
	}
	return pods, objs
}

// fullNode2 is node-2 with each device held by its own pod stay-<i> of
// highPriority through claim stay-<i>: pods no preemptor may evict.
func fullNode2() (objs []runtime.Object) {
	for i := range 4 {
		pod := boundPod(fmt.Sprintf("stay-%d", i), "node-2", highPriority, fmt.Sprintf("stay-%d", i))
		objs = append(objs, pod, heldClaim(fmt.Sprintf("stay-%d", i), "node-2", []string{fmt.Sprintf("dev-%d", i)}, consumer(pod)))
	}
	return objs
}

// node2Pods are sharedNode2's pods.
type node2Pods struct {
	shareLow, shareHigh, pairA, pairB, grouped, unreserved *v1.Pod
}

// sharedNode2 is node-2 with claims held in every way a dry run must
// weigh: dev-0 is shared by a low pod and a high pod; dev-1 by two low
// pods; dev-2 is reserved for a PodGroup; dev-3 is allocated, reserved
// for nobody, and used by a low pod. The network device is held by a low
// pod on node-2.
func sharedNode2() (node2Pods, []runtime.Object) {
	p := node2Pods{
		shareLow:   boundPod("share-low", "node-2", lowPriority, "shared-high"),
		shareHigh:  boundPod("share-high", "node-2", highPriority+1, "shared-high"),
		pairA:      boundPod("pair-a", "node-2", lowPriority, "shared-pair"),
		pairB:      boundPod("pair-b", "node-2", lowPriority, "shared-pair"),
		grouped:    boundPod("grouped", "node-2", lowPriority, "group-claim"),
		unreserved: boundPod("unreserved", "node-2", lowPriority, "unreserved", "net"),
	}
	return p, []runtime.Object{networkDevice(), p.shareLow, p.shareHigh, p.pairA, p.pairB, p.grouped, p.unreserved,
		heldClaim("shared-high", "node-2", []string{"dev-0"}, consumer(p.shareLow), consumer(p.shareHigh)),
		heldClaim("shared-pair", "node-2", []string{"dev-1"}, consumer(p.pairA), consumer(p.pairB)),
		heldClaim("group-claim", "node-2", []string{"dev-2"}, resourceapi.ResourceClaimConsumerReference{
			APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "train", UID: "podgroup-train"}),
		heldClaim("unreserved", "node-2", []string{"dev-3"}),
		heldClaim("net", "net", []string{"net-0"}, consumer(p.unreserved)),
	}
}

// wantPreemptors are preemptors "want-<n>" asking for n devices each,
// through claims of the same names.
func wantPreemptors(counts ...int64) []runtime.Object {
	var objs []runtime.Object
	for _, n := range counts {
		pod, claim := preemptor(n)
		claim.Name = fmt.Sprintf("want-%d", n)
		pod.Name, pod.UID = claim.Name, types.UID("pod-"+claim.Name)
		pod.Spec.ResourceClaims[0].ResourceClaimName = ptr.To(claim.Name)
		objs = append(objs, pod, claim)
	}
	return objs
}

// nodeInfo returns a copy of the harness's node, which a dry run may
// change.
func (h *harness) nodeInfo(name string) fwk.NodeInfo {
	h.t.Helper()
	for _, ni := range h.nodes {
		if ni.Node().Name == name {
			return ni.Snapshot()
		}
	}
	h.t.Fatalf("no node %s", name)
	return nil
}

// dryRun removes pods from a copy of the cycle state and of the node, as
// DefaultPreemption does, and returns Filter's answer there.
func (c *cycle) dryRun(node string, removed ...*v1.Pod) *fwk.Status {
	c.h.t.Helper()
	return c.filterChanged(node, nil, removed...)
}

// filterChanged removes pods from a copy of the cycle state and of the
// node, as DefaultPreemption does, then adds the nominated pods, as
// kube-scheduler does before Filter, and returns Filter's answer there.
func (c *cycle) filterChanged(node string, nominated []*v1.Pod, removed ...*v1.Pod) *fwk.Status {
	c.h.t.Helper()
	cs := c.state.Clone()
	ni := c.h.nodeInfo(node)
	logger := klog.FromContext(c.h.ctx)
	for _, pod := range removed {
		if pod.Spec.NodeName == node {
			if err := ni.RemovePod(logger, pod); err != nil {
				c.h.t.Fatal(err)
			}
		}
		if st := c.pl.RemovePod(c.h.ctx, cs, c.pod, podInfo(c.h.t, pod), ni); !st.IsSuccess() {
			c.h.t.Fatalf("RemovePod %s: %v", pod.Name, st)
		}
	}
	for _, pod := range nominated {
		pi := podInfo(c.h.t, pod)
		ni.AddPodInfo(pi)
		if st := c.pl.AddPod(c.h.ctx, cs, c.pod, pi, ni); !st.IsSuccess() {
			c.h.t.Fatalf("AddPod %s: %v", pod.Name, st)
		}
	}
	return c.pl.Filter(c.h.ctx, cs, c.pod, ni)
}

func podInfo(t testing.TB, pod *v1.Pod) fwk.PodInfo {
	t.Helper()
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		t.Fatal(err)
	}
	return pi
}

func TestADryRunFreesExactlyTheClaimsThatOnlyItsRemovedPodsHold(t *testing.T) {
	nodes, objs := preemptionCluster()
	low, held := fullNode1()
	objs = append(objs, held...)
	n2, node2Objs := sharedNode2()
	shareLow, pairA, pairB, grouped, unreserved := n2.shareLow, n2.pairA, n2.pairB, n2.grouped, n2.unreserved
	objs = append(objs, node2Objs...)
	objs = append(objs, wantPreemptors(1, 2, 4)...)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	want := func(n int) *v1.Pod {
		pod, err := h.client.CoreV1().Pods(testNamespace).Get(h.ctx, fmt.Sprintf("want-%d", n), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return pod
	}
	for _, tc := range []struct {
		name    string
		devices int
		node    string
		removed []*v1.Pod
		fits    bool
	}{
		{"removing nobody frees nothing", 1, "node-1", nil, false},
		{"removing the holder of one device frees it", 1, "node-1", low[:1], true},
		{"one freed device is not two", 2, "node-1", low[2:3], false},
		{"removing two holders frees two devices", 2, "node-1", low[1:3], true},
		{"removing every holder frees the whole node", 4, "node-1", low, true},
		{"pods removed on another node free nothing here", 1, "node-1", []*v1.Pod{pairA, pairB, shareLow, unreserved}, false},
		{"a claim shared with a pod that stays frees nothing", 1, "node-2", []*v1.Pod{shareLow, pairA}, false},
		{"a claim all of whose pods are removed is freed", 1, "node-2", []*v1.Pod{pairA, pairB}, true},
		{"a claim reserved for a PodGroup is never freed", 1, "node-2", []*v1.Pod{grouped}, false},
		{"an allocated claim reserved for nobody is freed with the pod that uses it", 1, "node-2", []*v1.Pod{unreserved}, true},
		{"a network-attached device does not count as freed on the node", 2, "node-2", []*v1.Pod{unreserved}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, st := h.filter(pl, want(tc.devices))
			if st != nil {
				t.Fatalf("PreFilter: %v", st)
			}
			if got := c.dryRun(tc.node, tc.removed...).IsSuccess(); got != tc.fits {
				t.Errorf("fits after removing %v: %v, want %v", podNames(tc.removed), got, tc.fits)
			}
		})
	}
}

// TestADryRunExplainsItsFirstAnswerButNotItsReprieves: DefaultPreemption
// reports the first Filter of a dry run on a node (every lower-priority
// pod removed) when preemption fails there, but reads the answers of its
// reprieves (a removed pod given back) only as fits or not: those are not
// explained.
func TestADryRunExplainsItsFirstAnswerButNotItsReprieves(t *testing.T) {
	nodes, objs := preemptionCluster()
	low, held := fullNode1()
	objs = append(objs, held...)
	objs = append(objs, wantPreemptors(4, 5)...)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	cycleFor := func(n int) *cycle {
		pod, err := h.client.CoreV1().Pods(testNamespace).Get(h.ctx, fmt.Sprintf("want-%d", n), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c, st := h.filter(pl, pod)
		if st != nil {
			t.Fatalf("PreFilter: %v", st)
		}
		return c
	}

	first := cycleFor(5).dryRun("node-1", low...)
	if first.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(first.Message(), "dev") || first.Message() == reprieveReason {
		t.Errorf("5 devices with every pod removed: %v %q, want UnschedulableAndUnresolvable explaining the devices", first.Code(), first.Message())
	}
	c := cycleFor(4)
	if st := c.dryRun("node-1", low...); !st.IsSuccess() {
		t.Fatalf("4 devices with every pod removed: %v, want success", st)
	}
	reprieve := c.filterChanged("node-1", low[:1], low...)
	if reprieve.Code() != fwk.UnschedulableAndUnresolvable || reprieve.Message() != reprieveReason {
		t.Errorf("4 devices with %s given back: %v %q, want UnschedulableAndUnresolvable %q", low[0].Name, reprieve.Code(), reprieve.Message(), reprieveReason)
	}
}

// TestADryRunGivingVictimsBackAnswersAsOneThatRemovedOnlyTheRest:
// DefaultPreemption removes every candidate victim from a node, then gives
// them back one at a time, keeping those that leave room; each answer
// after a victim is given back must be the one a dry run removing only
// the victims still out gets. Claims are shared by victims, by a victim
// and a pod that stays, reserved for a PodGroup or for nobody.
func TestADryRunGivingVictimsBackAnswersAsOneThatRemovedOnlyTheRest(t *testing.T) {
	nodes, objs := preemptionCluster()
	low, held := fullNode1()
	objs = append(objs, held...)
	n2, node2Objs := sharedNode2()
	objs = append(objs, node2Objs...)
	objs = append(objs, wantPreemptors(1, 2, 3)...)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	logger := klog.FromContext(h.ctx)
	victims := map[string][]*v1.Pod{"node-1": low, "node-2": {n2.shareLow, n2.pairA, n2.pairB, n2.grouped, n2.unreserved}}
	for _, n := range []int{1, 2, 3} {
		pod, err := h.client.CoreV1().Pods(testNamespace).Get(h.ctx, fmt.Sprintf("want-%d", n), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for node, all := range victims {
			for seed := range uint64(6) {
				order := slices.Clone(all)
				rand.New(rand.NewPCG(seed, uint64(n))).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				c, st := h.filter(pl, pod)
				if st != nil {
					t.Fatalf("PreFilter: %v", st)
				}
				// One dry run, as DefaultPreemption runs it on the node.
				cs, ni := c.state.Clone(), h.nodeInfo(node)
				remove := func(victim *v1.Pod) {
					if err := ni.RemovePod(logger, victim); err != nil {
						t.Fatal(err)
					}
					if st := pl.RemovePod(h.ctx, cs, pod, podInfo(t, victim), ni); !st.IsSuccess() {
						t.Fatalf("RemovePod %s: %v", victim.Name, st)
					}
				}
				for _, victim := range order {
					remove(victim)
				}
				if !pl.Filter(h.ctx, cs, pod, ni).IsSuccess() {
					continue
				}
				out := slices.Clone(order)
				for _, victim := range order {
					pi := podInfo(t, victim)
					ni.AddPodInfo(pi)
					if st := pl.AddPod(h.ctx, cs, pod, pi, ni); !st.IsSuccess() {
						t.Fatalf("AddPod %s: %v", victim.Name, st)
					}
					rest := slices.DeleteFunc(slices.Clone(out), func(p *v1.Pod) bool { return p == victim })
					fits := pl.Filter(h.ctx, cs, pod, ni).IsSuccess()
					if want := c.dryRun(node, rest...).IsSuccess(); fits != want {
						t.Errorf("%d devices on %s, victims %v, %s given back: fits %v, but removing only %v: %v",
							n, node, podNames(order), victim.Name, fits, podNames(rest), want)
					}
					if fits {
						out = rest
					} else {
						remove(victim)
					}
				}
			}
		}
	}
}

func podNames(pods []*v1.Pod) []string {
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	return names
}

func TestADryRunFreesTheDevicesOfAPodInItsBindingCycle(t *testing.T) {
	nodes, objs := preemptionCluster()
	low, held := fullNode1()
	// low-3's claim is in flight instead: chosen by its own cycle, not
	// written yet.
	objs = append(objs, held[:6]...)
	objs = append(objs, low[3], objects.Claim("held-3", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	pod, claim := preemptor(1)
	objs = append(objs, pod, claim)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]

	assumed := low[3].DeepCopy()
	assumed.Spec.NodeName = ""
	inFlight, st := h.filter(pl, assumed)
	if st != nil || !slices.Contains(inFlight.feasible, "node-1") {
		t.Fatalf("low-3 fits on %v (PreFilter %v), want node-1", inFlight.feasible, st)
	}
	if st := pl.Reserve(h.ctx, inFlight.state, assumed, "node-1"); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	if h.manager.ResourceClaims().GetPendingAllocation(h.claim(testNamespace, "held-3").UID) == nil {
		t.Fatal("no pending allocation after Reserve")
	}

	c, st := h.filter(pl, pod)
	if st != nil || len(c.feasible) != 1 || c.feasible[0] != "node-2" {
		t.Fatalf("preemptor fits on %v (PreFilter %v), want node-2 only", c.feasible, st)
	}
	if !c.dryRun("node-1", low[3]).IsSuccess() {
		t.Error("removing the pod in its binding cycle did not free the device in flight for it")
	}
	if c.dryRun("node-1", low[2]).IsSuccess() == false {
		t.Error("removing a bound holder did not free its device")
	}
}

func TestFilterTellsNodesWherePreemptionMayHelpFromHopelessOnes(t *testing.T) {
	nodes, objs := preemptionCluster()
	_, held := fullNode1()
	objs = append(objs, held...)
	// Node-2: every device held by a pod of the preemptor's priority.
	for i := range 4 {
		pod := boundPod(fmt.Sprintf("peer-%d", i), "node-2", highPriority, fmt.Sprintf("peer-%d", i))
		objs = append(objs, pod, heldClaim(fmt.Sprintf("peer-%d", i), "node-2", []string{fmt.Sprintf("dev-%d", i)}, consumer(pod)))
	}
	for _, n := range []int64{2, 6} {
		claim := objects.Claim(fmt.Sprintf("want-%d", n), testNamespace, objects.ClaimSpec("dev", testDriver, n))
		objs = append(objs, claim)
	}
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	asking := func(n int, mutate ...func(*v1.Pod)) *v1.Pod {
		pod := boundPod(fmt.Sprintf("asks-%d", n), "", highPriority, fmt.Sprintf("want-%d", n))
		for _, m := range mutate {
			m(pod)
		}
		return pod
	}
	never := func(p *v1.Pod) { p.Spec.PreemptionPolicy = ptr.To(v1.PreemptNever) }
	for _, tc := range []struct {
		name       string
		pod        *v1.Pod
		node       string
		preemption config.PreemptionMode
		want       fwk.Code
	}{
		{"a node whose devices lower-priority pods hold: preemption may help", asking(2), "node-1", config.PreemptionEnabled, fwk.Unschedulable},
		{"a node whose devices pods of the same priority hold: hopeless", asking(2), "node-2", config.PreemptionEnabled, fwk.UnschedulableAndUnresolvable},
		{"a node with too few devices even when empty: hopeless", asking(6), "node-1", config.PreemptionEnabled, fwk.UnschedulableAndUnresolvable},
		{"a pod that never preempts: hopeless", asking(2, never), "node-1", config.PreemptionEnabled, fwk.UnschedulableAndUnresolvable},
		{"preemption disabled: hopeless, as in-tree", asking(2), "node-1", config.PreemptionDisabled, fwk.UnschedulableAndUnresolvable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl.args.Preemption = tc.preemption
			defer func() { pl.args.Preemption = config.PreemptionEnabled }()
			cs := framework.NewCycleState()
			if _, st := pl.PreFilter(h.ctx, cs, tc.pod, h.nodes); !st.IsSuccess() {
				t.Fatalf("PreFilter: %v", st)
			}
			st := pl.Filter(h.ctx, cs, tc.pod, h.nodeInfo(tc.node))
			if st.Code() != tc.want {
				t.Errorf("Filter on %s: %v, want code %v", tc.node, st, tc.want)
			}
			if gotExt := pl.PreFilterExtensions() != nil; gotExt != (tc.preemption == config.PreemptionEnabled) {
				t.Errorf("PreFilterExtensions set: %v with preemption %s", gotExt, tc.preemption)
			}
		})
	}
}

func TestANominatedPodKeepsTheDevicesItsPreemptionFreedFromPodsOfLowerPriority(t *testing.T) {
	nodes, objs := preemptionCluster()
	_, held := fullNode1()
	// Three of node-1's devices stay held; dev-0 is free (its holder
	// preempted), and the preemptor, nominated to node-1, waits for it.
	objs = append(objs, held[2:]...)
	pod, claim := preemptor(1)
	objs = append(objs, pod, claim, objects.Claim("mid", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	h := newHarness(t, nil, []string{"default"}, slices.Clone(nodes), objs...)
	pl := h.plugins[0]
	nominated := pod.DeepCopy()
	nominated.Status.NominatedNodeName = "node-1"
	mid := boundPod("mid", "", (lowPriority+highPriority)/2, "mid")

	c, st := h.filter(pl, mid)
	if st != nil || !slices.Contains(c.feasible, "node-1") {
		t.Fatalf("mid fits on %v (PreFilter %v), want node-1 among them before anything is nominated", c.feasible, st)
	}
	// kube-scheduler adds the nominated pods of at least mid's priority
	// to a copy of the state before Filter.
	if st := c.filterChanged("node-1", []*v1.Pod{nominated}); st.IsSuccess() {
		t.Error("a lower-priority pod took the device its nominated preemptor waits for")
	}
	// The preemptor's claim is what it takes: without it, mid fits.
	if st := pl.Filter(h.ctx, c.state, mid, h.nodeInfo("node-1")); !st.IsSuccess() {
		t.Errorf("without the nominated pod, mid does not fit: %v", st)
	}
	// A removal and an addition of the nominated pod cancel out, in this
	// order too.
	if st := c.filterChanged("node-1", []*v1.Pod{nominated}, nominated); !st.IsSuccess() {
		t.Errorf("after RemovePod then AddPod of the nominated pod, mid does not fit: %v", st)
	}
}

func TestAddPodAndRemovePodGiveTheSameAnswerInAnyOrderAndInParallel(t *testing.T) {
	nodes, objs := preemptionCluster()
	low, held := fullNode1()
	objs = append(objs, held...)
	pod, claim := preemptor(2)
	objs = append(objs, pod, claim)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	c, st := h.filter(pl, pod)
	if st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	infos := make([]fwk.PodInfo, len(low))
	for i, p := range low {
		infos[i] = podInfo(t, p)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for seed := range uint64(64) {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, 3))
			// The net change: a random subset removed. On the way, every
			// pod may be removed and given back (a reprieve), in random
			// order, on this goroutine's copy of the state.
			removed := map[int]bool{}
			for i := range low {
				removed[i] = rng.IntN(2) == 0
			}
			cs := c.state.Clone()
			ni := h.nodeInfo("node-1")
			type step struct {
				i   int
				add bool
			}
			var steps []step
			for i := range low {
				steps = append(steps, step{i, false})
				if !removed[i] {
					steps = append(steps, step{i, true})
				}
			}
			rng.Shuffle(len(steps), func(a, b int) { steps[a], steps[b] = steps[b], steps[a] })
			for _, s := range steps {
				if s.add {
					pl.AddPod(h.ctx, cs, pod, infos[s.i], ni)
				} else {
					pl.RemovePod(h.ctx, cs, pod, infos[s.i], ni)
				}
			}
			var gone []*v1.Pod
			for i, p := range low {
				if removed[i] {
					gone = append(gone, p)
					if err := ni.RemovePod(klog.FromContext(h.ctx), p); err != nil {
						errs <- err.Error()
						return
					}
				}
			}
			want := len(gone) >= 2
			if got := pl.Filter(h.ctx, cs, pod, ni).IsSuccess(); got != want {
				errs <- fmt.Sprintf("seed %d: %d pods removed net (%v), fits %v, want %v", seed, len(gone), podNames(gone), got, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// The original state saw none of it.
	if st := pl.Filter(h.ctx, c.state, pod, h.nodeInfo("node-1")); st.IsSuccess() {
		t.Error("the dry runs changed the original cycle state")
	}
}

func TestPostFilterKeepsTheNominationWhileTheDevicesOfPreemptedPodsAreReleased(t *testing.T) {
	nodes, objs := preemptionCluster()
	low, held := fullNode1()
	// low-0 and low-1 were preempted: low-0 is gone, low-1 terminates;
	// their claims still hold dev-0 and dev-1.
	terminating := low[1].DeepCopy()
	terminating.DeletionTimestamp = ptr.To(metav1.Now())
	terminating.Finalizers = []string{"test.example.com/keep"}
	// held alternates pods and claims: low-0's pod is left out, low-1's
	// replaced.
	objs = append(objs, held[1], terminating)
	objs = append(objs, held[3:]...)
	for _, n := range []int64{1, 2, 3} {
		objs = append(objs, objects.Claim(fmt.Sprintf("want-%d", n), testNamespace, objects.ClaimSpec("dev", testDriver, n)))
	}
	// Node-2 is full of pods that stay.
	objs = append(objs, fullNode2()...)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	for _, tc := range []struct {
		name      string
		devices   int
		nominated string
		wait      bool
	}{
		{"nominated where the devices being released are enough: wait", 2, "node-1", true},
		{"nominated where one released device is enough: wait", 1, "node-1", true},
		{"nominated where they are not enough: preempt again", 3, "node-1", false},
		{"nominated where nothing is being released: preempt again", 1, "node-2", false},
		{"not nominated: preempt", 1, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := boundPod(fmt.Sprintf("asks-%d-%s", tc.devices, tc.nominated), "", highPriority, fmt.Sprintf("want-%d", tc.devices))
			pod.Status.NominatedNodeName = tc.nominated
			c, st := h.filter(pl, pod)
			if st != nil || len(c.feasible) != 0 {
				t.Fatalf("fits on %v (PreFilter %v), want no node", c.feasible, st)
			}
			result, st := pl.PostFilter(h.ctx, c.state, pod, nil)
			if got := st.IsSuccess(); got != tc.wait {
				t.Fatalf("PostFilter: %v, want waiting %v", st, tc.wait)
			}
			if !tc.wait {
				if st.Code() != fwk.Unschedulable {
					t.Errorf("PostFilter: %v, want Unschedulable so that DefaultPreemption runs", st)
				}
				return
			}
			if result == nil || result.NominatedNodeName != tc.nominated || result.NominatingMode != fwk.ModeOverride {
				t.Errorf("PostFilter result %+v, want the nomination to %s kept", result, tc.nominated)
			}
			if !strings.Contains(st.Message(), "to be released") {
				t.Errorf("PostFilter message %q does not say what the pod waits for", st.Message())
			}
		})
	}
}

func TestPostFilterWaitsForANominationNotYetInThePodsStatus(t *testing.T) {
	// node-1: low-0 was preempted and is gone, its claim still holds
	// dev-0; low-1..3 stay. node-2 is full of pods that stay. The pod asks
	// for one device and was nominated to node-1 by DefaultPreemption, but
	// its status does not say so yet: kube-scheduler has the nomination
	// in memory only.
	for _, tc := range []struct {
		name string
		// dryRun runs a dry run of the pod's preemption that finds room
		// on node-1, as DefaultPreemption's before nominating.
		dryRun bool
		// nominated is the node the scheduler's nominator holds the pod
		// on; "" for none.
		nominated string
		wait      bool
	}{
		{"nominated in memory where a victim's device is being released: wait", true, "node-1", true},
		{"nominated in memory where nothing is being released: preempt again", true, "node-2", false},
		{"a dry run found room but the pod was nominated nowhere: preempt", true, "", false},
		{"no dry run found room for the pod: preempt without asking every node", false, "node-1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, objs := preemptionCluster()
			low, held := fullNode1()
			objs = append(objs, held[1:]...)
			objs = append(objs, fullNode2()...)
			pod, claim := preemptor(1)
			objs = append(objs, claim)
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			pl := h.plugins[0]
			c, st := h.filter(pl, pod)
			if st != nil || len(c.feasible) != 0 {
				t.Fatalf("fits on %v (PreFilter %v), want nowhere: dev-0 is still allocated", c.feasible, st)
			}
			if tc.dryRun {
				if st := c.dryRun("node-1", low[1]); !st.IsSuccess() {
					t.Fatalf("the dry run removing %s: %v, want room", low[1].Name, st)
				}
			}
			if tc.nominated != "" {
				h.nominated.AddNominatedPod(klog.Background(), podInfo(t, pod), &fwk.NominatingInfo{NominatedNodeName: tc.nominated, NominatingMode: fwk.ModeOverride})
			}
			rejected := nodeStatuses{fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithPlugin(Name)}
			result, st := pl.PostFilter(h.ctx, c.state, pod, rejected)
			if st.IsSuccess() != tc.wait {
				t.Fatalf("PostFilter: %v, want waiting %v", st, tc.wait)
			}
			if tc.wait && (result == nil || result.NominatedNodeName != tc.nominated || result.NominatingMode != fwk.ModeOverride) {
				t.Errorf("PostFilter result %+v, want the nomination to %s kept", result, tc.nominated)
			}
			if !tc.wait && st.Code() != fwk.Unschedulable {
				t.Errorf("PostFilter: %v, want Unschedulable so that DefaultPreemption runs", st)
			}
		})
	}
}

// busyClaims is the DRA manager's claim tracker refusing to gather the
// allocated devices the first busy times, as it does while claims change
// under it.
type busyClaims struct {
	fwk.ResourceClaimTracker
	busy  atomic.Int64
	calls atomic.Int64
}

func (b *busyClaims) GatherAllocatedState() (*structured.AllocatedState, error) {
	b.calls.Add(1)
	if b.busy.Add(-1) >= 0 {
		return nil, errors.New("conflicting concurrent modification")
	}
	return b.ResourceClaimTracker.GatherAllocatedState()
}

// busyManager is a SharedDRAManager whose claim tracker is busyClaims.
type busyManager struct {
	fwk.SharedDRAManager
	claims *busyClaims
}

func (m busyManager) ResourceClaims() fwk.ResourceClaimTracker { return m.claims }

func TestPostFilterKeepsTheNominationWhileTheDRAManagerIsBusy(t *testing.T) {
	// node-1: low-0 was preempted and is gone, its claim still holds dev-0;
	// the pod, nominated there, waits for it. The DRA manager answers only
	// after refusing busy times (a claim changed while it gathered).
	for _, tc := range []struct {
		name string
		busy int64
	}{
		{"it answers on the third try: wait, as when it answers at once", 2},
		{"it never answers: keep the nomination rather than evict more pods on a guess", 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, objs := preemptionCluster()
			_, held := fullNode1()
			objs = append(objs, held[1:]...)
			objs = append(objs, fullNode2()...)
			pod, claim := preemptor(1)
			pod.Status.NominatedNodeName = "node-1"
			objs = append(objs, claim)
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			pl := h.plugins[0]
			claims := &busyClaims{ResourceClaimTracker: pl.draManager.ResourceClaims()}
			claims.busy.Store(tc.busy)
			pl.draManager = busyManager{SharedDRAManager: pl.draManager, claims: claims}
			// Filter, turning the nominated node down, decides whether
			// the pod waits; PostFilter keeps the nomination if so.
			start := time.Now()
			c, st := h.filter(pl, pod)
			if st != nil || len(c.feasible) != 0 {
				t.Fatalf("fits on %v (PreFilter %v), want nowhere: dev-0 is still allocated", c.feasible, st)
			}
			result, st := pl.PostFilter(h.ctx, c.state, pod, nodeStatuses{fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithPlugin(Name)})
			if !st.IsSuccess() || result == nil || result.NominatedNodeName != "node-1" {
				t.Fatalf("PostFilter: %v, result %+v; want the nomination to node-1 kept, so that DefaultPreemption does not evict more pods", st, result)
			}
			if took := time.Since(start); took > 3*gatherTimeout {
				t.Errorf("Filter and PostFilter took %v, want at most about %v", took, gatherTimeout)
			}
			if n := claims.calls.Load(); n < 3 {
				t.Errorf("the DRA manager was asked %d times, want it asked again while busy", n)
			}
		})
	}
}

func TestANominatedPodWaitingForItsVictimsHoldsTheDevicesAlreadyFreed(t *testing.T) {
	nodes, objs := preemptionCluster()
	low, held := fullNode1()
	// The preemptor, nominated to node-1, needs two devices: its victims
	// were low-0 and low-1. low-1's claim is released (dev-1 free),
	// low-0 is gone but its claim still holds dev-0; low-2 and low-3 stay.
	objs = append(objs, held[1], held[4], held[5], held[6], held[7])
	pod, claim := preemptor(2)
	objs = append(objs, pod, claim, objects.Claim("peer", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	nominated := pod.DeepCopy()
	nominated.Status.NominatedNodeName = "node-1"
	// A pod of the preemptor's own priority: kube-scheduler adds the
	// nominated pod before its Filter too.
	peer := boundPod("peer", "", highPriority, "peer")

	c, st := h.filter(pl, peer)
	if st != nil || !slices.Contains(c.feasible, "node-1") {
		t.Fatalf("peer fits on %v (PreFilter %v), want node-1 (dev-1 is free) before the nomination counts", c.feasible, st)
	}
	if st := c.filterChanged("node-1", []*v1.Pod{nominated}); st.IsSuccess() {
		t.Errorf("a pod of the same priority took dev-1, freed for the nominated preemptor that waits for dev-0 too (low-0 %s left)", low[0].Name)
	}
}

// nodeStatuses is a NodeToStatusReader of one status for every node.
type nodeStatuses struct{ status *fwk.Status }

func (n nodeStatuses) Get(string) *fwk.Status { return n.status }
func (n nodeStatuses) NodesForStatusCode(fwk.NodeInfoLister, fwk.Code) ([]fwk.NodeInfo, error) {
	return nil, nil
}

func TestPostFilterWaitsOnlyWhereTheDevicesKeepThePodFromItsNominatedNode(t *testing.T) {
	nodes, objs := preemptionCluster()
	_, held := fullNode1()
	// node-1: dev-0 was low-0's, now deallocated in the API, but the
	// plugin's tracker has not seen that yet; the other devices stay held.
	objs = append(objs, held[2:]...)
	objs = append(objs, objects.Claim("want-1", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	h := newHarness(t, nil, []string{"default"}, nodes[:1], objs...)
	pl := h.plugins[0]
	pl.tracker.SetPending("stale-low-0", allocationOf("node-1", "dev-0"))
	pod := boundPod("asks", "", highPriority, "want-1")
	pod.Status.NominatedNodeName = "node-1"
	for _, tc := range []struct {
		name     string
		statuses fwk.NodeToStatusReader
		wait     bool
	}{
		{"the plugin turned the node down, and the scheduler's DRA manager has the device free: wait for the plugin to catch up", nodeStatuses{fwk.NewStatus(fwk.Unschedulable).WithPlugin(Name)}, true},
		{"another plugin turned the node down: preempt as usual", nodeStatuses{fwk.NewStatus(fwk.Unschedulable).WithPlugin("NodeResourcesFit")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, st := h.filter(pl, pod)
			if st != nil || len(c.feasible) != 0 {
				t.Fatalf("fits on %v (PreFilter %v), want nowhere: the tracker still has dev-0 taken", c.feasible, st)
			}
			_, st = pl.PostFilter(h.ctx, c.state, pod, tc.statuses)
			if st.IsSuccess() != tc.wait {
				t.Errorf("PostFilter: %v, want waiting %v", st, tc.wait)
			}
		})
	}
}

func TestAPreemptorIsRetriedWhenAPodWithClaimsLeavesItsNominatedNode(t *testing.T) {
	nodes, objs := preemptionCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	nominated := boundPod("preemptor", "", highPriority, "want")
	nominated.Status.NominatedNodeName = "node-1"
	notYet := nominated.DeepCopy()
	notYet.Status.NominatedNodeName = ""
	victim := boundPod("victim", "node-1", lowPriority, "held-0")
	elsewhere := boundPod("elsewhere", "node-2", lowPriority, "held-9")
	noClaims := victim.DeepCopy()
	noClaims.Spec.ResourceClaims = nil
	// A preemptor asking for a DRA-backed extended resource has no claim
	// before it is bound; a victim holding one has its claim's status.
	class := objects.DeviceClass("gpu-class", testDriver)
	class.Spec.ExtendedResourceName = ptr.To("example.com/gpu")
	h.create(class)
	h.eventually("the extended resource to map to the class", func() bool {
		return h.manager.DeviceClassResolver().GetDeviceClass("example.com/gpu") != nil
	})
	asksExtended := nominated.DeepCopy()
	asksExtended.Spec.ResourceClaims = nil
	one := v1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	asksExtended.Spec.Containers[0].Resources = v1.ResourceRequirements{Requests: one, Limits: one}
	asksUnmapped := asksExtended.DeepCopy()
	other := v1.ResourceList{"example.com/other": resource.MustParse("1")}
	asksUnmapped.Spec.Containers[0].Resources = v1.ResourceRequirements{Requests: other, Limits: other}
	extendedVictim := noClaims.DeepCopy()
	extendedVictim.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{ResourceClaimName: "victim-extended-resources-x"}
	hint := hintFor(t, h, fwk.AssignedPod)
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		gone any
		want fwk.QueueingHint
	}{
		{"a pod with claims left the nominated node: retry", nominated, victim, fwk.Queue},
		{"the same, seen through a tombstone: retry", nominated, cache.DeletedFinalStateUnknown{Obj: victim}, fwk.Queue},
		{"the nomination is not in the pod's status yet: retry", notYet, victim, fwk.Queue},
		{"a pod left another node: skip", nominated, elsewhere, fwk.QueueSkip},
		{"a pod without claims left: skip", nominated, noClaims, fwk.QueueSkip},
		{"a preemptor asking for an extended resource a DeviceClass provides: retry", asksExtended, extendedVictim, fwk.Queue},
		{"a preemptor asking for an extended resource no DeviceClass provides: skip", asksUnmapped, extendedVictim, fwk.QueueSkip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := hint(klog.Background(), tc.pod, tc.gone, nil)
			if err != nil || got != tc.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	pl.args.Preemption = config.PreemptionDisabled
	defer func() { pl.args.Preemption = config.PreemptionEnabled }()
	if got, _ := pl.isSchedulableAfterAssignedPodEvent(klog.Background(), nominated, victim, nil); got != fwk.QueueSkip {
		t.Errorf("with preemption disabled the hint = %v, want QueueSkip", got)
	}
}

func TestADryRunGivesANominatedPodWhatItsOwnPreemptionFreedNotWhatTheDryRunRemoves(t *testing.T) {
	// node-1: dev-0 is the only "special" device. low-0 holds it, low-1 and
	// low-2 hold dev-1 and dev-2; dev-3 is free, freed for the first
	// preemptor, nominated to node-1.
	slice := objects.MakeSlice("node-1", testDriver, "node-1").Device("dev-0", nil).Attribute("kind", "special")
	for i := 1; i < 4; i++ {
		slice.Device(fmt.Sprintf("dev-%d", i), nil).Attribute("kind", "plain")
	}
	objs := []runtime.Object{objects.DeviceClass(testDriver, testDriver), slice.Obj()}
	var low []*v1.Pod
	for i := range 3 {
		pod := boundPod(fmt.Sprintf("low-%d", i), "node-1", lowPriority, fmt.Sprintf("held-%d", i))
		low = append(low, pod)
		objs = append(objs, pod, heldClaim(fmt.Sprintf("held-%d", i), "node-1", []string{fmt.Sprintf("dev-%d", i)}, consumer(pod)))
	}
	first, firstClaim := preemptor(1)
	objs = append(objs, first, firstClaim,
		objects.Claim("special", testNamespace, objects.ClaimSpec("dev", testDriver, 1, `device.attributes["gpu.example.com"].kind == "special"`)))
	h := newHarness(t, nil, []string{"default"}, []*v1.Node{objects.MakeNode("node-1").Obj()}, objs...)
	pl := h.plugins[0]
	nominated := first.DeepCopy()
	nominated.Status.NominatedNodeName = "node-1"
	second := boundPod("second", "", highPriority, "special")

	// The second preemptor's dry run on node-1: kube-scheduler adds the
	// nominated pod, DefaultPreemption removes low-0.
	c, st := h.filter(pl, second)
	if st != nil || len(c.feasible) != 0 {
		t.Fatalf("second fits on %v (PreFilter %v), want nowhere", c.feasible, st)
	}
	if st := c.filterChanged("node-1", []*v1.Pod{nominated}, low[0]); !st.IsSuccess() {
		t.Errorf("evicting low-0 does not make room for the second preemptor: the nominated one took dev-0 in the dry run instead of dev-3, which its own preemption freed: %v", st)
	}
}

func TestTwoPreemptorsOnOneNodeDoNotCountOnTheSameVictims(t *testing.T) {
	for _, tc := range []struct {
		name string
		// victimTerminating: the first preemptor's victim, low-3, is
		// terminating (its preemption done) rather than still running.
		victimTerminating bool
		// fits says whether the second preemptor fits after removing
		// one and two other pods.
		fits [2]bool
		held bool
	}{
		{"while the first preemptor's preemption is under way, the node is held for it", false, [2]bool{false, false}, true},
		{"once its victim terminates, the first takes that device and the second needs a victim of its own", true, [2]bool{true, true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, objs := preemptionCluster()
			low, held := fullNode1()
			if tc.victimTerminating {
				terminating := low[3].DeepCopy()
				terminating.DeletionTimestamp = ptr.To(metav1.Now())
				terminating.Finalizers = []string{"test.example.com/keep"}
				low[3] = terminating
				held[6] = terminating
			}
			objs = append(objs, held...)
			first, firstClaim := preemptor(1)
			objs = append(objs, first, firstClaim, objects.Claim("second", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
			h := newHarness(t, nil, []string{"default"}, nodes[:1], objs...)
			pl := h.plugins[0]
			nominated := first.DeepCopy()
			nominated.Status.NominatedNodeName = "node-1"
			second := boundPod("second", "", highPriority, "second")
			c, st := h.filter(pl, second)
			if st != nil || len(c.feasible) != 0 {
				t.Fatalf("second fits on %v (PreFilter %v), want nowhere", c.feasible, st)
			}
			// The second preemptor's dry runs on node-1, with the first
			// one added as kube-scheduler adds nominated pods.
			for n, want := range tc.fits {
				st := c.filterChanged("node-1", []*v1.Pod{nominated}, low[:n+1]...)
				if st.IsSuccess() != want {
					t.Errorf("removing %d pods: %v, want fits %v", n+1, st, want)
				}
				if got := strings.Contains(st.Message(), "preemption is under way"); got != tc.held {
					t.Errorf("removing %d pods: %q, want the node held for the first preemptor: %v", n+1, st.Message(), tc.held)
				}
			}
		})
	}
}

func TestPostFilterDoesNotWaitForDevicesAnotherNominatedPodWillTake(t *testing.T) {
	nodes, objs := preemptionCluster()
	_, held := fullNode1()
	// low-0 is gone; its claim still holds dev-0, being released. Two
	// preemptors of the same priority are nominated to node-1, one device
	// each: only one of them can have dev-0.
	objs = append(objs, held[1])
	objs = append(objs, held[2:]...)
	objs = append(objs, objects.Claim("want-a", testNamespace, objects.ClaimSpec("dev", testDriver, 1)),
		objects.Claim("want-b", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	h := newHarness(t, nil, []string{"default"}, nodes[:1], objs...)
	pl := h.plugins[0]
	a := boundPod("a", "", highPriority, "want-a")
	b := boundPod("b", "", highPriority, "want-b")
	for _, p := range []*v1.Pod{a, b} {
		p.Status.NominatedNodeName = "node-1"
	}
	h.nominated.AddNominatedPod(klog.Background(), podInfo(t, a), nil)
	rejected := nodeStatuses{fwk.NewStatus(fwk.Unschedulable).WithPlugin(Name)}
	c, st := h.filter(pl, b)
	if st != nil || len(c.feasible) != 0 {
		t.Fatalf("b fits on %v (PreFilter %v), want nowhere", c.feasible, st)
	}
	if _, st := pl.PostFilter(h.ctx, c.state, b, rejected); st.IsSuccess() {
		t.Errorf("PostFilter: %v; want no wait: the device being released goes to a, nominated there too", st)
	}
	// The next cycle, with nobody else nominated there.
	h.nominated.byNode = nil
	if c, st = h.filter(pl, b); st != nil || len(c.feasible) != 0 {
		t.Fatalf("b fits on %v (PreFilter %v), want nowhere", c.feasible, st)
	}
	if _, st := pl.PostFilter(h.ctx, c.state, b, rejected); !st.IsSuccess() {
		t.Errorf("PostFilter: %v; want b to wait for dev-0 when nobody else is nominated there", st)
	}
}

func TestAPeerOfTheSamePriorityNominatedLaterDoesNotTakeThePreemptorsDevicesFirst(t *testing.T) {
	// As above: low-0 is gone, its claim still holds dev-0; a and b, of one
	// priority, are nominated to node-1 and need one device each. Which of
	// them waits for dev-0 depends on which was nominated there first.
	for _, tc := range []struct {
		name string
		// order is the order in which the pods' nominations were seen;
		// empty: not seen at all.
		order []string
		wait  bool
	}{
		{"a was nominated first: b does not wait, a gets dev-0", []string{"a", "b"}, false},
		{"b was nominated first: b waits, a's dry runs counted dev-0 as b's", []string{"b", "a"}, true},
		{"neither nomination was seen: a comes first, as kube-scheduler adds it", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, objs := preemptionCluster()
			_, held := fullNode1()
			objs = append(objs, held[1])
			objs = append(objs, held[2:]...)
			objs = append(objs, objects.Claim("want-a", testNamespace, objects.ClaimSpec("dev", testDriver, 1)),
				objects.Claim("want-b", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
			h := newHarness(t, nil, []string{"default"}, nodes[:1], objs...)
			pl := h.plugins[0]
			pods := map[string]*v1.Pod{"a": boundPod("a", "", highPriority, "want-a"), "b": boundPod("b", "", highPriority, "want-b")}
			for _, p := range pods {
				p.Status.NominatedNodeName = "node-1"
			}
			h.nominated.AddNominatedPod(klog.Background(), podInfo(t, pods["a"]), nil)
			clock := time.Unix(1000, 0)
			pl.nominations.now = func() time.Time { clock = clock.Add(time.Second); return clock }
			for _, name := range tc.order {
				pl.nominations.observe(pods[name])
			}
			c, st := h.filter(pl, pods["b"])
			if st != nil || len(c.feasible) != 0 {
				t.Fatalf("b fits on %v (PreFilter %v), want nowhere", c.feasible, st)
			}
			_, st = pl.PostFilter(h.ctx, c.state, pods["b"], nodeStatuses{fwk.NewStatus(fwk.Unschedulable).WithPlugin(Name)})
			if st.IsSuccess() != tc.wait {
				t.Errorf("PostFilter: %v; want b waiting %v", st, tc.wait)
			}
		})
	}
}

func TestTheNominationClockTimesEachPodOnItsCurrentNode(t *testing.T) {
	c := newNominationClock()
	clock := time.Unix(1000, 0)
	c.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	a, b := boundPod("a", "", highPriority), boundPod("b", "", highPriority)
	a.Status.NominatedNodeName, b.Status.NominatedNodeName = "node-1", "node-1"
	c.observe(a)
	c.observe(b)
	c.observe(a) // seen again on the same node: still the first
	if !c.nominatedBefore(a.UID, b.UID, "node-1") || c.nominatedBefore(b.UID, a.UID, "node-1") {
		t.Fatalf("a was nominated to node-1 before b; the clock says otherwise")
	}
	moved := a.DeepCopy()
	moved.Status.NominatedNodeName = "node-2"
	c.observe(moved)
	moved.Status.NominatedNodeName = "node-1"
	c.observe(moved) // back on node-1, now after b
	if c.nominatedBefore(a.UID, b.UID, "node-1") || !c.nominatedBefore(b.UID, a.UID, "node-1") {
		t.Errorf("a came back to node-1 after b was nominated there; the clock still puts it first")
	}
	if c.nominatedBefore(b.UID, a.UID, "node-2") {
		t.Errorf("neither pod is nominated to node-2 now, but the clock orders them there")
	}
	bound := b.DeepCopy()
	bound.Spec.NodeName = "node-1"
	c.observe(bound)
	if c.nominatedBefore(b.UID, a.UID, "node-1") {
		t.Errorf("b is bound, but the clock still times its nomination")
	}
}
