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
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	k8stesting "k8s.io/client-go/testing"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// quantityEqual compares quantities by value.
var quantityEqual = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

// withNodeAllocatable turns DRANodeAllocatableResources on for the
// plugins the test builds.
func withNodeAllocatable(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.DRANodeAllocatableResources, true)
}

// cpuDeviceCluster has node "big" with 8 cpu and node "small" with 4,
// each with one device that is 4 cpu of its node and costs 1Gi of memory
// per pod, and claim "cpus" for one such device.
func cpuDeviceCluster() ([]*v1.Node, []runtime.Object) {
	nodes := []*v1.Node{objects.MakeNode("big").Allocatable("8", "32Gi").Obj(), objects.MakeNode("small").Allocatable("4", "32Gi").Obj()}
	objs := []runtime.Object{objects.DeviceClass(testDriver, testDriver), objects.Claim("cpus", testNamespace, objects.ClaimSpec("dev", testDriver, 1))}
	for _, node := range nodes {
		objs = append(objs, objects.MakeSlice(node.Name, testDriver, node.Name).Device("cpu-0", nil).
			MapsNodeResource(v1.ResourceCPU, "4").NodeOverhead(v1.ResourceMemory, "1Gi", "").Obj())
	}
	return nodes, objs
}

// cpuHarness turns DRANodeAllocatableResources on and starts a plugin
// over cpuDeviceCluster and objs.
func cpuHarness(t *testing.T, objs ...runtime.Object) (*harness, *DRAAllocator) {
	t.Helper()
	withNodeAllocatable(t)
	nodes, cluster := cpuDeviceCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, append(cluster, objs...)...)
	return h, h.plugins[0]
}

// cpuPod is a pod asking for cpu of its own and using claim "cpus".
func cpuPod(name, cpu string) *v1.Pod {
	pod := objects.MakePod(name, testNamespace).Claim("cpus", "cpus").Requests(cpu, "").Obj()
	pod.UID = types.UID("pod-" + name)
	return pod
}

func TestAPodWhoseDeviceIsNodeCPUFitsOnlyWhereTheNodeHasRoomForBothAndGetsItRecorded(t *testing.T) {
	pod := cpuPod("p", "1")
	h, pl := cpuHarness(t, pod)

	c, st := h.filter(pl, pod)
	if st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	if want := []string{"big"}; !cmp.Equal(c.feasible, want) {
		t.Fatalf("pod fits on %v, want %v: its 1 cpu and its device's 4 exceed small's 4", c.feasible, want)
	}
	small := pl.Filter(h.ctx, c.state, pod, h.nodes[1])
	if small.Code() != fwk.UnschedulableAndUnresolvable || small.Message() != "Insufficient cpu" {
		t.Errorf("Filter on small = %v, want UnschedulableAndUnresolvable \"Insufficient cpu\" (5 cpu asked of 4 allocatable)", small)
	}

	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	entry, ok := pl.ledger.entries[pod.UID]
	wantDelta := nodeallocatable.Amounts{MilliCPU: 4000, Memory: 1 << 30}
	if !ok || entry.node != "big" || !cmp.Equal(entry.delta, wantDelta) {
		t.Errorf("ledger entry %+v (present %v), want on big with delta %+v", entry, ok, wantDelta)
	}
	if st := pl.PreBind(h.ctx, c.state, pod, "big"); !st.IsSuccess() {
		t.Fatalf("PreBind: %v", st)
	}
	stored, err := h.client.CoreV1().Pods(testNamespace).Get(h.ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []v1.NodeAllocatableResourceClaimStatus{{
		ResourceClaimName: "cpus",
		Containers:        []string{"main"},
		Mapping:           []v1.NodeAllocatableMappedResources{{Name: v1.ResourceCPU, Quantity: ptr.To(resource.MustParse("4"))}},
		Overhead:          []v1.NodeAllocatableOverheadResources{{Name: v1.ResourceMemory, PerPod: ptr.To(resource.MustParse("1Gi"))}},
	}}
	if diff := cmp.Diff(want, stored.Status.NodeAllocatableResourceClaimStatuses, quantityEqual); diff != "" {
		t.Errorf("the pod's recorded statuses differ (-want +got):\n%s", diff)
	}

	// Binding fails after PreBind: Unreserve clears the record, forgets
	// the ledger entry and retries the pods the plugin turned away.
	activated := h.activated.Load()
	pl.requeue.seen(cpuPod("waiting", "1"))
	c.unreserve()
	stored, err = h.client.CoreV1().Pods(testNamespace).Get(h.ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := stored.Status.NodeAllocatableResourceClaimStatuses; len(got) != 0 {
		t.Errorf("after Unreserve the pod's statuses are %+v, want cleared", got)
	}
	if _, ok := pl.ledger.entries[pod.UID]; ok {
		t.Error("after Unreserve the ledger still holds the pod")
	}
	if h.activated.Load() == activated {
		t.Error("Unreserve freed node resources but retried no pod")
	}
}

func TestAPodAssumedWithADeviceThatIsNodeCPUHoldsThatCPUUntilTheNodeCountsIt(t *testing.T) {
	// Assumed on big: in the scheduler's snapshot, without statuses.
	assumed := cpuPod("assumed", "1")
	assumed.Spec.NodeName = "big"
	h, pl := cpuHarness(t, assumed)
	c, st := h.filter(pl, assumed)
	if st != nil || len(c.feasible) == 0 || c.feasible[0] != "big" {
		t.Fatalf("the assumed pod fits on %v (PreFilter %v), want big first", c.feasible, st)
	}
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}

	// Node infos of big as Filter may get them: the snapshot's, holding
	// the assumed copy; one holding the bound copy instead (a newer
	// version, counted by the node accounting: it carries no statuses in
	// this test, so only its own 1 cpu is); one without the pod (a
	// preemption dry run).
	bound := assumed.DeepCopy()
	bound.ResourceVersion = "bound"
	withBound := framework.NewNodeInfo(bound)
	withBound.SetNode(h.nodes[0].Node())
	without := framework.NewNodeInfo()
	without.SetNode(h.nodes[0].Node())
	insufficient := fwk.NewStatus(fwk.Unschedulable, "Insufficient cpu")
	for _, tc := range []struct {
		name string
		node fwk.NodeInfo
		cpu  string
		want *fwk.Status
	}{
		// 8 cpu, 1 counted for the assumed pod, 4 in the ledger: 3 left.
		{"a pod without claims asking for 4 cpu is turned away as NodeResourcesFit would", h.nodes[0], "4", insufficient},
		{"a pod without claims asking for 3 cpu fits", h.nodes[0], "3", nil},
		{"once the node holds the bound pod, the node accounting counts it and the ledger does not", withBound, "4", nil},
		{"a node without the pod (a preemption dry run) does not count it", without, "8", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := objects.MakePod("plain-"+tc.cpu, testNamespace).Requests(tc.cpu, "").Obj()
			cs := framework.NewCycleState()
			if _, st := pl.PreFilter(h.ctx, cs, plain, h.nodes); !st.IsSuccess() {
				t.Fatalf("PreFilter = %v, want success (no Skip while the ledger holds a pod)", st)
			}
			if got := pl.Filter(h.ctx, cs, plain, tc.node); !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}

	c.unreserve()
	plain := objects.MakePod("plain", testNamespace).Requests("4", "").Obj()
	if _, st := pl.PreFilter(h.ctx, framework.NewCycleState(), plain, h.nodes); !st.IsSkip() {
		t.Errorf("PreFilter of a pod without claims = %v once the ledger is empty, want Skip", st)
	}
}

func TestAClaimWhoseDeviceIsNodeCPUIsNotSharedButOneWithOnlyOverheadIs(t *testing.T) {
	h, pl := cpuHarness(t,
		objects.MakeSlice("overhead", testDriver+"-2", "big").Device("nic-0", nil).NodeOverhead(v1.ResourceMemory, "1Gi", "").Obj(),
		objects.DeviceClass(testDriver+"-2", testDriver+"-2"),
		objects.Claim("nic", testNamespace, objects.ClaimSpec("dev", testDriver+"-2", 1)))
	for _, name := range []string{"cpus", "nic"} {
		claim := h.claim(testNamespace, name).DeepCopy()
		device := map[string]string{"cpus": "cpu-0", "nic": "nic-0"}[name]
		pool := map[string]string{"cpus": "big", "nic": "big"}[name]
		claim.Status.Allocation = allocationOf(pool, device)
		claim.Status.Allocation.Devices.Results[0].Driver = map[string]string{"cpus": testDriver, "nic": testDriver + "-2"}[name]
		claim.Status.Allocation.NodeSelector = objects.NodeSelectorFor("big")
		claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "owner", UID: "pod-owner"}}
		h.updateClaimStatus(claim)
	}

	second := objects.MakePod("second", testNamespace).Claim("cpus", "cpus").Obj()
	c, st := h.filter(pl, second)
	if st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	got := pl.Filter(h.ctx, c.state, second, h.nodes[0])
	if got.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(got.Message(), "node allocatable resource claim cpus has a mapped device and cannot be shared across pods") {
		t.Errorf("Filter of a second pod of the mapped claim = %v, want it refused as not shareable", got)
	}

	sharer := objects.MakePod("sharer", testNamespace).Claim("nic", "nic").Obj()
	c, st = h.filter(pl, sharer)
	if st != nil || len(c.feasible) != 1 || c.feasible[0] != "big" {
		t.Errorf("a second pod of the overhead-only claim fits on %v (PreFilter %v), want big", c.feasible, st)
	}
}

func TestANodeWhoseFilterTheSchedulerStopsIsUnschedulableNotAnError(t *testing.T) {
	pod := cpuPod("p", "1")
	h, pl := cpuHarness(t, pod)
	cs := framework.NewCycleState()
	if _, st := pl.PreFilter(h.ctx, cs, pod, h.nodes); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	s, err := getState(cs)
	if err != nil {
		t.Fatal(err)
	}
	// The scheduler cancels the Filter of the remaining nodes once it has
	// found enough feasible ones, here after the devices were found to fit
	// and before they are searched for the node-allocatable check.
	ctx, cancel := context.WithCancelCause(h.ctx)
	cancel(errors.New("findNodesThatPassFilters has found enough nodes"))
	st := pl.filterNodeAllocatable(ctx, s, pod, h.nodes[0], nodeallocatable.Amounts{}, time.Now())
	if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "asked by caller to stop allocating devices") {
		t.Errorf("Filter with a stopped context = %v, want UnschedulableAndUnresolvable, asked to stop (an error would send the pod to backoff)", st)
	}
}

func TestTheLedgerIsSweptOnlyOfPodsTheSnapshotNoLongerHoldsAsAssumed(t *testing.T) {
	node := objects.MakeNode("n").Obj()
	assumed := func(name, rv string) *v1.Pod {
		pod := objects.MakePod(name, testNamespace).Obj()
		pod.UID, pod.ResourceVersion, pod.Spec.NodeName = types.UID(name), rv, "n"
		return pod
	}
	entry := func(name string) ledgerEntry {
		return ledgerEntry{pod: types.UID(name), resourceVersion: "1", node: "n", delta: nodeallocatable.Amounts{MilliCPU: 1000}}
	}
	l := newLedger()
	for _, name := range []string{"still-assumed", "bound", "deleted"} {
		l.add(entry(name))
	}
	// A snapshot that misses a pod (a pod-group preemption's victim,
	// removed for a while) does not change the view.
	if v := l.view(); len(v["n"]) != 3 {
		t.Fatalf("view holds %d entries, want all 3", len(v["n"]))
	}
	snapshot := internalcache.NewSnapshot([]*v1.Pod{assumed("still-assumed", "1"), assumed("bound", "2")}, []*v1.Node{node})
	l.sweep(snapshot.NodeInfos())
	v := l.view()
	if len(v["n"]) != 1 || v["n"][0].pod != "still-assumed" {
		t.Errorf("after the sweep the ledger holds %+v, want only the pod still assumed (the bound one is counted by the node, the deleted one is gone)", v)
	}
	info, err := snapshot.NodeInfos().Get("n")
	if err != nil {
		t.Fatal(err)
	}
	if got := v.uncounted(info); got.MilliCPU != 1000 {
		t.Errorf("uncounted = %+v, want the assumed pod's 1 cpu", got)
	}
	if l.remove("still-assumed"); l.view() != nil {
		t.Error("view of an empty ledger is not nil")
	}
}

func TestOnlyPodsShortOfNodeResourcesAreRetriedWhenAnAssignedPodComesOrGoes(t *testing.T) {
	pl := &DRAAllocator{shared: &shared{shortOfNodeResources: newPodSet(2)}}
	short, other := cpuPod("short", "1"), cpuPod("other", "1")
	pl.shortOfNodeResources.add(short.UID)
	logger := klog.Background()
	if hint, _ := pl.isSchedulableAfterAssignedPodChange(logger, other, nil, nil); hint != fwk.QueueSkip {
		t.Errorf("hint for a pod turned away for something else = %v, want QueueSkip", hint)
	}
	if hint, _ := pl.isSchedulableAfterAssignedPodChange(logger, short, nil, nil); hint != fwk.Queue {
		t.Errorf("hint for a pod short of node resources = %v, want Queue", hint)
	}
	if hint, _ := pl.isSchedulableAfterAssignedPodChange(logger, short, nil, nil); hint != fwk.QueueSkip {
		t.Errorf("second hint for the same pod = %v, want QueueSkip until it is short again", hint)
	}
	for _, uid := range []types.UID{"a", "b", "c"} {
		pl.shortOfNodeResources.add(uid)
	}
	if n := len(pl.shortOfNodeResources.uids); n > 2 {
		t.Errorf("the set holds %d pods, more than its limit of 2", n)
	}
}

func TestABoundPodWhoseResizeIsDeferredIsLeftToTheOtherPlugins(t *testing.T) {
	// InPlacePodVerticalScalingSchedulerPreemption (alpha): kube-scheduler
	// runs a cycle for a bound pod whose resize is deferred; the in-tree
	// plugin skips it, and so does DRAAllocator.
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.InPlacePodVerticalScalingSchedulerPreemption, true)
	nodes, objs := cpuDeviceCluster()
	pod := cpuPod("resizing", "1")
	pod.Spec.NodeName = "big"
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: v1.PodReasonDeferred}}
	h := newHarness(t, nil, []string{"default"}, nodes, append(objs, pod)...)
	pl := h.plugins[0]
	cs := framework.NewCycleState()
	if _, st := pl.PreFilter(h.ctx, cs, pod, h.nodes); !st.IsSkip() {
		t.Errorf("PreFilter = %v, want Skip", st)
	}
	if st := pl.Reserve(h.ctx, cs, pod, "big"); !st.IsSuccess() {
		t.Errorf("Reserve after the skip = %v, want success doing nothing", st)
	}
	if claim := h.claim(testNamespace, "cpus"); claim.Status.Allocation != nil {
		t.Errorf("the skipped pod's claim got allocated: %+v", claim.Status.Allocation)
	}

	// Without the gate such a pod is scheduled as any other.
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.InPlacePodVerticalScalingSchedulerPreemption, false)
	h = newHarness(t, nil, []string{"default"}, nodes, append(objs, pod)...)
	if _, st := h.plugins[0].PreFilter(h.ctx, framework.NewCycleState(), pod, h.nodes); st.IsSkip() {
		t.Error("PreFilter skipped the pod with the gate off")
	}
}

func TestAPodGroupTrialOfAPodWithCPUDevicesIsRevertedWithoutRetriesOrAPIWrites(t *testing.T) {
	withPodGroups(t, false)
	pod := cpuPod("member", "1")
	pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("train")}
	h, pl := cpuHarness(t, pod, trainGroup())
	c, st := h.filterInGroup(pl, pod, framework.NewCycleState())
	if st != nil || len(c.feasible) == 0 {
		t.Fatalf("the member fits on %v (PreFilter %v)", c.feasible, st)
	}
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	if _, ok := pl.ledger.entries[pod.UID]; !ok {
		t.Error("the trial Reserve recorded no ledger entry: the next members would not see the cpu it takes")
	}
	activated := h.activated.Load()
	writes := len(h.client.Actions())
	pl.requeue.seen(cpuPod("waiting", "1"))
	c.unreserve()
	if _, ok := pl.ledger.entries[pod.UID]; ok {
		t.Error("the reverted trial left its ledger entry")
	}
	if got := h.activated.Load() - activated; got != 0 {
		t.Errorf("reverting the trial retried %d pods, want none (nothing was freed)", got)
	}
	for _, a := range h.client.Actions()[writes:] {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			t.Errorf("reverting the trial wrote to the API server: %s %s/%s", a.GetVerb(), a.GetResource().Resource, a.GetSubresource())
		}
	}
}

func TestAFailedStatusPatchFailsPreBindNamingThePodAndIsClearedOnUnreserve(t *testing.T) {
	pod := cpuPod("p", "1")
	h, pl := cpuHarness(t, pod)
	c, st := h.filter(pl, pod)
	if st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	var patches []string
	h.client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		patch := action.(k8stesting.PatchAction)
		patches = append(patches, string(patch.GetPatch()))
		if len(patches) == 1 {
			return true, nil, errors.New("etcd is on fire")
		}
		return false, nil, nil
	})
	st = pl.PreBind(h.ctx, c.state, pod, "big")
	if st.Code() != fwk.Error || !strings.Contains(st.Message(), "updating pod test/p NodeAllocatableResourceClaimStatuses") || !strings.Contains(st.Message(), "etcd is on fire") {
		t.Errorf("PreBind = %v, want an error naming the pod and the cause", st)
	}
	c.unreserve()
	// The failed patch may have landed: Unreserve clears it, with the
	// pod's UID as a precondition.
	want := `{"metadata":{"uid":"pod-p"},"status":{"nodeAllocatableResourceClaimStatuses":[]}}`
	if len(patches) != 2 || patches[1] != want {
		t.Errorf("pod patches %q, want the failed one, then %s", patches, want)
	}
}

func TestAssignedPodEventsAreRegisteredForNodeAllocatableResourcesAndPreemption(t *testing.T) {
	registered := func(h *harness) fwk.ActionType {
		events, err := h.plugins[0].EventsToRegister(h.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events {
			if ev.Event.Resource == fwk.AssignedPod && ev.QueueingHintFn != nil {
				return ev.Event.ActionType
			}
		}
		return 0
	}
	nodes, objs := cpuDeviceCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	h.plugins[0].args.Preemption = config.PreemptionDisabled
	if got := registered(h); got != 0 {
		t.Errorf("assigned-pod events %v registered with the gate off and preemption disabled (the in-tree plugin's list has none)", got)
	}
	h.plugins[0].args.Preemption = config.PreemptionEnabled
	if got := registered(h); got != fwk.Delete {
		t.Errorf("assigned-pod events %v registered with preemption, want deletions", got)
	}
	withNodeAllocatable(t)
	h = newHarness(t, nil, []string{"default"}, nodes, objs...)
	if got := registered(h); got != fwk.Add|fwk.Delete {
		t.Errorf("assigned-pod events %v registered with the gate on, want additions and deletions", got)
	}
	// The registered hint is the one that queues only pods short of node
	// resources.
	short := cpuPod("short", "1")
	h.plugins[0].shortOfNodeResources.add(short.UID)
	if hint, _ := hintFor(t, h, fwk.AssignedPod)(klog.Background(), short, nil, nil); hint != fwk.Queue {
		t.Errorf("the registered hint for a pod short of node resources = %v, want Queue", hint)
	}
}
