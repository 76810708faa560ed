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

package allocator_test

import (
	"slices"
	"testing"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// TestPackingKeepsUpstreamsOrderBetweenDevicesOfEqualSize: devices with
// the same capacities tie in Packing's order, whatever order the map of
// their capacities is walked in, so every allocator takes the first of
// them in upstream's order — here GPU 0's whole-GPU profile of a free
// Dynamic MIG node. (The sizes were float sums in map order, unequal in
// the last bit, and fresh allocators over the same inputs picked
// different GPUs; TestConcurrentCallsAnswerAsASerialRunWhileTheTrackerChanges
// found it.)
func TestPackingKeepsUpstreamsOrderBetweenDevicesOfEqualSize(t *testing.T) {
	c := inventorygen.DynamicMIG(1, inventorygen.NvidiaGPUsPerNode)
	inv := inventory.New()
	for _, s := range c.Slices {
		inv.Set(s)
	}
	matcher := allocator.NewMatcher(nil)
	claims := []*resourceapi.ResourceClaim{inventorygen.MIGProfileClaim("whole", "7g.80gb")}
	want := []string{c.Nodes[0].Name + "/" + inventorygen.MIGDeviceName(0, "7g.80gb", 0, 0)}
	for i := range 50 {
		a := allocator.New(defaultFeatures, allocator.NewState(inv, inventorygen.Allocated{}.State()), c.ClassLister(), inv, matcher, allocator.Packing)
		results, err := a.Allocate(t.Context(), c.Nodes[0], claims)
		if err != nil {
			t.Fatalf("allocator %d: %v", i, err)
		}
		if got := devicesOf(results); !slices.Equal(got, want) {
			t.Fatalf("allocator %d took %v, want %v", i, got, want)
		}
	}
}
