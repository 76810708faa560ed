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
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// BenchmarkConsistencyCheck is one comparison of the consistency check
// (issue 41) at 5000 nodes × 8 H100 GPUs with every GPU allocated to a
// claim of its own (40,000 claims), nothing differing: "inventory" is
// inventory.Compare, "tracker" Tracker.Compare, "check" the whole
// comparison as a run makes it (listing the informers' objects, taint
// rules applied, both under the feed's lock). The inventory's lock is held
// for all of "check", the tracker's for "tracker". -test.benchtime=20x
// is enough.
func BenchmarkConsistencyCheck(b *testing.B) {
	const nodes = 5000
	cluster := inventorygen.NvidiaH100(nodes)
	sliceStore := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	claimStore := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	feed := newInventoryFeed(nil)
	feed.slices = resourcelisters.NewResourceSliceLister(sliceStore)
	tracker := allocator.NewTracker(structured.Features{})
	var claims []*resourceapi.ResourceClaim
	for _, s := range cluster.Slices {
		if err := sliceStore.Add(s); err != nil {
			b.Fatal(err)
		}
		feed.inv.Set(s)
		for _, d := range s.Spec.Devices {
			name := fmt.Sprintf("%s-%s", s.Spec.Pool.Name, d.Name)
			claim := &resourceapi.ResourceClaim{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name), ResourceVersion: "7"},
				Status: resourceapi.ResourceClaimStatus{Allocation: &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
					Results: []resourceapi.DeviceRequestAllocationResult{{Request: "gpu", Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name, Device: d.Name}},
				}}},
			}
			if err := claimStore.Add(claim); err != nil {
				b.Fatal(err)
			}
			tracker.SetClaim(claim)
			claims = append(claims, claim)
		}
	}
	if len(claims) != nodes*inventorygen.NvidiaGPUsPerNode {
		b.Fatalf("%d claims, want one per GPU", len(claims))
	}
	tracker.State(feed.inv)
	c := newConsistencyCheck(feed, tracker, resourcelisters.NewResourceClaimLister(claimStore),
		func(types.UID) bool { return false }, nil, nil)
	none := func(string) bool { return false }
	b.Run("inventory", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if got := feed.inv.Compare(cluster.Slices, none); len(got) != 0 {
				b.Fatalf("differences: %v", got[:1])
			}
		}
	})
	b.Run("tracker", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if got := tracker.Compare(feed.inv, claims, c.inFlight); len(got) != 0 {
				b.Fatalf("differences: %v", got[:1])
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			got, err := c.compare()
			if err != nil || len(got) != 0 {
				b.Fatalf("compare: %v, %d differences", err, len(got))
			}
		}
	})
}
