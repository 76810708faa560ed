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
	"sync"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	cgotesting "k8s.io/client-go/testing"
)

// TestAClaimDeletedBeforeItsWriteIsRecordedStaysDeleted: PreBind writes a
// claim's allocation, and before it records what it wrote, the claim is
// gone and the informer has said so — its pod was deleted meanwhile, and
// the resourceclaim controller removed the reservation, the allocation
// and the claim. The tracker must not bring the claim back: a claim the
// informer reported deleted would hold its device until the scheduler
// restarts, and the consistency check would report it ("held by ... in
// the tracker, claim deleted in the API").
func TestAClaimDeletedBeforeItsWriteIsRecordedStaysDeleted(t *testing.T) {
	var claimEvents atomic.Int64
	hooks := &Hooks{Enter: func(point string, _ *v1.Pod) {
		if point == pointClaimEvent {
			claimEvents.Add(1)
		}
	}}
	nodes, objs := oneDeviceCluster("first", "second")
	h := newHarness(t, hooks, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	pl.consistency.pause = noPause

	claims := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}
	var once sync.Once
	h.client.PrependReactor("update", "resourceclaims", func(action cgotesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "status" {
			return false, nil, nil
		}
		var written *resourceapi.ResourceClaim
		once.Do(func() {
			written = action.(cgotesting.UpdateAction).GetObject().(*resourceapi.ResourceClaim).DeepCopy()
			written.ResourceVersion = "1000"
			before := claimEvents.Load()
			if err := h.client.Tracker().Update(claims, written, written.Namespace); err != nil {
				t.Errorf("write the allocation: %v", err)
			}
			if err := h.client.Tracker().Delete(claims, written.Namespace, written.Name); err != nil {
				t.Errorf("delete the claim: %v", err)
			}
			// Both events handled: the device held, then free again.
			h.eventually("the plugin to see the claim allocated and deleted", func() bool {
				return claimEvents.Load() >= before+2 && pl.tracker.AllocatedState().AllocatedDevices.Len() == 0
			})
		})
		if written == nil {
			return false, nil, nil
		}
		return true, written, nil
	})

	c, st := h.filter(pl, claimPod("first"))
	if st != nil || len(c.feasible) != 1 {
		t.Fatalf("PreFilter %v, feasible %v", st, c.feasible)
	}
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	// PreBind's answer comes after the deletion; whatever PreBind makes
	// of it, the claim is gone.
	_ = pl.PreBind(h.ctx, c.state, c.pod, "node-1")
	if diffs := pl.consistency.run(h.ctx, triggerSignal); len(diffs) != 0 {
		t.Errorf("the tracker differs from the API after the deleted claim's write was recorded: %v", diffs)
	}
	if c, st := h.filter(pl, claimPod("second")); st != nil || len(c.feasible) != 1 {
		t.Errorf("the deleted claim's device is not free for the next pod: PreFilter %v, feasible %v", st, c.feasible)
	}
}
