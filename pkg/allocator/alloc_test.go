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
	"context"
	"testing"
	"time"

	"k8s.io/dynamic-resource-allocation/cel"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// TestAllocateOnAFreeNodeAllocatesOnlyTheResult: once caches are warm,
// allocating on a node where the claim fits costs the result and nothing
// else — one object for one device (result, device list and node selector
// in one block), three for several devices — so the search state lives on
// the stack or in pooled storage, never in fresh memory per node.
func TestAllocateOnAFreeNodeAllocatesOnlyTheResult(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector; make test checks them")
	}
	for _, shape := range benchShapes() {
		t.Run("a free node costs only the result for shape "+shape.Name, func(t *testing.T) {
			c := shape.Cluster(3)
			a := newShapeAllocator(c, 0)
			claims, node, ctx := shape.Claims(), c.Nodes[1], context.Background()
			res, err := a.Allocate(ctx, node, claims)
			if err != nil || len(res) != 1 {
				t.Fatalf("a free node must fit: got %v, %v", res, err)
			}
			want := 1.0
			if len(res[0].Devices.Results) > 1 {
				want = 3
			}
			if n := testing.AllocsPerRun(50, func() { _, _ = a.Allocate(ctx, node, claims) }); n != want {
				t.Errorf("%v allocations per Allocate on a free node, want %v (%d devices)", n, want, len(res[0].Devices.Results))
			}
		})
	}
}

// TestNoAllocationWhenNodeCannotFit: once caches are warm, checking a node
// whose devices are all taken allocates nothing, for plain devices,
// partitionable devices, constrained requests and shares of consumable
// capacity.
func TestNoAllocationWhenNodeCannotFit(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector; make test checks them")
	}
	shapes := benchShapes()
	// Shared NICs are full through their consumed capacity: each check of
	// a device computes its consumption, which must stay off the heap.
	for _, sc := range allocbench.Scenarios() {
		if sc.Name == "nic-shared" || sc.Name == "gpu-nic-pcie" {
			shapes = append(shapes, sc)
		}
	}
	if len(shapes) != len(benchShapes())+2 {
		t.Fatalf("allocbench no longer has the nic-shared and gpu-nic-pcie scenarios")
	}
	for _, shape := range shapes {
		t.Run("a full node costs no allocation for shape "+shape.Name, func(t *testing.T) {
			c := shape.Cluster(3)
			a := newShapeAllocator(c, 1)
			claims, node, ctx := shape.Claims(), c.Nodes[1], context.Background()
			res, err := a.Allocate(ctx, node, claims)
			if err != nil || res != nil {
				t.Fatalf("a full node must not fit: got %v, %v", res, err)
			}
			if n := testing.AllocsPerRun(50, func() { _, _ = a.Allocate(ctx, node, claims) }); n != 0 {
				t.Errorf("%v allocations per check of a full node, want 0", n)
			}
			if n := testing.AllocsPerRun(50, func() { _, _ = a.FitsWithin(ctx, node, claims, time.Minute) }); n != 0 {
				t.Errorf("%v allocations per FitsWithin on a full node, want 0", n)
			}
		})
	}
}

// newShapeAllocator returns a FirstFit allocator over a fresh inventory and
// matcher for cluster c, with the given fraction of its devices allocated.
func newShapeAllocator(c inventorygen.Cluster, occupancy float64) *allocator.Allocator {
	inv := inventory.New()
	for _, s := range c.Slices {
		inv.Set(s)
	}
	m := allocator.NewMatcher(cel.NewCache(10, cel.Features{EnableConsumableCapacity: true}))
	return allocator.New(defaultFeatures, allocator.NewState(inv, inventorygen.Occupancy(c, occupancy).State()), c.ClassLister(), inv, m, allocator.FirstFit)
}
