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

// Upstream's bugs of the in-tree DynamicResources plugin of Kubernetes
// 1.33–1.37 (issue 56 point 5, the plugin's half; pkg/allocator's
// upstreambugs_test.go has the allocator's), each reproduced against
// DRAAllocator through the harness and named for the symptom, so that a
// test fails if the symptom ever appears here. This file has the shared
// helpers and the bugs of one pod at a time: a device given to two claims
// under rapid scheduling (kubernetes#133602), a claim deleted with its
// allocation unseen (#140831), a terminal pod put back into reservedFor
// (#141274). upstreambugs_podgroup_test.go has those of pods of a
// PodGroup sharing a claim (#140053, #139417, #140263).

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	cgotesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// ubEnforceResourceVersions makes the harness's clientset refuse, as the
// API server does, an update of a claim (spec or status) written from a
// copy older than the stored one; it returns the number of updates
// refused. The fake clientset alone takes any write.
func ubEnforceResourceVersions(h *harness) func() int {
	var mu sync.Mutex
	refused := 0
	gvr := resourceapi.SchemeGroupVersion.WithResource("resourceclaims")
	h.client.PrependReactor("update", "resourceclaims", func(action cgotesting.Action) (bool, runtime.Object, error) {
		obj, err := meta.Accessor(action.(cgotesting.UpdateAction).GetObject())
		if err != nil || obj.GetResourceVersion() == "" {
			return false, nil, nil // an unconditional update
		}
		stored, err := h.client.Tracker().Get(gvr, action.GetNamespace(), obj.GetName())
		if err != nil {
			return false, nil, nil
		}
		if current, _ := meta.Accessor(stored); current.GetResourceVersion() != obj.GetResourceVersion() {
			mu.Lock()
			refused++
			mu.Unlock()
			return true, nil, apierrors.NewConflict(gvr.GroupResource(), obj.GetName(), fmt.Errorf("version %s is not the stored %s", obj.GetResourceVersion(), current.GetResourceVersion()))
		}
		return false, nil, nil
	})
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return refused
	}
}

// ubCluster is nodes nodes ("node-1"…) with devices devices each and an
// unallocated one-device claim per name.
func ubCluster(nodes, devices int, claims ...string) ([]*v1.Node, []runtime.Object) {
	var ns []*v1.Node
	objs := []runtime.Object{objects.DeviceClass(testDriver, testDriver)}
	for n := 1; n <= nodes; n++ {
		name := fmt.Sprintf("node-%d", n)
		ns = append(ns, objects.MakeNode(name).Obj())
		slice := objects.MakeSlice(name, testDriver, name)
		for d := range devices {
			slice = slice.Device(fmt.Sprintf("dev-%d", d), nil)
		}
		objs = append(objs, slice.Obj())
	}
	for _, name := range claims {
		objs = append(objs, objects.Claim(name, testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	}
	return ns, objs
}

// ubSchedule runs a pod's scheduling cycle in pl up to Reserve and reports
// whether it was reserved on a node.
func ubSchedule(t *testing.T, h *harness, pl *DRAAllocator, pod *v1.Pod) (*cycle, bool) {
	t.Helper()
	c, st := h.filter(pl, pod)
	if st != nil || len(c.feasible) == 0 {
		return c, false
	}
	return c, c.reserve().IsSuccess()
}

// ubDevicesTwice lists the devices the stored claims' allocations give to
// more than one claim, and counts the allocated claims.
func ubDevicesTwice(t *testing.T, h *harness) (twice []string, allocated int) {
	t.Helper()
	claims, err := h.client.ResourceV1().ResourceClaims(testNamespace).List(h.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	holders := map[string][]string{}
	for _, claim := range claims.Items {
		if claim.Status.Allocation == nil {
			continue
		}
		allocated++
		for _, r := range claim.Status.Allocation.Devices.Results {
			id := r.Pool + "/" + r.Device
			holders[id] = append(holders[id], claim.Name)
		}
	}
	for id, names := range holders {
		if len(names) > 1 {
			twice = append(twice, id+" in "+strings.Join(names, ", "))
		}
	}
	return twice, allocated
}

// TestADeviceIsNeverAllocatedToTwoClaimsWhenPodsAreScheduledRapidly:
// kubernetes#133602 (fixed by #136269). Scheduling many pods very rapidly,
// the in-tree plugin sometimes allocated one device to two claims: a
// claim's in-flight allocation ended once PreBind had written it, before
// the data the next cycle built its allocator from had the written claim,
// so for a moment the device looked free. Each round here schedules more
// one-device pods than there are devices, in two profiles, binding each
// in its own goroutine while the next pods are scheduled, as the
// scheduler does; the next pod's cycle follows a PreBind at once. We
// assert that no device is in two stored allocations and that exactly as
// many claims as devices got one.
func TestADeviceIsNeverAllocatedToTwoClaimsWhenPodsAreScheduledRapidly(t *testing.T) {
	const nodes, devices, pods, rounds = 2, 3, 10, 5
	for round := range rounds {
		var names []string
		for i := range pods {
			names = append(names, fmt.Sprintf("c%d", i))
		}
		ns, objs := ubCluster(nodes, devices, names...)
		h := newHarness(t, nil, []string{"a", "b"}, ns, objs...)
		var wg sync.WaitGroup
		errs := make(chan string, pods)
		for i, name := range names {
			pl := h.plugins[i%2]
			c, reserved := ubSchedule(t, h, pl, claimPod(name))
			if !reserved {
				continue
			}
			bind := func() {
				if st := pl.PreBind(h.ctx, c.state, c.pod, c.feasible[0]); !st.IsSuccess() {
					errs <- fmt.Sprintf("PreBind of pod %s: %v", c.pod.Name, st)
					c.unreserve()
				}
			}
			if i%2 == 0 {
				// The next pod's cycle follows this PreBind at once.
				bind()
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				bind()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %s", round, err)
		}
		twice, allocated := ubDevicesTwice(t, h)
		if len(twice) > 0 {
			t.Errorf("round %d: devices allocated to two claims: %v", round, twice)
		}
		if allocated != nodes*devices {
			t.Errorf("round %d: %d claims allocated, want %d, one per device", round, allocated, nodes*devices)
		}
	}
}

// TestAPodWaitingForADeviceIsRetriedWhenTheClaimHoldingItIsDeletedAllocated:
// kubernetes#140831. A pod waits, unschedulable, for the device of an
// allocated claim. When the update that removed the claim's allocation is
// missed and only its deletion is seen (with the allocation, or as a
// tombstone whose final state is unknown), the in-tree queueing hint
// skipped the waiting pods, which stayed pending until the unschedulable
// pool was flushed. We delete the allocated claim without a deallocation
// and assert that the claim event's hints (pre-queueing and queueing)
// queue the waiting pod, that the plugin itself retries it once its
// copies have the deletion, and that it is then placed on the freed
// device.
func TestAPodWaitingForADeviceIsRetriedWhenTheClaimHoldingItIsDeletedAllocated(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SchedulerPreQueueingHints, true)
	nodes, objs := oneDeviceCluster("holder", "waiter")
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	holder, reserved := ubSchedule(t, h, pl, claimPod("holder"))
	if !reserved {
		t.Fatal("the holder's pod was not reserved")
	}
	if st := pl.PreBind(h.ctx, holder.state, holder.pod, "node-1"); !st.IsSuccess() {
		t.Fatalf("PreBind of the holder's pod: %v", st)
	}
	allocated := ubStoredClaim(t, h, "holder")
	h.eventually("the assume cache to have the holder's allocation", func() bool {
		return h.claim(testNamespace, "holder").ResourceVersion == allocated.ResourceVersion
	})
	waiting := claimPod("waiter")
	if c, st := h.filter(pl, waiting); st != nil || len(c.feasible) != 0 {
		t.Fatalf("the waiting pod fits on %v (PreFilter: %v), want no node while the holder has the device", c.feasible, st)
	}

	activated := h.activated.Load()
	if err := h.client.ResourceV1().ResourceClaims(testNamespace).Delete(h.ctx, "holder", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var preHint fwk.PreQueueingHintFn
	events, err := pl.EventsToRegister(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if ev.Event.Resource == fwk.ResourceClaim {
			preHint = ev.PreQueueingHintFn
		}
	}
	hint := hintFor(t, h, fwk.ResourceClaim)
	for _, deleted := range []struct {
		name string
		obj  any
	}{
		{"seen with its allocation", allocated},
		{"as a tombstone", cache.DeletedFinalStateUnknown{Key: testNamespace + "/holder", Obj: allocated}},
	} {
		if preHint == nil {
			t.Fatal("claim events have no pre-queueing hint with SchedulerPreQueueingHints on")
		}
		concerned, err := preHint(klog.Background(), deleted.obj, nil)
		if err != nil || !concerned.AllPods && !containsPod(concerned.Pods, waiting) {
			t.Errorf("the pre-queueing hint of the claim deleted %s: %+v, %v; want the waiting pod concerned", deleted.name, concerned, err)
		}
		if got, err := hint(klog.Background(), waiting, deleted.obj, nil); got != fwk.Queue || err != nil {
			t.Errorf("the queueing hint of the claim deleted %s: %v, %v; want Queue", deleted.name, got, err)
		}
	}
	h.eventually("the plugin to retry the waiting pod", func() bool { return h.activated.Load() > activated })
	if c, st := h.filter(pl, waiting); st != nil || len(c.feasible) != 1 {
		t.Errorf("the retried pod fits on %v (PreFilter: %v), want node-1, whose device the deleted claim held", c.feasible, st)
	}
}

// containsPod reports whether pods names pod.
func containsPod(pods []types.NamespacedName, pod *v1.Pod) bool {
	for _, p := range pods {
		if p.Namespace == pod.Namespace && p.Name == pod.Name {
			return true
		}
	}
	return false
}

// TestPreBindNeverPutsATerminalPodBackIntoReservedFor: kubernetes#141274.
// A terminal pod that still names a shared, allocated claim another pod
// keeps in use was put back into the claim's reservedFor after its
// reservation had been removed (the in-tree claim controller reserved it
// again as a pre-scheduled pod), and the two writers alternated. The
// plugin writes reservedFor only in PreBind, for the pod it binds, from a
// copy of the claim the cycle read before the terminal pod's reservation
// went. We assert that PreBind adds exactly its pod beside the live
// consumer, through a conflict with the newer claim, and that the
// terminal pod is not reserved again.
func TestPreBindNeverPutsATerminalPodBackIntoReservedFor(t *testing.T) {
	nodes, objs := oneDeviceCluster("shared")
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	refused := ubEnforceResourceVersions(h)
	done := claimPod("done")
	done.Spec.ResourceClaims[0].ResourceClaimName = ptr.To("shared")
	done.Spec.NodeName, done.Status.Phase = "node-1", v1.PodSucceeded
	live := consumer(claimPod("live"))
	claim := h.claim(testNamespace, "shared").DeepCopy()
	claim.Finalizers = []string{resourceapi.Finalizer}
	if _, err := h.client.ResourceV1().ResourceClaims(testNamespace).Update(h.ctx, claim, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	claim = ubStoredClaim(t, h, "shared")
	claim.Status.Allocation = allocationOf("node-1", "dev-0")
	claim.Status.Allocation.NodeSelector = objects.NodeSelectorFor("node-1")
	claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{consumer(done), live}
	h.updateClaimStatus(claim)

	next := claimPod("next")
	next.Spec.ResourceClaims[0].ResourceClaimName = ptr.To("shared")
	c, st := h.filter(pl, next)
	if st != nil || len(c.feasible) != 1 {
		t.Fatalf("the next pod fits on %v (PreFilter: %v), want node-1, where the shared claim is", c.feasible, st)
	}
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	// Meanwhile the terminal pod's reservation is removed.
	cleaned := ubStoredClaim(t, h, "shared")
	cleaned.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{live}
	if _, err := h.client.ResourceV1().ResourceClaims(testNamespace).UpdateStatus(h.ctx, cleaned, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := refused()
	if st := pl.PreBind(h.ctx, c.state, next, "node-1"); !st.IsSuccess() {
		t.Fatalf("PreBind: %v", st)
	}
	if refused() == before {
		t.Error("PreBind's write met no conflict: the test did not exercise a copy older than the stored claim")
	}
	got := ubReservedFor(ubStoredClaim(t, h, "shared"))
	if len(got) != 2 || got[0] != live.UID || got[1] != next.UID {
		t.Errorf("claim reserved for %v, want %v (the live consumer) and %v (the pod bound), not the terminal %v", got, live.UID, next.UID, done.UID)
	}
}
