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
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// TestWhatIfMatchesARecomputation applies random what-if changes (some
// claims released on one node, others taken) to a State and compares the
// result with a State translated from scratch from what would then be
// allocated: the kept claims, the released claims' devices that are not
// local to the node, and the taken claims. The original State must not
// change.
func TestWhatIfMatchesARecomputation(t *testing.T) {
	cluster := inventorygen.NvidiaH100(2).Merge(inventorygen.SharedNICs(2))
	inv := inventory.New()
	// Where each device is local, from the slices as published.
	localTo := map[structured.DeviceID]string{}
	for _, s := range cluster.Slices {
		inv.Set(s)
		for _, d := range s.Spec.Devices {
			localTo[structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, d.Name)] = ptr.Deref(s.Spec.NodeName, "")
		}
	}
	devices := cluster.Devices()
	node := cluster.Nodes[0].Name
	features := structured.Features{ConsumableCapacity: true}
	for seed := range uint64(50) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			share := 0
			randomAllocation := func() *resourceapi.AllocationResult {
				alloc := &resourceapi.AllocationResult{}
				for range 1 + rng.IntN(3) {
					d := devices[rng.IntN(len(devices))]
					r := resourceapi.DeviceRequestAllocationResult{Request: "r", Driver: d.Driver, Pool: d.Pool, Device: d.Device}
					switch rng.IntN(4) {
					case 0:
						r.AdminAccess = ptr.To(true)
					case 1:
						share++
						r.ShareID = ptr.To(types.UID("share-" + strconv.Itoa(share)))
						r.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{"bandwidth": resource.MustParse(strconv.Itoa(1+rng.IntN(5)) + "G")}
					}
					alloc.Devices.Results = append(alloc.Devices.Results, r)
				}
				return alloc
			}
			// Claims hold distinct dedicated devices, as in a cluster.
			held := map[types.UID]*resourceapi.AllocationResult{}
			taken := map[structured.DeviceID]bool{}
			for i := range 10 {
				alloc := randomAllocation()
				alloc.Devices.Results = dropTaken(alloc.Devices.Results, taken)
				held[types.UID(strconv.Itoa(i))] = alloc
			}
			base := allocator.NewState(inv, naiveState(held, nil))
			before := allocator.NewState(inv, naiveState(held, nil))

			w := allocator.WhatIf{Node: node}
			after := map[types.UID]*resourceapi.AllocationResult{}
			for uid, alloc := range held {
				if rng.IntN(2) == 0 {
					after[uid] = alloc
					continue
				}
				if rng.IntN(2) == 0 {
					// Freed on every node: nothing stays.
					w.ReleaseAnywhere = append(w.ReleaseAnywhere, alloc)
					continue
				}
				w.Release = append(w.Release, alloc)
				// What the node cannot give back stays allocated.
				rest := &resourceapi.AllocationResult{}
				for _, r := range alloc.Devices.Results {
					if localTo[structured.MakeDeviceID(r.Driver, r.Pool, r.Device)] != node {
						rest.Devices.Results = append(rest.Devices.Results, r)
					}
				}
				after[uid+"-rest"] = rest
			}
			for i := range rng.IntN(3) {
				alloc := randomAllocation()
				alloc.Devices.Results = dropTaken(alloc.Devices.Results, taken)
				w.Take = append(w.Take, alloc)
				after[types.UID("taken-"+strconv.Itoa(i))] = alloc
			}

			got := base.Apply(inv, features, w)
			if diff := allocator.DiffStates(got, allocator.NewState(inv, naiveState(after, nil))); diff != "" {
				t.Errorf("after the change: %s", diff)
			}
			if diff := allocator.DiffStates(base, before); diff != "" {
				t.Errorf("the original State changed: %s", diff)
			}
		})
	}
}

// dropTaken removes dedicated results for devices some claim holds already
// and records the rest.
func dropTaken(results []resourceapi.DeviceRequestAllocationResult, taken map[structured.DeviceID]bool) []resourceapi.DeviceRequestAllocationResult {
	var out []resourceapi.DeviceRequestAllocationResult
	for _, r := range results {
		id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
		if r.ShareID == nil && !ptr.Deref(r.AdminAccess, false) {
			if taken[id] {
				continue
			}
			taken[id] = true
		}
		out = append(out, r)
	}
	return out
}

// TestWhatIfFreesPartitionsForAWholeDevice: on a node whose every GPU is
// split into halves held by claims, a claim for one whole GPU does not fit;
// released on that node, the halves of one GPU make the whole GPU
// allocatable (its counters are computed anew), released on another node
// they do not, and an allocator over the original State still says no.
func TestWhatIfFreesPartitionsForAWholeDevice(t *testing.T) {
	c := inventorygen.ExampleDriver(2, true)
	inv := inventory.New()
	for _, s := range c.Slices {
		inv.Set(s)
	}
	node := c.Nodes[0]
	held := map[types.UID]*resourceapi.AllocationResult{}
	var gpu0 []*resourceapi.AllocationResult
	for g := range inventorygen.ExampleGPUsPerNode {
		for k := range 2 {
			alloc := &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
				Request: "r", Driver: inventorygen.DriverExample, Pool: node.Name, Device: fmt.Sprintf("gpu-%d-half-%d", g, k),
			}}}}
			held[types.UID(fmt.Sprintf("%d-%d", g, k))] = alloc
			if g == 0 {
				gpu0 = append(gpu0, alloc)
			}
		}
	}
	features := structured.Features{PartitionableDevices: true}
	base := allocator.NewState(inv, naiveState(held, nil))
	whole := []*resourceapi.ResourceClaim{inventorygen.ExactClaim("whole", inventorygen.ClassExample, 1, `device.attributes["gpu.example.com"].partition == "full"`)}
	a := allocator.New(features, base, c.ClassLister(), inv, allocator.NewMatcher(cel.NewCache(10, cel.Features{})), allocator.FirstFit)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		state    *allocator.State
		wantFits bool
	}{
		{"every GPU split and held: no whole GPU", base, false},
		{"the halves of gpu-0 released on their node: a whole GPU", base.Apply(inv, features, allocator.WhatIf{Node: node.Name, Release: gpu0}), true},
		{"the same halves released on another node: still none", base.Apply(inv, features, allocator.WhatIf{Node: c.Nodes[1].Name, Release: gpu0}), false},
		{"one half of gpu-0 released: still none", base.Apply(inv, features, allocator.WhatIf{Node: node.Name, Release: gpu0[:1]}), false},
		{"the original State after the changes: still none", base, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fits, err := a.WithState(tc.state).Fits(ctx, node, whole)
			if err != nil {
				t.Fatal(err)
			}
			if fits != tc.wantFits {
				t.Errorf("fits %v, want %v", fits, tc.wantFits)
			}
		})
	}
}

// TestVacateFreesEveryDeviceOfTheNodeAndNothingElse: a State vacated for a
// node equals one translated from scratch from the claims' devices that
// are not the node's own, and the original State does not change.
func TestVacateFreesEveryDeviceOfTheNodeAndNothingElse(t *testing.T) {
	cluster := inventorygen.NvidiaH100(2).Merge(inventorygen.SharedNICs(2))
	inv := inventory.New()
	localTo := map[structured.DeviceID]string{}
	for _, s := range cluster.Slices {
		inv.Set(s)
		for _, d := range s.Spec.Devices {
			localTo[structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, d.Name)] = ptr.Deref(s.Spec.NodeName, "")
		}
	}
	node := cluster.Nodes[1].Name
	held := map[types.UID]*resourceapi.AllocationResult{}
	rest := map[types.UID]*resourceapi.AllocationResult{}
	for i, d := range cluster.Devices() {
		r := resourceapi.DeviceRequestAllocationResult{Request: "r", Driver: d.Driver, Pool: d.Pool, Device: d.Device}
		if i%3 == 0 {
			r.ShareID = ptr.To(types.UID("share-" + strconv.Itoa(i)))
			r.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{"bandwidth": resource.MustParse("1G")}
		}
		alloc := &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{r}}}
		uid := types.UID(strconv.Itoa(i))
		held[uid] = alloc
		if localTo[structured.MakeDeviceID(d.Driver, d.Pool, d.Device)] != node {
			rest[uid] = alloc
		}
	}
	if len(rest) == len(held) {
		t.Fatalf("no device of %s is held: the test checks nothing", node)
	}
	base := allocator.NewState(inv, naiveState(held, nil))
	if diff := allocator.DiffStates(base.Apply(inv, structured.Features{ConsumableCapacity: true}, allocator.WhatIf{Vacate: node}), allocator.NewState(inv, naiveState(rest, nil))); diff != "" {
		t.Errorf("vacated: %s", diff)
	}
	if diff := allocator.DiffStates(base, allocator.NewState(inv, naiveState(held, nil))); diff != "" {
		t.Errorf("the original State changed: %s", diff)
	}
}

// TestVacatingEveryNodeFreesEveryNodesOwnDevicesAndNothingElse: a State
// with every node vacated equals one translated from scratch from the
// claims' devices that are no node's own (a pool for all nodes), and on
// each node claims fit exactly where they fit with only that node vacated.
func TestVacatingEveryNodeFreesEveryNodesOwnDevicesAndNothingElse(t *testing.T) {
	cluster := inventorygen.NvidiaH100(3)
	// The first node's GPUs again, as a pool that every node reaches.
	network := cluster.Slices[0].DeepCopy()
	network.Name, network.Spec.Pool.Name = "network", "network"
	network.Spec.NodeName, network.Spec.AllNodes = nil, ptr.To(true)
	cluster.Slices = append(cluster.Slices, network)
	inv := inventory.New()
	held := map[types.UID]*resourceapi.AllocationResult{}
	rest := map[types.UID]*resourceapi.AllocationResult{}
	for _, s := range cluster.Slices {
		inv.Set(s)
		for _, d := range s.Spec.Devices {
			r := resourceapi.DeviceRequestAllocationResult{Request: "r", Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name, Device: d.Name}
			alloc := &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{r}}}
			uid := types.UID(s.Spec.Pool.Name + "/" + d.Name)
			held[uid] = alloc
			if s.Spec.NodeName == nil {
				rest[uid] = alloc
			}
		}
	}
	base := allocator.NewState(inv, naiveState(held, nil))
	all := allocator.WhatIf{VacateNodes: true}
	if diff := allocator.DiffStates(base.Apply(inv, structured.Features{}, all), allocator.NewState(inv, naiveState(rest, nil))); diff != "" {
		t.Errorf("every node vacated: %s", diff)
	}

	// Every device is held: 8 GPUs fit on a node only once it is
	// vacated, 9 never, the network pool's staying held.
	ctx := context.Background()
	a := allocator.New(structured.Features{}, base, cluster.ClassLister(), inv, allocator.NewMatcher(cel.NewCache(10, cel.Features{})), allocator.FirstFit)
	vacated := a.WhatIf(all)
	for _, count := range []int64{8, 9} {
		claim := inventorygen.ExactClaim(fmt.Sprintf("gpus-%d", count), cluster.Classes[0].Name, count)
		for _, node := range cluster.Nodes {
			one, err := a.WhatIf(allocator.WhatIf{Vacate: node.Name}).Fits(ctx, node, []*resourceapi.ResourceClaim{claim})
			if err != nil {
				t.Fatalf("%s on %s vacated: %v", claim.Name, node.Name, err)
			}
			every, err := vacated.Fits(ctx, node, []*resourceapi.ResourceClaim{claim})
			if err != nil {
				t.Fatalf("%s on %s, every node vacated: %v", claim.Name, node.Name, err)
			}
			if want := count == 8; one != want || every != want {
				t.Errorf("%s on %s: fits with the node vacated %v, with every node vacated %v; want %v", claim.Name, node.Name, one, every, want)
			}
		}
	}
	if diff := allocator.DiffStates(base, allocator.NewState(inv, naiveState(held, nil))); diff != "" {
		t.Errorf("the original State changed: %s", diff)
	}
}

// TestPlacementsKeptAcrossAllocatorsHoldForOneInventoryGeneration: a
// placements memo shared by allocator after allocator answers each one's
// what-ifs as its own memo would, remembers each allocation once, and is
// not used once the inventory changed (a republished slice whose devices
// land on other indexes).
func TestPlacementsKeptAcrossAllocatorsHoldForOneInventoryGeneration(t *testing.T) {
	ctx := context.Background()
	cluster := inventorygen.NvidiaH100(1)
	node := cluster.Nodes[0]
	inv := inventory.New()
	for _, s := range cluster.Slices {
		inv.Set(s)
	}
	matcher := allocator.NewMatcher(cel.NewCache(10, cel.Features{}))
	held := map[types.UID]*resourceapi.AllocationResult{}
	for _, d := range cluster.Devices() {
		r := resourceapi.DeviceRequestAllocationResult{Request: "r", Driver: d.Driver, Pool: d.Pool, Device: d.Device}
		held[types.UID(d.Device)] = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{r}}}
	}
	var victim *resourceapi.AllocationResult
	for _, a := range held {
		victim = a
		break
	}
	newAllocator := func() *allocator.Allocator {
		return allocator.New(structured.Features{}, allocator.NewState(inv, naiveState(held, nil)), cluster.ClassLister(), inv, matcher, allocator.FirstFit)
	}
	one := []*resourceapi.ResourceClaim{inventorygen.ExactClaim("one", cluster.Classes[0].Name, 1)}
	fitsOnceReleased := func(a *allocator.Allocator) bool {
		t.Helper()
		fits, err := a.WhatIf(allocator.WhatIf{Node: node.Name, Release: []*resourceapi.AllocationResult{victim}}).Fits(ctx, node, one)
		if err != nil {
			t.Fatal(err)
		}
		return fits
	}

	kept := allocator.NewPlacements(inv)
	for cycle := range 3 {
		a := newAllocator().WithPlacements(kept)
		if fits, err := a.Fits(ctx, node, one); err != nil || fits {
			t.Fatalf("cycle %d: a GPU fits on a full node (%v, %v)", cycle, fits, err)
		}
		if !fitsOnceReleased(a) {
			t.Errorf("cycle %d: no GPU fits once one is released", cycle)
		}
		if kept.Len() != 1 {
			t.Errorf("cycle %d: the kept memo holds %d allocations, want the released one", cycle, kept.Len())
		}
	}

	// The pool republished with the released GPU renamed: the new device
	// may take its index, and no claim holds it.
	republished := cluster.Slices[0].DeepCopy()
	for i := range republished.Spec.Devices {
		if republished.Spec.Devices[i].Name == victim.Devices.Results[0].Device {
			republished.Spec.Devices[i].Name = "renamed"
		}
	}
	republished.Spec.Pool.Generation++
	inv.Set(republished)
	if kept.For(inv) {
		t.Fatal("the kept memo holds for the inventory after its slice changed")
	}
	a := newAllocator()
	if a.WithPlacements(kept) != a {
		t.Error("an allocator took a memo made for another inventory generation")
	}
	// The renamed GPU is free whatever is released; the others stay held.
	released := a.WithPlacements(kept).WhatIf(allocator.WhatIf{Node: node.Name, Release: []*resourceapi.AllocationResult{victim}})
	if diff := allocator.DiffStates(allocator.StateOf(released), allocator.NewState(inv, naiveState(held, nil))); diff != "" {
		t.Errorf("released after the republication: %s", diff)
	}
	if kept.Len() != 1 {
		t.Errorf("the stale memo grew to %d allocations", kept.Len())
	}
}

// TestAllocatorsDerivedFromOneShareWhatTheyPrepared: a preemption dry run
// asks allocators derived from the cycle's about the preemptor's claims
// and, between, about a nominated pod's; what one of them prepared serves
// the others, and only for exactly the same claims.
func TestAllocatorsDerivedFromOneShareWhatTheyPrepared(t *testing.T) {
	cluster := inventorygen.NvidiaH100(1)
	inv := inventory.New()
	for _, s := range cluster.Slices {
		inv.Set(s)
	}
	a := allocator.New(structured.Features{}, allocator.NewState(inv, structured.AllocatedState{}), cluster.ClassLister(), inv,
		allocator.NewMatcher(cel.NewCache(10, cel.Features{})), allocator.FirstFit)
	class := cluster.Classes[0].Name
	own := []*resourceapi.ResourceClaim{inventorygen.ExactClaim("own", class, 2)}
	nominated := []*resourceapi.ResourceClaim{inventorygen.ExactClaim("nominated", class, 1)}
	longer := append(slices.Clone(own), inventorygen.ExactClaim("more", class, 1))
	first := a.WhatIf(allocator.WhatIf{Vacate: cluster.Nodes[0].Name})
	prepared := first.PreparedFor(own)
	second := a.WhatIf(allocator.WhatIf{Vacate: cluster.Nodes[0].Name})
	if second.PreparedFor(nominated) == prepared {
		t.Fatal("other claims got the preemptor's preparation")
	}
	if got := second.PreparedFor(own); got != prepared {
		t.Error("a derived allocator prepared the claims again after another had")
	}
	if second.PreparedFor(longer) == prepared {
		t.Error("claims with the same first claim and one more got the preparation of the first alone")
	}
	if got := a.PreparedFor(own); got != prepared {
		t.Error("the allocator the others derive from prepared the claims again")
	}
}

// TestFitsWithAWhatIfFromCountsIsFitsOnTheChangedState: where the claims
// are answered from counts, FitsWithinWhatIf reads the answer off the
// unchanged State and the devices the change releases; it must be what
// the changed State answers, with devices held by one claim each, some
// in a pool that every node reaches (never released on a node), releases
// of random claims, and claims that match some devices or none.
func TestFitsWithAWhatIfFromCountsIsFitsOnTheChangedState(t *testing.T) {
	ctx := context.Background()
	cluster := inventorygen.NvidiaH100(3)
	network := cluster.Slices[0].DeepCopy()
	network.Name, network.Spec.Pool.Name = "network", "network"
	network.Spec.NodeName, network.Spec.AllNodes = nil, ptr.To(true)
	cluster.Slices = append(cluster.Slices, network)
	inv := inventory.New()
	var allocs []*resourceapi.AllocationResult
	for _, s := range cluster.Slices {
		inv.Set(s)
		for _, d := range s.Spec.Devices {
			r := resourceapi.DeviceRequestAllocationResult{Request: "r", Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name, Device: d.Name}
			allocs = append(allocs, &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{r}}})
		}
	}
	matcher := allocator.NewMatcher(cel.NewCache(10, cel.Features{}))
	class := cluster.Classes[0].Name
	selectors := [][]string{nil, {`device.attributes["resource.kubernetes.io"].pciBusID.endsWith("0")`}, {"false"}}
	answered, fitting := 0, 0
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 5))
		held := map[types.UID]*resourceapi.AllocationResult{}
		var heldList []*resourceapi.AllocationResult
		for i, a := range allocs {
			if rng.IntN(5) != 0 {
				held[types.UID(strconv.Itoa(i))] = a
				heldList = append(heldList, a)
			}
		}
		a := allocator.New(structured.Features{}, allocator.NewState(inv, naiveState(held, nil)), cluster.ClassLister(), inv, matcher, allocator.FirstFit)
		claims := []*resourceapi.ResourceClaim{inventorygen.ExactClaim("c", class, int64(1+rng.IntN(8)), selectors[rng.IntN(len(selectors))]...)}
		for _, node := range cluster.Nodes {
			// Fits keeps the counts the answer reads.
			if _, err := a.Fits(ctx, node, claims); err != nil {
				t.Fatal(err)
			}
			w := allocator.WhatIf{Node: node.Name}
			for _, h := range heldList {
				if rng.IntN(4) == 0 {
					w.Release = append(w.Release, h)
				}
			}
			want, err := a.WhatIf(w).Fits(ctx, node, claims)
			if err != nil {
				t.Fatal(err)
			}
			got, err, ok := a.FitsReleasingFromCounts(ctx, node, claims, w)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				answered++
				if got != want {
					t.Errorf("seed %d, %s on %s, %d released: from counts %v, on the changed State %v", seed, claims[0].Name, node.Name, len(w.Release), got, want)
				}
			}
			if got, err := a.FitsWithinWhatIf(ctx, node, claims, w, 0); err != nil || got != want {
				t.Errorf("seed %d, on %s: FitsWithinWhatIf %v, %v; on the changed State %v", seed, node.Name, got, err, want)
			}
			if want {
				fitting++
			}
		}
	}
	t.Logf("%d answers from counts; %d of the changes leave room", answered, fitting)
	if answered == 0 || fitting == 0 || fitting == 300 {
		t.Errorf("%d answers from counts, %d of 300 fitting: the test checks too little", answered, fitting)
	}
}
