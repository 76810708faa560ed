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
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

func (c fakeClaims) AssumeClaimAfterAPICall(*resourceapi.ResourceClaim) error { return nil }

func TestBindClaimRetriesAWriteConflictWithTheFreshClaim(t *testing.T) {
	alloc := &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
		Results: []resourceapi.DeviceRequestAllocationResult{{Request: "req", Driver: "d", Pool: "p", Device: "dev-0"}},
	}}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod", Namespace: "ns", UID: "pod-uid"}}
	for _, tc := range []struct {
		name string
		// meanwhile changes the stored claim when the first status write
		// is refused with a conflict.
		meanwhile func(*resourceapi.ResourceClaim)
		wantErr   string
		// wantReservedFor are the reservations afterwards, in order.
		wantReservedFor []types.UID
	}{
		{"a benign concurrent change is retried and the pod reserved once", func(c *resourceapi.ResourceClaim) {
			c.Labels = map[string]string{"touched": "yes"}
		}, "", []types.UID{pod.UID}},
		{"a claim allocated by someone else meanwhile is not overwritten", func(c *resourceapi.ResourceClaim) {
			c.Status.Allocation = alloc.DeepCopy()
			c.Status.Allocation.Devices.Results[0].Device = "dev-9"
		}, "got allocated elsewhere in the meantime", nil},
		{"the same allocation written meanwhile by a pod of the group sharing it gets just the pod's reservation", func(c *resourceapi.ResourceClaim) {
			c.Labels = map[string]string{"touched": "yes"}
			c.Finalizers = append(c.Finalizers, resourceapi.Finalizer)
			c.Status.Allocation = alloc.DeepCopy()
			c.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "sibling", UID: "sibling-uid"}}
		}, "", []types.UID{"sibling-uid", pod.UID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			metrics.Register()
			claim := objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", 1))
			claim.UID = "c-uid"
			client := fake.NewClientset(claim)
			conflicts := 0
			client.PrependReactor("update", "resourceclaims", func(action k8stesting.Action) (bool, runtime.Object, error) {
				if action.GetSubresource() != "status" || conflicts > 0 {
					return false, nil, nil
				}
				conflicts++
				stored, err := client.Tracker().Get(resourceapi.SchemeGroupVersion.WithResource("resourceclaims"), "ns", "c")
				if err != nil {
					return true, nil, err
				}
				changed := stored.(*resourceapi.ResourceClaim).DeepCopy()
				tc.meanwhile(changed)
				if err := client.Tracker().Update(resourceapi.SchemeGroupVersion.WithResource("resourceclaims"), changed, "ns"); err != nil {
					return true, nil, err
				}
				return true, nil, apierrors.NewConflict(resourceapi.Resource("resourceclaims"), "c", errors.New("the object has been modified"))
			})
			pl := &DRAAllocator{client: client, draManager: fakeDRAManager{claims: fakeClaims{}}, shared: &shared{tracker: allocator.NewTracker(structured.Features{})}}
			before, _ := testutil.GetCounterMetricValue(metrics.PreBindConflicts)

			updated, err := pl.bindClaim(t.Context(), claim, alloc, podConsumer(pod))
			if conflicts != 1 {
				t.Fatalf("%d conflicts injected, want 1", conflicts)
			}
			if after, _ := testutil.GetCounterMetricValue(metrics.PreBindConflicts); after-before != 1 {
				t.Errorf("prebind_conflicts_total grew by %v, want 1", after-before)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("bindClaim error %v, want one containing %q", err, tc.wantErr)
				}
				stored, _ := client.ResourceV1().ResourceClaims("ns").Get(t.Context(), "c", metav1.GetOptions{})
				if got := stored.Status.Allocation.Devices.Results[0].Device; got != "dev-9" || len(stored.Status.ReservedFor) != 0 {
					t.Errorf("stored claim has device %s and reservedFor %v, want the other allocation untouched", got, stored.Status.ReservedFor)
				}
				return
			}
			if err != nil {
				t.Fatalf("bindClaim: %v", err)
			}
			stored, _ := client.ResourceV1().ResourceClaims("ns").Get(t.Context(), "c", metav1.GetOptions{})
			for _, c := range []*resourceapi.ResourceClaim{updated, stored} {
				if c.Labels["touched"] != "yes" {
					t.Errorf("the concurrent change was lost: labels %v", c.Labels)
				}
				if c.Status.Allocation == nil || c.Status.Allocation.Devices.Results[0].Device != "dev-0" {
					t.Errorf("allocation %+v, want dev-0", c.Status.Allocation)
				}
				var got []types.UID
				for _, r := range c.Status.ReservedFor {
					got = append(got, r.UID)
				}
				if !slices.Equal(got, tc.wantReservedFor) {
					t.Errorf("reservedFor %v, want %v", got, tc.wantReservedFor)
				}
				if !hasFinalizer(c) {
					t.Errorf("finalizers %v lack %s", c.Finalizers, resourceapi.Finalizer)
				}
			}
		})
	}
}

func hasFinalizer(c *resourceapi.ResourceClaim) bool {
	for _, f := range c.Finalizers {
		if f == resourceapi.Finalizer {
			return true
		}
	}
	return false
}
