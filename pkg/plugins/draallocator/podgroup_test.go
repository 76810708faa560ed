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
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// groupPod is a pod of PodGroup "train" using claim "gang" under the
// pod's claim entry "gpus".
func groupPod(name string) *v1.Pod {
	pod := objects.MakePod(name, testNamespace).Claim("gpus", "gang").Obj()
	pod.UID = types.UID("pod-" + name)
	pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("train")}
	return pod
}

// trainGroup is PodGroup "train", declaring claim "gang" as "gpus".
func trainGroup() *schedulingapi.PodGroup {
	return &schedulingapi.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: testNamespace, UID: "podgroup-train"},
		Spec: schedulingapi.PodGroupSpec{ResourceClaims: []schedulingapi.PodGroupResourceClaim{
			{Name: "gpus", ResourceClaimName: ptr.To("gang")},
		}},
	}
}

// twoNodeGangCluster has two nodes with three devices each and claim
// "gang" for two devices.
func twoNodeGangCluster() ([]*v1.Node, []runtime.Object) {
	return []*v1.Node{objects.MakeNode("node-1").Obj(), objects.MakeNode("node-2").Obj()}, []runtime.Object{
		objects.DeviceClass(testDriver, testDriver),
		objects.MakeSlice("node-1", testDriver, "node-1").Device("dev-0", nil).Device("dev-1", nil).Device("dev-2", nil).Obj(),
		objects.MakeSlice("node-2", testDriver, "node-2").Device("dev-0", nil).Device("dev-1", nil).Device("dev-2", nil).Obj(),
		objects.Claim("gang", testNamespace, objects.ClaimSpec("dev", testDriver, 2)),
		trainGroup(),
	}
}

// withPodGroups turns GenericWorkload on, and DRAWorkloadResourceClaims
// if claimsForGroups is set, for the plugins the test builds.
func withPodGroups(t testing.TB, claimsForGroups bool) {
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
		features.GenericWorkload:           true,
		features.DRAWorkloadResourceClaims: claimsForGroups,
	})
}

func TestPodsOfAPodGroupCycleShareTheirClaimsPendingAllocation(t *testing.T) {
	withPodGroups(t, false)
	nodes, objs := twoNodeGangCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	gang := h.claim(testNamespace, "gang")
	group := framework.NewCycleState()

	first, st := h.filterInGroup(pl, groupPod("a"), group)
	if st != nil || len(first.feasible) != 2 {
		t.Fatalf("first pod fits on %v (PreFilter: %v), want both nodes", first.feasible, st)
	}
	if st := first.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve of the first pod: %v", st)
	}
	pending := h.manager.ResourceClaims().GetPendingAllocation(gang.UID)
	if pending == nil {
		t.Fatal("the first pod's Reserve left no pending allocation")
	}

	second, st := h.filterInGroup(pl, groupPod("b"), group)
	if st != nil {
		t.Fatalf("PreFilter of the second pod of the cycle: %v, want it to share the pending allocation", st)
	}
	if want := []string{first.feasible[0]}; len(second.feasible) != 1 || second.feasible[0] != want[0] {
		t.Fatalf("second pod fits on %v, want only %v, where the shared devices are", second.feasible, want)
	}
	if st := second.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve of the second pod: %v", st)
	}

	// A pod outside the cycle waits, as the in-tree plugin's does.
	outsider, st := h.filter(pl, groupPod("c"))
	if st == nil || !strings.Contains(st.Message(), "is in the process of being allocated") {
		t.Errorf("PreFilter outside the pod-group cycle: %v (fits on %v), want the claim reported as being allocated", st, outsider.feasible)
	}

	// The cycle ends: the framework reverts every trial reservation. The
	// allocation stays in flight until its last sharer is unreserved, and
	// nobody is requeued: no devices were really freed.
	activated := h.activated.Load()
	first.unreserve()
	if h.manager.ResourceClaims().GetPendingAllocation(gang.UID) == nil {
		t.Fatal("unreserving one of two sharers ended the pending allocation")
	}
	second.unreserve()
	if h.manager.ResourceClaims().GetPendingAllocation(gang.UID) != nil {
		t.Fatal("the pending allocation outlived its last sharer")
	}
	if g, err := readGroupState(group); err != nil || len(g.pending) != 0 {
		t.Errorf("pod-group cycle state after the revert: %+v (%v), want no pending claims", g, err)
	}
	if got := h.activated.Load() - activated; got != 0 {
		t.Errorf("reverting the trial retried %d pods, want none", got)
	}

	// Binding phase: each pod is reserved again, outside the cycle.
	for _, c := range []*cycle{first, second} {
		c.state.(*framework.CycleState).SetPodGroupSchedulingCycle(nil)
		if st := c.reserve(); !st.IsSuccess() {
			t.Fatalf("Reserve of pod %s for binding: %v", c.pod.Name, st)
		}
	}
	if h.manager.ResourceClaims().GetPendingAllocation(gang.UID) == nil {
		t.Fatal("no pending allocation after the pods were reserved for binding")
	}
	if st := pl.PreBind(h.ctx, first.state, first.pod, first.feasible[0]); !st.IsSuccess() {
		t.Fatalf("PreBind of the first pod: %v", st)
	}
	written, err := h.client.ResourceV1().ResourceClaims(testNamespace).Get(h.ctx, "gang", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if written.Status.Allocation == nil || len(written.Status.Allocation.Devices.Results) != 2 {
		t.Fatalf("claim after PreBind: allocation %v, want two devices", written.Status.Allocation)
	}
	if sel := written.Status.Allocation.NodeSelector; sel == nil || !strings.Contains(sel.String(), first.feasible[0]) {
		t.Errorf("allocation's node selector %v, want node %s", sel, first.feasible[0])
	}
}

func TestReserveForAPodGroupReservesTheClaimsThePodGroupDeclaresForIt(t *testing.T) {
	withPodGroups(t, true)
	nodes, objs := twoNodeGangCluster()
	own := objects.Claim("own", testNamespace, objects.ClaimSpec("dev", testDriver, 1))
	h := newHarness(t, nil, []string{"default"}, nodes, append(objs, own)...)
	pl := h.plugins[0]

	pod := groupPod("a")
	pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, v1.PodResourceClaim{Name: "own", ResourceClaimName: ptr.To("own")})
	c, st := h.filter(pl, pod)
	if st != nil || len(c.feasible) == 0 {
		t.Fatalf("pod fits on %v (PreFilter: %v)", c.feasible, st)
	}
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	if st := pl.PreBind(h.ctx, c.state, pod, c.feasible[0]); !st.IsSuccess() {
		t.Fatalf("PreBind: %v", st)
	}
	for _, tc := range []struct {
		claim string
		want  resourceapi.ResourceClaimConsumerReference
	}{
		{"gang", resourceapi.ResourceClaimConsumerReference{APIGroup: schedulingapi.GroupName, Resource: "podgroups", Name: "train", UID: "podgroup-train"}},
		{"own", resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: "a", UID: pod.UID}},
	} {
		claim, err := h.client.ResourceV1().ResourceClaims(testNamespace).Get(h.ctx, tc.claim, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r := claim.Status.ReservedFor; len(r) != 1 || r[0] != tc.want {
			t.Errorf("claim %s reserved for %+v, want exactly %+v", tc.claim, r, tc.want)
		}
	}

	// Another pod of the group finds the claim reserved for its group.
	other, st := h.filter(pl, groupPod("b"))
	if st != nil || len(other.feasible) != 1 || other.feasible[0] != c.feasible[0] {
		t.Fatalf("another pod of the group fits on %v (PreFilter: %v), want %s", other.feasible, st, c.feasible[0])
	}
	if st := pl.PreBind(h.ctx, other.state, other.pod, other.feasible[0]); !st.IsSuccess() {
		t.Fatalf("PreBind of another pod of the group: %v", st)
	}
	claim, err := h.client.ResourceV1().ResourceClaims(testNamespace).Get(h.ctx, "gang", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(claim.Status.ReservedFor) != 1 {
		t.Errorf("claim reserved for %+v after a second pod of the group, want the group once", claim.Status.ReservedFor)
	}
}

func TestAPodOfAGroupWithoutItsPodGroupIsUnschedulable(t *testing.T) {
	withPodGroups(t, true)
	nodes, objs := twoNodeGangCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs[:len(objs)-1]...) // no PodGroup
	pl := h.plugins[0]
	_, st := h.filter(pl, groupPod("a"))
	if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "PodGroup of pod test/a") {
		t.Errorf("PreFilter: %v, want UnschedulableAndUnresolvable naming the missing PodGroup", st)
	}
}

// podGroupInfo is the framework's view of a pod group in a pod-group
// cycle, for PodGroupPostFilter.
type podGroupInfo struct {
	group *schedulingapi.PodGroup
	kind  fwk.EntityKeyType
	pods  []*v1.Pod
}

func (i *podGroupInfo) GetUnscheduledPods() []*v1.Pod                               { return i.pods }
func (i *podGroupInfo) GetName() string                                             { return i.group.Name }
func (i *podGroupInfo) GetNamespace() string                                        { return i.group.Namespace }
func (i *podGroupInfo) GetType() fwk.EntityKeyType                                  { return i.kind }
func (i *podGroupInfo) GetKey() string                                              { return i.group.Namespace + "/" + i.group.Name }
func (i *podGroupInfo) GetPodGroup() *schedulingapi.PodGroup                        { return i.group }
func (i *podGroupInfo) GetChildren() []fwk.PodGroupInfo                             { return nil }
func (i *podGroupInfo) GetCompositePodGroup() *schedulingv1alpha3.CompositePodGroup { return nil }

func TestPodGroupPostFilter(t *testing.T) {
	for _, tc := range []struct {
		name string
		// gate is DRAWorkloadResourceClaims.
		gate bool
		kind fwk.EntityKeyType
		// reservedFor is the stranded group claim's reservation.
		reservedFor []resourceapi.ResourceClaimConsumerReference
		wantMessage string
		wantCode    fwk.Code
		// wantAllocated and wantReservedFor describe claim "gang" after,
		// wantWrites how often PodGroupPostFilter wrote it.
		wantAllocated   bool
		wantReservedFor int
		wantWrites      int
	}{
		{
			name: "a claim of the pods that no node could use, reserved for nobody, is deallocated once, as PostFilter would",
			kind: fwk.PodGroupKeyType, wantCode: fwk.Unschedulable, wantMessage: "deallocation and deletion of ResourceClaims completed",
			wantWrites: 1,
		},
		{
			name: "a composite pod group is left alone",
			kind: fwk.CompositePodGroupKeyType, wantCode: fwk.Unschedulable, wantAllocated: true,
		},
		{
			name: "a claim reserved for the PodGroup is not freed without DRAWorkloadResourceClaims",
			kind: fwk.PodGroupKeyType, wantCode: fwk.Unschedulable, wantMessage: "deallocation and deletion of ResourceClaims completed",
			reservedFor:   []resourceapi.ResourceClaimConsumerReference{{APIGroup: schedulingapi.GroupName, Resource: "podgroups", Name: "train", UID: "podgroup-train"}},
			wantAllocated: true, wantReservedFor: 1,
		},
		{
			name: "with DRAWorkloadResourceClaims a claim no node could use that only the PodGroup holds is deallocated",
			gate: true, kind: fwk.PodGroupKeyType, wantCode: fwk.Unschedulable, wantMessage: "deallocation of PodGroup ResourceClaim completed",
			reservedFor: []resourceapi.ResourceClaimConsumerReference{{APIGroup: schedulingapi.GroupName, Resource: "podgroups", Name: "train", UID: "podgroup-train"}},
			wantWrites:  1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPodGroups(t, tc.gate)
			nodes, objs := twoNodeGangCluster()
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			pl := h.plugins[0]
			claim := h.claim(testNamespace, "gang").DeepCopy()
			claim.Status.Allocation = allocationOf("gone", "dev-0")
			claim.Status.Allocation.NodeSelector = objects.NodeSelectorFor("gone")
			claim.Status.ReservedFor = tc.reservedFor
			h.updateClaimStatus(claim)

			group := framework.NewCycleState()
			var pods []*v1.Pod
			for _, name := range []string{"a", "b"} {
				c, st := h.filterInGroup(pl, groupPod(name), group)
				if st != nil || len(c.feasible) != 0 {
					t.Fatalf("pod %s fits on %v (PreFilter: %v), want no node", name, c.feasible, st)
				}
				pods = append(pods, c.pod)
			}
			info := &podGroupInfo{group: trainGroup(), kind: tc.kind, pods: pods}
			before := len(h.client.Actions())
			_, st := pl.PodGroupPostFilter(h.ctx, group, info, nil)
			writes := 0
			for _, a := range h.client.Actions()[before:] {
				if a.GetResource().Resource == "resourceclaims" && (a.GetVerb() == "update" || a.GetVerb() == "patch") {
					writes++
				}
			}
			if writes != tc.wantWrites {
				t.Errorf("PodGroupPostFilter wrote claims %d times, want %d", writes, tc.wantWrites)
			}
			if st.Code() != tc.wantCode || !strings.Contains(st.Message(), tc.wantMessage) {
				t.Errorf("PodGroupPostFilter: %v, want %v saying %q", st, tc.wantCode, tc.wantMessage)
			}
			after, err := h.client.ResourceV1().ResourceClaims(testNamespace).Get(h.ctx, "gang", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := after.Status.Allocation != nil; got != tc.wantAllocated || len(after.Status.ReservedFor) != tc.wantReservedFor {
				t.Errorf("claim after PodGroupPostFilter: allocated %v, reserved for %v; want allocated %v, %d reservations",
					got, after.Status.ReservedFor, tc.wantAllocated, tc.wantReservedFor)
			}
		})
	}
}
