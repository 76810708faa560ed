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

// Upstream's bugs of pods of a PodGroup sharing a claim's pending
// allocation through the binding phase (kubernetes#140053, #139417,
// #140263); upstreambugs_test.go has the file's overview and the other
// bugs.

import (
	"errors"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	cgotesting "k8s.io/client-go/testing"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// ubGroupCycle runs pods of PodGroup "train" (groupPod) through one
// pod-group cycle sharing claim "gang" and its revert, as the framework
// does, and returns their cycles ready for the binding phase (out of the
// pod-group cycle, not reserved yet). Every pod must fit on the node of the
// shared allocation.
func ubGroupCycle(t *testing.T, h *harness, pods ...*v1.Pod) []*cycle {
	t.Helper()
	pl := h.plugins[0]
	group := framework.NewCycleState()
	var cycles []*cycle
	for _, pod := range pods {
		c, st := h.filterInGroup(pl, pod, group)
		if st != nil || len(c.feasible) == 0 {
			t.Fatalf("pod %s of the pod-group cycle fits on %v (PreFilter: %v)", pod.Name, c.feasible, st)
		}
		if len(cycles) > 0 && c.feasible[0] != cycles[0].feasible[0] {
			t.Fatalf("pod %s fits on %v, want %s, where the shared allocation is", pod.Name, c.feasible, cycles[0].feasible[0])
		}
		if st := c.reserve(); !st.IsSuccess() {
			t.Fatalf("trial Reserve of pod %s: %v", pod.Name, st)
		}
		cycles = append(cycles, c)
	}
	// The cycle ends: the trial reservations are reverted, then each
	// pod's binding phase runs outside the cycle.
	for i := len(cycles) - 1; i >= 0; i-- {
		cycles[i].unreserve()
	}
	for _, c := range cycles {
		c.state.(*framework.CycleState).SetPodGroupSchedulingCycle(nil)
	}
	return cycles
}

// ubStoredClaim returns the claim as the API server has it.
func ubStoredClaim(t *testing.T, h *harness, name string) *resourceapi.ResourceClaim {
	t.Helper()
	claim, err := h.client.ResourceV1().ResourceClaims(testNamespace).Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return claim
}

// ubReservedFor lists the UIDs a claim is reserved for.
func ubReservedFor(claim *resourceapi.ResourceClaim) []types.UID {
	var uids []types.UID
	for _, r := range claim.Status.ReservedFor {
		uids = append(uids, r.UID)
	}
	return uids
}

// ubInformerHas waits until the scheduler's claim informer (not the assume
// cache) has the claim at version rv.
func ubInformerHas(h *harness, name, rv string) {
	h.t.Helper()
	lister := h.plugins[0].handle.SharedInformerFactory().Resource().V1().ResourceClaims().Lister()
	h.eventually("the claim informer to have claim "+name+" at version "+rv, func() bool {
		claim, err := lister.ResourceClaims(testNamespace).Get(name)
		return err == nil && claim.ResourceVersion == rv
	})
}

// TestPodsOfAPodGroupSharingAClaimBindInParallelWithoutAllocatedElsewhere:
// kubernetes#140053. Two pods of a PodGroup share an unallocated claim's
// pending allocation and run PreBind concurrently; the in-tree plugin
// fails the slower one with "claim got allocated elsewhere in the
// meantime" when it finds its sibling's write. We assert that both
// PreBinds succeed, the allocation is written once with the devices they
// share, each pod is reserved exactly once and nothing stays in flight.
func TestPodsOfAPodGroupSharingAClaimBindInParallelWithoutAllocatedElsewhere(t *testing.T) {
	withPodGroups(t, false)
	nodes, objs := twoNodeGangCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	refused := ubEnforceResourceVersions(h)
	gang := h.claim(testNamespace, "gang")
	cycles := ubGroupCycle(t, h, groupPod("a"), groupPod("b"))
	for _, c := range cycles {
		if st := c.reserve(); !st.IsSuccess() {
			t.Fatalf("Reserve of pod %s for binding: %v", c.pod.Name, st)
		}
	}
	shared := h.manager.ResourceClaims().GetPendingAllocation(gang.UID)
	if shared == nil {
		t.Fatal("no pending allocation after both pods were reserved for binding")
	}
	shared = shared.DeepCopy()

	statuses := make([]*fwk.Status, len(cycles))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range cycles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			statuses[i] = pl.PreBind(h.ctx, c.state, c.pod, c.feasible[0])
		}()
	}
	close(start)
	wg.Wait()
	for i, st := range statuses {
		if !st.IsSuccess() {
			t.Errorf("PreBind of pod %s: %v, want success", cycles[i].pod.Name, st)
		}
	}
	if refused() == 0 {
		t.Log("the PreBinds did not overlap: no write met a newer claim")
	}
	stored := ubStoredClaim(t, h, "gang")
	if stored.Status.Allocation == nil || !sameDevices(stored.Status.Allocation, shared) {
		t.Errorf("stored allocation %v, want the shared pending allocation %v", stored.Status.Allocation, shared)
	}
	if got := ubReservedFor(stored); len(got) != 2 || !(got[0] == "pod-a" && got[1] == "pod-b" || got[0] == "pod-b" && got[1] == "pod-a") {
		t.Errorf("claim reserved for %v, want pods a and b once each", got)
	}
	if h.manager.ResourceClaims().GetPendingAllocation(gang.UID) != nil {
		t.Error("the claim is still in flight after both pods were bound")
	}
}

// TestAPodOfAPodGroupReservedAfterItsSiblingWroteTheSharedAllocationBinds:
// kubernetes#140053 and #140263, in the order the framework runs a pod
// group's binding phase: it reserves each pod and starts its binding
// goroutine in turn, so a sibling's PreBind may have written the shared
// allocation before the next pod's Reserve. The in-tree plugin then
// recorded an in-flight allocation of a claim already allocated and later
// failed PreBind with "allocated elsewhere in the meantime". We assert
// that the later pod's Reserve and PreBind succeed, add its reservation
// beside its sibling's, and leave nothing in flight.
func TestAPodOfAPodGroupReservedAfterItsSiblingWroteTheSharedAllocationBinds(t *testing.T) {
	withPodGroups(t, false)
	nodes, objs := twoNodeGangCluster()
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	ubEnforceResourceVersions(h)
	pl := h.plugins[0]
	gang := h.claim(testNamespace, "gang")
	cycles := ubGroupCycle(t, h, groupPod("a"), groupPod("b"))
	a, b := cycles[0], cycles[1]
	if st := a.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve of pod a for binding: %v", st)
	}
	if st := pl.PreBind(h.ctx, a.state, a.pod, a.feasible[0]); !st.IsSuccess() {
		t.Fatalf("PreBind of pod a: %v", st)
	}
	if st := b.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve of pod b after its sibling wrote the shared allocation: %v, want success", st)
	}
	if st := pl.PreBind(h.ctx, b.state, b.pod, b.feasible[0]); !st.IsSuccess() {
		t.Fatalf("PreBind of pod b: %v, want success", st)
	}
	if got := ubReservedFor(ubStoredClaim(t, h, "gang")); len(got) != 2 || got[0] != "pod-a" || got[1] != "pod-b" {
		t.Errorf("claim reserved for %v, want pods a and b", got)
	}
	if h.manager.ResourceClaims().GetPendingAllocation(gang.UID) != nil {
		t.Error("the claim is in flight after both pods were bound")
	}
}

// TestAFailedPreBindAndItsUnreserveReleaseOneShareOfAPendingAllocation:
// kubernetes#139417. Pods of a PodGroup sharing a pending allocation count
// as its sharers; when one pod's PreBind failed, the in-tree plugin
// released its share in PreBind and again in Unreserve, so the allocation
// stopped being in flight while a sibling still needed it and its devices
// looked free. We assert that after the failed pod's PreBind and
// Unreserve the allocation is still in flight (the framework's record and
// the plugin's tracker: another claim cannot get those devices), and that
// the sibling then binds it.
func TestAFailedPreBindAndItsUnreserveReleaseOneShareOfAPendingAllocation(t *testing.T) {
	withPodGroups(t, false)
	nodes, objs := twoNodeGangCluster()
	// "big" needs all three devices of a node: it fits only on the node
	// the shared allocation does not hold.
	objs = append(objs, objects.Claim("big", testNamespace, objects.ClaimSpec("dev", testDriver, 3)))
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	ubEnforceResourceVersions(h)
	pl := h.plugins[0]
	gang := h.claim(testNamespace, "gang")
	cycles := ubGroupCycle(t, h, groupPod("a"), groupPod("b"))
	a, b := cycles[0], cycles[1]
	for _, c := range cycles {
		if st := c.reserve(); !st.IsSuccess() {
			t.Fatalf("Reserve of pod %s for binding: %v", c.pod.Name, st)
		}
	}
	held := a.feasible[0]

	// Pod a's PreBind fails on its first write of the claim.
	var failed sync.Once
	h.client.PrependReactor("update", "resourceclaims", func(cgotesting.Action) (bool, runtime.Object, error) {
		handled := false
		failed.Do(func() { handled = true })
		if handled {
			return true, nil, errors.New("injected API error")
		}
		return false, nil, nil
	})
	if st := pl.PreBind(h.ctx, a.state, a.pod, held); st.IsSuccess() {
		t.Fatal("PreBind of pod a succeeded despite the injected API error")
	}
	a.unreserve()

	if h.manager.ResourceClaims().GetPendingAllocation(gang.UID) == nil {
		t.Fatal("the pending allocation ended after one of its two sharers failed, want it kept for pod b")
	}
	outsider, st := h.filter(pl, claimPod("big"))
	if st != nil {
		t.Fatalf("PreFilter of a pod with another claim: %v", st)
	}
	if len(outsider.feasible) != 1 || outsider.feasible[0] == held {
		t.Errorf("a claim for a whole node fits on %v, want only the node other than %s, whose devices pod b holds", outsider.feasible, held)
	}

	if st := pl.PreBind(h.ctx, b.state, b.pod, held); !st.IsSuccess() {
		t.Fatalf("PreBind of pod b: %v", st)
	}
	stored := ubStoredClaim(t, h, "gang")
	if stored.Status.Allocation == nil || len(stored.Status.ReservedFor) != 1 || stored.Status.ReservedFor[0].UID != b.pod.UID {
		t.Errorf("claim after pod b's PreBind: allocation %v, reserved for %v; want allocated for pod b", stored.Status.Allocation, ubReservedFor(stored))
	}
	if h.manager.ResourceClaims().GetPendingAllocation(gang.UID) != nil {
		t.Error("the claim is still in flight after pod b was bound")
	}
}

// TestTheAssumeCacheKeepsAnAllocationPreBindWroteWhenUnreserveRuns:
// kubernetes#140263. The scheduler's assume cache ignores an informer
// copy no newer than the version it was told of (AssumeClaimAfterAPICall),
// so restoring a claim once the informer has caught up (AssumedClaimRestore)
// brings back the informer's previous, unallocated copy, and keeps it: the
// in-tree plugin did that when it released an in-flight allocation of a
// claim written meanwhile, and pods of the group then looped on
// "allocated elsewhere". Each case writes the shared claim (allocated and
// reserved for the PodGroup, which Unreserve leaves), lets the informer
// catch up, and ends an attempt with Unreserve: upstream's case (a
// sibling reserved after the write), and ours (a PreBind that wrote the
// claim and then failed on the pod's other claim, whose in-flight
// allocation Unreserve releases). We assert the assume cache still has
// the written allocation and another pod of the group is placed by it,
// not asked to allocate the claim again.
func TestTheAssumeCacheKeepsAnAllocationPreBindWroteWhenUnreserveRuns(t *testing.T) {
	for _, tc := range []struct {
		name string
		// attempt runs the attempt that ends in Unreserve once the claim is
		// written and the informer has it.
		attempt func(t *testing.T, h *harness, a, b *cycle)
		// failSecondClaim makes pod a's PreBind fail on its own claim,
		// after it wrote the shared one.
		failSecondClaim bool
	}{
		{
			name: "a sibling reserved after the claim was written is unreserved",
			attempt: func(t *testing.T, h *harness, a, b *cycle) {
				if st := b.reserve(); st.IsSuccess() {
					if st := h.plugins[0].PreBind(h.ctx, b.state, b.pod, b.feasible[0]); !st.IsSuccess() {
						t.Logf("PreBind of pod b: %v", st)
					}
				}
				b.unreserve()
			},
		},
		{
			name:            "the pod whose PreBind wrote the claim and then failed is unreserved",
			failSecondClaim: true,
			attempt:         func(t *testing.T, h *harness, a, b *cycle) { a.unreserve() },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPodGroups(t, true)
			nodes, objs := twoNodeGangCluster()
			objs = append(objs, objects.Claim("own-a", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			ubEnforceResourceVersions(h)
			pl := h.plugins[0]
			podA := groupPod("a")
			podA.Spec.ResourceClaims = append(podA.Spec.ResourceClaims, v1.PodResourceClaim{Name: "own", ResourceClaimName: ptr.To("own-a")})
			cycles := ubGroupCycle(t, h, podA, groupPod("b"))
			a, b := cycles[0], cycles[1]
			if tc.failSecondClaim {
				h.client.PrependReactor("update", "resourceclaims", func(action cgotesting.Action) (bool, runtime.Object, error) {
					if u, ok := action.(cgotesting.UpdateAction); ok && action.GetSubresource() == "status" {
						if c, ok := u.GetObject().(*resourceapi.ResourceClaim); ok && c.Name == "own-a" {
							return true, nil, errors.New("injected API error")
						}
					}
					return false, nil, nil
				})
			}
			if st := a.reserve(); !st.IsSuccess() {
				t.Fatalf("Reserve of pod a for binding: %v", st)
			}
			st := pl.PreBind(h.ctx, a.state, a.pod, a.feasible[0])
			if st.IsSuccess() == tc.failSecondClaim {
				t.Fatalf("PreBind of pod a: %v", st)
			}
			written := ubStoredClaim(t, h, "gang")
			if written.Status.Allocation == nil {
				t.Fatal("pod a's PreBind did not write the shared allocation")
			}
			ubInformerHas(h, "gang", written.ResourceVersion)

			tc.attempt(t, h, a, b)

			if got := h.claim(testNamespace, "gang"); got.Status.Allocation == nil || !sameDevices(got.Status.Allocation, written.Status.Allocation) {
				t.Errorf("the assume cache has claim gang at version %s with allocation %v, want the written one (version %s)", got.ResourceVersion, got.Status.Allocation, written.ResourceVersion)
			}
			c, st := h.filter(pl, groupPod("c"))
			if st != nil || len(c.feasible) != 1 || c.feasible[0] != a.feasible[0] {
				t.Errorf("another pod of the group fits on %v (PreFilter: %v), want only %s, where the claim is allocated", c.feasible, st, a.feasible[0])
			}
			s, err := getState(c.state)
			if err != nil {
				t.Fatal(err)
			}
			for _, pc := range s.claims {
				if pc.toAllocate || pc.reused {
					t.Errorf("another pod of the group would allocate claim %s again (toAllocate %v, reused %v)", pc.claim.Name, pc.toAllocate, pc.reused)
				}
			}
		})
	}
}
