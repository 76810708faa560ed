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
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// apiClaim is claim default/<name> (UID "uid-<name>") at resourceVersion
// rv, allocated the given results (none: not allocated).
func apiClaim(name string, rv int, results ...resourceapi.DeviceRequestAllocationResult) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name), ResourceVersion: strconv.Itoa(rv)}}
	if len(results) > 0 {
		c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: results}}
	}
	return c
}

// gpu is a result for GPU device of node h100-0.
func gpu(device string) resourceapi.DeviceRequestAllocationResult {
	return resourceapi.DeviceRequestAllocationResult{Request: "gpu", Driver: inventorygen.DriverNvidia, Pool: "h100-0", Device: device}
}

// nicShare is a result for a share of NIC nic-0 of node nic-0 taking
// bandwidth of its ingress.
func nicShare(share, bandwidth string) resourceapi.DeviceRequestAllocationResult {
	return resourceapi.DeviceRequestAllocationResult{Request: "nic", Driver: inventorygen.DriverNIC, Pool: "nic-0", Device: "nic-0",
		ShareID: ptr.To(types.UID(share)), ConsumedCapacity: map[resourceapi.QualifiedName]resource.Quantity{"ingressBandwidth": resource.MustParse(bandwidth)}}
}

func compareInventory(t *testing.T) *inventory.Inventory {
	t.Helper()
	inv := inventory.New()
	for _, s := range inventorygen.NvidiaH100(1).Merge(inventorygen.SharedNICs(1)).Slices {
		inv.Set(s)
	}
	return inv
}

func TestTrackerCompareReportsEachDriftFromTheAPIOnce(t *testing.T) {
	const pool = "pool gpu.nvidia.com/h100-0"
	for _, tc := range []struct {
		name string
		// tracked feeds the tracker; api is what the API has.
		tracked func(tr *allocator.Tracker)
		api     []*resourceapi.ResourceClaim
		// inFlight are the claims the scheduler has in flight.
		inFlight []string
		want     []drift.Difference
	}{{
		name: "a tracker fed the API's claims differs in nothing",
		tracked: func(tr *allocator.Tracker) {
			tr.SetClaim(apiClaim("claim-x", 3, gpu("gpu-0"), gpu("gpu-1")))
			tr.SetClaim(apiClaim("claim-y", 4))
			tr.SetClaim(apiClaim("claim-z", 5, nicShare("s1", "10G"), nicShare("s2", "5G")))
		},
		api: []*resourceapi.ResourceClaim{apiClaim("claim-x", 3, gpu("gpu-0"), gpu("gpu-1")), apiClaim("claim-y", 4), apiClaim("claim-z", 5, nicShare("s1", "10G"), nicShare("s2", "5G"))},
	}, {
		name:    "a claim allocated in the API but free in the tracker is one difference",
		tracked: func(tr *allocator.Tracker) { tr.SetClaim(apiClaim("claim-x", 3)) },
		api:     []*resourceapi.ResourceClaim{apiClaim("claim-x", 4, gpu("gpu-3"))},
		want:    []drift.Difference{{Kind: drift.Allocation, Object: pool, Message: "device gpu-3 allocated to default/claim-x in the API, free in the tracker"}},
	}, {
		name:    "a device held in the tracker whose claim is deleted is one difference",
		tracked: func(tr *allocator.Tracker) { tr.SetClaim(apiClaim("claim-x", 3, gpu("gpu-1"), gpu("gpu-2"))) },
		want:    []drift.Difference{{Kind: drift.Allocation, Object: pool, Message: "devices gpu-1, gpu-2 held by default/claim-x in the tracker, claim deleted in the API"}},
	}, {
		name:    "a claim deallocated in the API but held in the tracker is one difference",
		tracked: func(tr *allocator.Tracker) { tr.SetClaim(apiClaim("claim-x", 3, gpu("gpu-1"))) },
		api:     []*resourceapi.ResourceClaim{apiClaim("claim-x", 4)},
		want:    []drift.Difference{{Kind: drift.Allocation, Object: pool, Message: "device gpu-1 held by default/claim-x in the tracker, free in the API"}},
	}, {
		name:    "another device held in the tracker than in the API is a difference each way",
		tracked: func(tr *allocator.Tracker) { tr.SetClaim(apiClaim("claim-x", 3, gpu("gpu-1"))) },
		api:     []*resourceapi.ResourceClaim{apiClaim("claim-x", 3, gpu("gpu-2"))},
		want: []drift.Difference{
			{Kind: drift.Allocation, Object: pool, Message: "device gpu-1 held by default/claim-x in the tracker, free in the API"},
			{Kind: drift.Allocation, Object: pool, Message: "device gpu-2 allocated to default/claim-x in the API, free in the tracker"},
		},
	}, {
		name:    "a share consuming other capacity is one difference",
		tracked: func(tr *allocator.Tracker) { tr.SetClaim(apiClaim("claim-z", 5, nicShare("s1", "10G"))) },
		api:     []*resourceapi.ResourceClaim{apiClaim("claim-z", 5, nicShare("s1", "20G"))},
		want: []drift.Difference{{Kind: drift.Allocation, Object: "pool nic.example.com/nic-0",
			Message: "device nic-0 (share s1) of default/claim-z consumes {ingressBandwidth=20G} in the API, {ingressBandwidth=10G} in the tracker"}},
	}, {
		name:    "the plugin's own write that the informer has not delivered differs in nothing",
		tracked: func(tr *allocator.Tracker) { tr.SetClaim(apiClaim("claim-x", 5, gpu("gpu-2"))) },
		api:     []*resourceapi.ResourceClaim{apiClaim("claim-x", 4)},
	}, {
		name: "an allocation in flight that the API has not seen differs in nothing",
		tracked: func(tr *allocator.Tracker) {
			tr.SetClaim(apiClaim("claim-x", 3))
			tr.SetPending("uid-claim-x", apiClaim("claim-x", 0, gpu("gpu-2")).Status.Allocation)
		},
		api:      []*resourceapi.ResourceClaim{apiClaim("claim-x", 3)},
		inFlight: []string{"uid-claim-x"},
	}, {
		name: "a write that landed while the allocation is still in flight differs in nothing",
		tracked: func(tr *allocator.Tracker) {
			tr.SetClaim(apiClaim("claim-x", 3))
			tr.SetPending("uid-claim-x", apiClaim("claim-x", 0, gpu("gpu-2")).Status.Allocation)
		},
		api:      []*resourceapi.ResourceClaim{apiClaim("claim-x", 4, gpu("gpu-2"))},
		inFlight: []string{"uid-claim-x"},
	}, {
		name: "an allocation in flight in the tracker that the scheduler dropped is one difference",
		tracked: func(tr *allocator.Tracker) {
			tr.SetClaim(apiClaim("claim-x", 3))
			tr.SetPending("uid-claim-x", apiClaim("claim-x", 0, gpu("gpu-2")).Status.Allocation)
		},
		api:  []*resourceapi.ResourceClaim{apiClaim("claim-x", 3)},
		want: []drift.Difference{{Kind: drift.InFlight, Object: pool, Message: "device gpu-2 in flight for default/claim-x in the tracker, not in the scheduler"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			inv := compareInventory(t)
			tr := allocator.NewTracker(structured.Features{ConsumableCapacity: true})
			tc.tracked(tr)
			tr.State(inv)
			got := tr.Compare(inv, tc.api, func(uid types.UID) bool { return slices.Contains(tc.inFlight, string(uid)) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("differences:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestTrackerCompareFindsItsOwnBookkeepingOff(t *testing.T) {
	held := apiClaim("claim-x", 3, gpu("gpu-0"), gpu("gpu-5"))
	for _, tc := range []struct {
		name    string
		corrupt func(tr *allocator.Tracker, inv *inventory.Inventory)
		want    []drift.Difference
	}{{
		name:    "bookkeeping left alone differs in nothing",
		corrupt: func(*allocator.Tracker, *inventory.Inventory) {},
	}, {
		name: "a holder count off is one difference",
		corrupt: func(tr *allocator.Tracker, _ *inventory.Inventory) {
			tr.MiscountForTest(structured.MakeDeviceID(inventorygen.DriverNvidia, "h100-0", "gpu-0"), 1)
		},
		want: []drift.Difference{{Kind: drift.Count, Object: "pool gpu.nvidia.com/h100-0", Message: "device gpu-0: holders 2 counted, 1 among the claims tracked"}},
	}, {
		name: "a use counted twice is off in the device's count and its holders",
		corrupt: func(tr *allocator.Tracker, _ *inventory.Inventory) {
			tr.MiscountHolderForTest(structured.MakeDeviceID(inventorygen.DriverNvidia, "h100-0", "gpu-5"), "uid-claim-x", 1)
		},
		want: []drift.Difference{
			{Kind: drift.Count, Object: "pool gpu.nvidia.com/h100-0", Message: "device gpu-5: holders 2 counted, 1 among the claims tracked"},
			{Kind: drift.Count, Object: "pool gpu.nvidia.com/h100-0", Message: "device gpu-5: uses by default/claim-x 2 counted, 1 among the claims tracked"},
		},
	}, {
		name: "a holder no claim accounts for is off in the device's count, its holders and the State",
		corrupt: func(tr *allocator.Tracker, _ *inventory.Inventory) {
			tr.MiscountHolderForTest(structured.MakeDeviceID(inventorygen.DriverNvidia, "h100-0", "gpu-7"), "uid-gone", 1)
		},
		want: []drift.Difference{
			{Kind: drift.Count, Object: "pool gpu.nvidia.com/h100-0", Message: "device gpu-7: holders 1 counted, 0 among the claims tracked"},
			{Kind: drift.Count, Object: "pool gpu.nvidia.com/h100-0", Message: "device gpu-7: uses by uid-gone 1 counted, 0 among the claims tracked"},
			// The State follows the counts, not the claims.
			{Kind: drift.State, Object: "pool gpu.nvidia.com/h100-0",
				Message: "device gpu-7 (index 7): free in the State handed to allocators, allocated in one rebuilt from the tracker's counts"},
		},
	}, {
		name: "a State bit set on a free device is one difference",
		corrupt: func(tr *allocator.Tracker, inv *inventory.Inventory) {
			d := inv.Lookup(inventory.DeviceKey{Driver: inventorygen.DriverNvidia, Pool: "h100-0", Device: "gpu-6"})[0]
			tr.FlipStateBitForTest(inv, d.Index)
		},
		want: []drift.Difference{{Kind: drift.State, Object: "pool gpu.nvidia.com/h100-0",
			Message: "device gpu-6 (index 6): allocated in the State handed to allocators, free in one rebuilt from the tracker's counts"}},
	}, {
		name: "a State bit off is one difference",
		corrupt: func(tr *allocator.Tracker, inv *inventory.Inventory) {
			d := inv.Lookup(inventory.DeviceKey{Driver: inventorygen.DriverNvidia, Pool: "h100-0", Device: "gpu-5"})[0]
			tr.FlipStateBitForTest(inv, d.Index)
		},
		want: []drift.Difference{{Kind: drift.State, Object: "pool gpu.nvidia.com/h100-0",
			Message: "device gpu-5 (index 5): free in the State handed to allocators, allocated in one rebuilt from the tracker's counts"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			inv := compareInventory(t)
			tr := allocator.NewTracker(structured.Features{ConsumableCapacity: true})
			tr.SetClaim(held)
			tr.State(inv)
			tc.corrupt(tr, inv)
			got := tr.Compare(inv, []*resourceapi.ResourceClaim{held}, nil)
			if !slices.Equal(got, tc.want) {
				t.Errorf("differences:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestTrackerCompareFindsCachedCountersOff(t *testing.T) {
	cluster := inventorygen.DynamicMIG(1, 1)
	inv := inventory.New()
	for _, s := range cluster.Slices {
		inv.Set(s)
	}
	ctx := context.Background()
	tr := allocator.NewTracker(defaultFeatures)
	alloc := func() *allocator.Allocator {
		m := allocator.NewMatcher(cel.NewCache(10, cel.Features{}))
		return allocator.New(defaultFeatures, tr.State(inv), cluster.ClassLister(), inv, m, allocator.FirstFit)
	}
	// A 1g.10gb partition allocated, then the pool's counters computed
	// (and cached in the State) for the next claim.
	claim := inventorygen.MIGProfileClaim("claim-x", "1g.10gb")
	results, err := alloc().Allocate(ctx, cluster.Nodes[0], []*resourceapi.ResourceClaim{claim})
	if err != nil || len(results) != 1 {
		t.Fatalf("Allocate: %v, %d results", err, len(results))
	}
	claim.UID, claim.Namespace, claim.ResourceVersion = "uid-claim-x", "default", "1"
	claim.Status.Allocation = &results[0]
	tr.SetClaim(claim)
	if _, err := alloc().Fits(ctx, cluster.Nodes[0], []*resourceapi.ResourceClaim{inventorygen.MIGProfileClaim("claim-y", "1g.10gb")}); err != nil {
		t.Fatal(err)
	}
	claims := []*resourceapi.ResourceClaim{claim}
	if got := tr.Compare(inv, claims, nil); len(got) != 0 {
		t.Fatalf("cached counters as computed: %v", got)
	}
	pool := inventory.PoolID{Driver: inventorygen.DriverNvidia, Pool: cluster.Nodes[0].Name}
	if !tr.MiscountCountersForTest(pool, inventorygen.MIGCounterSetName(0), "multiprocessors", resource.MustParse("132")) {
		t.Fatal("no counters cached for the pool")
	}
	got := tr.Compare(inv, claims, nil)
	want := []drift.Difference{{Kind: drift.Counters, Object: "pool gpu.nvidia.com/h100-mig-0",
		Message: "counter set gpu-0-counter-set, counter multiprocessors: 132 available in the cached counters, 116 computed again from the tracker's counts"}}
	if !slices.Equal(got, want) {
		t.Errorf("differences:\n got %v\nwant %v", got, want)
	}
}

// TestTrackerCompareFindsNothingAfterRandomSteps drives a tracker as
// TestTrackerStateMatchesARecomputation does, with the API's claims kept
// beside it, and compares after every few steps: what the tracker keeps
// incrementally never differs from the API's claims or from itself.
func TestTrackerCompareFindsNothingAfterRandomSteps(t *testing.T) {
	inv := compareInventory(t)
	var devices []resourceapi.DeviceRequestAllocationResult
	for i := range 8 {
		devices = append(devices, gpu("gpu-"+strconv.Itoa(i)))
	}
	for share := range 4 {
		devices = append(devices, nicShare("share-"+strconv.Itoa(share), strconv.Itoa(1+share)+"G"))
	}
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 41))
		tr := allocator.NewTracker(structured.Features{ConsumableCapacity: true})
		api := map[string]*resourceapi.ResourceClaim{}
		inFlight := map[types.UID]bool{}
		rv := 0
		for step := range 200 {
			name := "claim-" + strconv.Itoa(rng.IntN(6))
			uid := types.UID("uid-" + name)
			switch rng.IntN(5) {
			case 0, 1:
				rv++
				var results []resourceapi.DeviceRequestAllocationResult
				if rng.IntN(3) > 0 {
					results = append(results, devices[rng.IntN(len(devices))])
				}
				api[name] = apiClaim(name, rv, results...)
				tr.SetClaim(api[name])
			case 2:
				tr.SetPending(uid, apiClaim(name, 0, devices[rng.IntN(len(devices))]).Status.Allocation)
				inFlight[uid] = true
			case 3:
				tr.ClearPending(uid)
				delete(inFlight, uid)
			case 4:
				delete(api, name)
				delete(inFlight, uid)
				tr.DeleteClaim(uid)
			}
			if rng.IntN(3) == 0 {
				tr.State(inv)
			}
			claims := slices.Collect(maps.Values(api))
			if got := tr.Compare(inv, claims, func(uid types.UID) bool { return inFlight[uid] }); len(got) != 0 {
				t.Fatalf("seed %d, step %d: %v", seed, step, got)
			}
		}
	}
}
