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
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// templatePod is a pod whose claim "dev" comes from a template, with the
// generated claim's name already in its status when generated is set.
func templatePod(name, generated string) *v1.Pod {
	pod := objects.MakePod(name, testNamespace).ClaimFromTemplate("dev", "template").Obj()
	pod.UID = types.UID("pod-template-" + name)
	if generated != "" {
		pod.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "dev", ResourceClaimName: ptr.To(generated)}}
	}
	return pod
}

func TestPreEnqueueWaitsForEveryClaimOfThePod(t *testing.T) {
	owned := ownedClaim("owned-dev", "owner")
	owned.OwnerReferences[0].UID = templatePod("owner", "").UID
	deleting := objects.Claim("deleting", testNamespace, objects.ClaimSpec("dev", testDriver, 1))
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	deleting.Finalizers = []string{"test.example.com/keep"}
	nodes, objs := oneDeviceCluster("ready")
	h := newHarness(t, nil, []string{"default"}, nodes, append(objs, owned, ownedClaim("stolen-dev", "someone-else"), deleting)...)
	pl := h.plugins[0]
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		want string // "" for success, else a part of the unschedulable message
	}{
		{"a pod whose named claim exists is enqueued", claimPod("ready"), ""},
		{"a pod without claims is enqueued", objects.MakePod("plain", testNamespace).Obj(), ""},
		{"a pod whose named claim does not exist waits", claimPod("missing"), `could not find resource claim "test/missing"`},
		{"a pod whose claim is being deleted waits", claimPod("deleting"), "is being deleted"},
		{"a template pod whose claim is not generated yet waits", templatePod("fresh", ""), "ResourceClaim not created yet"},
		{"a template pod whose generated claim it owns is enqueued", templatePod("owner", "owned-dev"), ""},
		{"a template pod whose status names another pod's claim waits", templatePod("thief", "stolen-dev"), "was not created for Pod test/thief"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := pl.PreEnqueue(h.ctx, tc.pod)
			switch {
			case tc.want == "" && !st.IsSuccess():
				t.Errorf("PreEnqueue: %v, want success", st)
			case tc.want != "" && (st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), tc.want)):
				t.Errorf("PreEnqueue: %v, want UnschedulableAndUnresolvable saying %q", st, tc.want)
			}
		})
	}
}

func TestPostFilterDeallocatesAClaimNoNodeCanUse(t *testing.T) {
	stranded := objects.Claim("stranded", testNamespace, objects.ClaimSpec("dev", testDriver, 1))
	shared := objects.Claim("shared", testNamespace, objects.ClaimSpec("dev", testDriver, 1))
	nodes, objs := oneDeviceCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, append(objs, stranded, shared)...)
	pl := h.plugins[0]
	// Both are allocated on a node that is gone; "shared" is also
	// reserved for another pod.
	for _, name := range []string{"stranded", "shared"} {
		claim := h.claim(testNamespace, name).DeepCopy()
		claim.Status.Allocation = allocationOf("gone", "dev-0")
		claim.Status.Allocation.NodeSelector = objects.NodeSelectorFor("gone")
		if name == "shared" {
			claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "other", UID: "pod-other"}}
		}
		h.updateClaimStatus(claim)
	}
	for _, tc := range []struct {
		name        string
		claim       string
		wantMessage string
		wantAlloc   bool
	}{
		{"a claim allocated where no node can use it, reserved for nobody, is deallocated", "stranded", "deallocation of ResourceClaim completed", false},
		{"a claim another pod has reserved stays allocated", "shared", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, st := h.filter(pl, claimPod(tc.claim))
			if st != nil || len(c.feasible) != 0 {
				t.Fatalf("pod fits on %v (PreFilter: %v), want no node", c.feasible, st)
			}
			_, st = pl.PostFilter(h.ctx, c.state, c.pod, nil)
			if st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), tc.wantMessage) {
				t.Errorf("PostFilter: %v, want Unschedulable saying %q", st, tc.wantMessage)
			}
			claim, err := h.client.ResourceV1().ResourceClaims(testNamespace).Get(h.ctx, tc.claim, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := claim.Status.Allocation != nil; got != tc.wantAlloc {
				t.Errorf("claim allocated after PostFilter: %v, want %v", got, tc.wantAlloc)
			}
		})
	}
}

func TestABindingTimeoutFailsPreBindNamingThePendingDeviceAndUnreserveUndoesIt(t *testing.T) {
	slice := objects.MakeSlice("node-1", testDriver, "node-1").Device("dev-0", nil).Obj()
	slice.Spec.Devices[0].BindingConditions = []string{"attached"}
	slice.Spec.Devices[0].BindingFailureConditions = []string{"attach-failed"}
	h := newHarness(t, nil, []string{"default"}, []*v1.Node{objects.MakeNode("node-1").Obj()},
		objects.DeviceClass(testDriver, testDriver), slice,
		objects.Claim("waiting", testNamespace, objects.ClaimSpec("dev", testDriver, 1)),
		objects.Claim("next", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	pl := h.plugins[0]
	pl.bindingPoll, pl.args.BindingTimeout.Duration = 20*time.Millisecond, 300*time.Millisecond

	c, st := h.filter(pl, claimPod("waiting"))
	if st != nil || len(c.feasible) != 1 {
		t.Fatalf("pod fits on %v (PreFilter: %v), want node-1", c.feasible, st)
	}
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	start := time.Now()
	st = pl.PreBind(h.ctx, c.state, c.pod, "node-1")
	want := "device binding timeout"
	pending := "(devices: claim test/waiting: " + testDriver + "/node-1/dev-0 pending=[attached])"
	if st.Code() != fwk.Error || !strings.Contains(st.Message(), want) || !strings.Contains(st.Message(), pending) {
		t.Errorf("PreBind: %v, want an error saying %q and naming the device as %q", st, want, pending)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("PreBind waited %v for a 300ms binding timeout", waited)
	}
	written, err := h.client.ResourceV1().ResourceClaims(testNamespace).Get(h.ctx, "waiting", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if written.Status.Allocation == nil || len(written.Status.ReservedFor) != 1 {
		t.Fatalf("PreBind wrote allocation %v and reservedFor %v, want both", written.Status.Allocation, written.Status.ReservedFor)
	}

	// The framework calls Unreserve after a failed PreBind: the pod's
	// reservation goes; the allocation stays for the next attempt, which
	// finds it timed out in Filter and deallocates it in PostFilter.
	c.unreserve()
	h.eventually("the pod's reservation to be removed", func() bool {
		claim, err := h.client.ResourceV1().ResourceClaims(testNamespace).Get(h.ctx, "waiting", metav1.GetOptions{})
		return err == nil && len(claim.Status.ReservedFor) == 0 && claim.Status.Allocation != nil
	})
	h.eventually("the assume cache to have the allocation without the reservation", func() bool {
		claim := h.claim(testNamespace, "waiting")
		return claim.Status.Allocation != nil && len(claim.Status.ReservedFor) == 0
	})
	retry, st := h.filter(pl, claimPod("waiting"))
	if st != nil || len(retry.feasible) != 0 {
		t.Fatalf("the retried pod fits on %v (PreFilter: %v), want nowhere: its allocation timed out", retry.feasible, st)
	}
	if _, st := pl.PostFilter(h.ctx, retry.state, retry.pod, nil); !strings.Contains(st.Message(), "deallocation of ResourceClaim completed") {
		t.Errorf("PostFilter: %v, want the timed-out claim deallocated", st)
	}
}
