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

// Upstream's DRA allocator bugs of Kubernetes 1.33–1.37 (issue 56 point
// 5), each a scenario named for its symptom that fails if the symptom ever
// appears here. Each scenario runs through both allocators (pinnedOutcome:
// upstream 1.37.2 has every fix), pins the devices we must pick and has
// the independent checker (pkg/allocationcheck) judge our allocation.
// This file has the helpers and the bugs of shared counters on
// multi-allocatable devices across scheduling cycles; upstreambugs_search_test.go
// those of the search's rollback, upstreambugs_results_test.go those of
// All mode and of the results.

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocationcheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// ubDriver is the driver of every device of the regression scenarios; its
// one class is "dev".
const ubDriver = "dev.example.com"

// ubKind selects the devices whose "kind" attribute is kind.
func ubKind(kind string) string {
	return `device.attributes["` + ubDriver + `"].kind == "` + kind + `"`
}

// ubRequest is an ExactCount request for count devices of class "dev".
func ubRequest(name string, count int64, selectors ...string) resourceapi.DeviceRequest {
	return objects.ClaimSpec(name, "dev", count, selectors...).Devices.Requests[0]
}

// ubWithCapacity asks request r for q of the named capacity.
func ubWithCapacity(r resourceapi.DeviceRequest, name, q string) resourceapi.DeviceRequest {
	r.Exactly.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{
		resourceapi.QualifiedName(name): resource.MustParse(q)}}
	return r
}

// ubClaim is a claim of requests, with a UID for the tracker.
func ubClaim(name string, requests ...resourceapi.DeviceRequest) *resourceapi.ResourceClaim {
	c := objects.Claim(name, "ns", resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: requests}})
	c.UID = types.UID("uid-" + name)
	return c
}

// ubPool is node n's pool of two slices: devices (a slice of pool "n"
// built by the caller) and one counter set.
func ubPool(devices *objects.SliceWrapper, set string, counters map[string]string) []*resourceapi.ResourceSlice {
	counterSlice := objects.MakeSlice("n-counters", ubDriver, "n").SliceCount(2).CounterSet(set, counters)
	return []*resourceapi.ResourceSlice{devices.SliceCount(2).Obj(), counterSlice.Obj()}
}

// ubDevices starts the devices slice of node n's pool.
func ubDevices() *objects.SliceWrapper { return objects.MakeSlice("n-devices", ubDriver, "n") }

// ubID is the ID of device name of node n's pool.
func ubID(name string) structured.DeviceID { return structured.MakeDeviceID(ubDriver, "n", name) }

// ubCase is one regression scenario on node n.
type ubCase struct {
	features structured.Features // zero: defaultFeatures
	state    structured.AllocatedState
	slices   []*resourceapi.ResourceSlice
	claims   []*resourceapi.ResourceClaim
}

// pin runs the scenario through both allocators, demands upstream's
// outcome and exactly the devices want (in result order, claim by claim;
// nil: the claims do not fit) and has the independent checker judge our
// allocation. It returns our outcome.
func (uc ubCase) pin(t *testing.T, want []string) outcome {
	t.Helper()
	features := uc.features
	if features == (structured.Features{}) {
		features = defaultFeatures
	}
	node := objects.MakeNode("n").Obj()
	classes := inventorygen.NewClassLister(objects.DeviceClass("dev", ubDriver))
	dc := diffCase{features: features, state: uc.state, classes: classes, slices: uc.slices, claims: uc.claims, nodes: []*v1.Node{node}}
	o := pinnedOutcome(t, dc, want, "")
	if o.results != nil {
		for _, v := range allocationcheck.Check(t.Context(), allocationcheck.Input{Features: features, Node: node, Slices: uc.slices,
			Classes: classes, Claims: uc.claims, Allocated: uc.state}, o.results) {
			t.Errorf("invalid allocation: %v", v)
		}
	}
	return o
}

// ubCycles is a scheduler's view of node n over scheduling cycles: a
// long-lived inventory and matcher, and a Tracker of what claims hold.
type ubCycles struct {
	inv     *inventory.Inventory
	matcher *allocator.Matcher
	tracker *allocator.Tracker
}

func newUBCycles(slices []*resourceapi.ResourceSlice) *ubCycles {
	inv := inventory.New()
	for _, s := range slices {
		inv.Set(s)
	}
	return &ubCycles{inv: inv, tracker: allocator.NewTracker(defaultFeatures),
		matcher: allocator.NewMatcher(cel.NewCache(10, cel.Features{EnableConsumableCapacity: true}))}
}

// cycle returns a fresh allocator of the next scheduling cycle, over what
// the tracker knows now.
func (cy *ubCycles) cycle() *allocator.Allocator {
	return allocator.New(defaultFeatures, cy.tracker.State(cy.inv), inventorygen.NewClassLister(objects.DeviceClass("dev", ubDriver)),
		cy.inv, cy.matcher, allocator.FirstFit)
}

// allocate allocates claim in a cycle of its own and records the result:
// as the claim's status if recorded, else as in flight (assumed, not yet
// written).
func (cy *ubCycles) allocate(t *testing.T, claim *resourceapi.ResourceClaim, recorded bool) resourceapi.AllocationResult {
	t.Helper()
	res, err := cy.cycle().Allocate(t.Context(), objects.MakeNode("n").Obj(), []*resourceapi.ResourceClaim{claim})
	if err != nil || len(res) != 1 {
		t.Fatalf("claim %s must fit on a free node: %v, %v", claim.Name, res, err)
	}
	if recorded {
		c := claim.DeepCopy()
		c.ResourceVersion, c.Status.Allocation = "1", &res[0]
		cy.tracker.SetClaim(c)
	} else {
		cy.tracker.SetPending(claim.UID, &res[0])
	}
	return res[0]
}

// fits asks a fresh cycle whether claims fit, by Fits and by Allocate,
// and fails unless both answer want.
func (cy *ubCycles) fits(t *testing.T, want bool, claims ...*resourceapi.ResourceClaim) {
	t.Helper()
	node := objects.MakeNode("n").Obj()
	a := cy.cycle()
	fits, err := a.Fits(t.Context(), node, claims)
	if err != nil || fits != want {
		t.Errorf("Fits = %v, %v; want %v", fits, err, want)
	}
	res, err := a.Allocate(t.Context(), node, claims)
	if err != nil || (res != nil) != want {
		t.Errorf("Allocate = %v, %v; want fits %v", res, err, want)
	}
}

// ubPartitionedGPU is a GPU of 8Gi as a pool: "whole", multi-allocatable
// with 4 slots, consumes all of it; "half-0" and "half-1" 4Gi each.
func ubPartitionedGPU() []*resourceapi.ResourceSlice {
	return ubPool(ubDevices().
		Device("whole", map[string]string{"slots": "4"}).Attribute("kind", "whole").AllowMultipleAllocations().
		ConsumesCounters("gpu", map[string]string{"memory": "8Gi"}).
		Device("half-0", nil).Attribute("kind", "half").ConsumesCounters("gpu", map[string]string{"memory": "4Gi"}).
		Device("half-1", nil).Attribute("kind", "half").ConsumesCounters("gpu", map[string]string{"memory": "4Gi"}),
		"gpu", map[string]string{"memory": "8Gi"})
}

// TestAPartitionSharedByACommittedAllocationIsNotHandedOutAgain:
// kubernetes/kubernetes#139034. Symptom: a committed share of a
// multi-allocatable device that consumes shared counters was ignored when
// a later cycle rebuilt the counters, so a partition overlapping it was
// allocated as well and the GPU's memory was handed out twice.
func TestAPartitionSharedByACommittedAllocationIsNotHandedOutAgain(t *testing.T) {
	slices := ubPartitionedGPU()
	share := ubClaim("share", ubWithCapacity(ubRequest("r", 1, ubKind("whole")), "slots", "1"))
	half := ubClaim("half", ubRequest("r", 1, ubKind("half")))
	shareID := types.UID("committed")
	byShareID := sets.New(structured.MakeSharedDeviceID(ubID("whole"), &shareID))
	byCapacity := structured.ConsumedCapacityCollection{ubID("whole"): {"slots": ptr.To(resource.MustParse("1"))}}
	for _, tc := range []struct {
		name   string
		state  structured.AllocatedState
		claims []*resourceapi.ResourceClaim
		want   []string // nil: does not fit
	}{
		{"without a committed share a partition fits", structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{half}, []string{"half-0"}},
		{"a share committed with its consumed capacity keeps every partition out",
			structured.AllocatedState{AllocatedSharedDeviceIDs: byShareID, AggregatedCapacity: byCapacity},
			[]*resourceapi.ResourceClaim{half}, nil},
		{"a share recorded only by its share ID keeps every partition out",
			structured.AllocatedState{AllocatedSharedDeviceIDs: byShareID}, []*resourceapi.ResourceClaim{half}, nil},
		{"a share recorded only by its aggregated capacity keeps every partition out",
			structured.AllocatedState{AggregatedCapacity: byCapacity}, []*resourceapi.ResourceClaim{half}, nil},
		{"a committed share still leaves room for another share",
			structured.AllocatedState{AllocatedSharedDeviceIDs: byShareID, AggregatedCapacity: byCapacity},
			[]*resourceapi.ResourceClaim{share}, []string{"whole"}},
		{"a committed partition keeps a share of the whole device out",
			structured.AllocatedState{AllocatedDevices: sets.New(ubID("half-0"))}, []*resourceapi.ResourceClaim{share}, nil},
		{"one pod never gets a share and a partition together", structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{share, half}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ubCase{state: tc.state, slices: slices, claims: tc.claims}.pin(t, tc.want)
		})
	}
	// The same across real cycles: the first allocates the share, a
	// Tracker records it (as the claim's status or in flight), and a fresh
	// allocator of the next cycle asks again.
	for _, recorded := range []bool{true, false} {
		name := map[bool]string{true: "in the cycle after the share's allocation was written",
			false: "in the cycle after the share's allocation was assumed, not yet written"}[recorded]
		t.Run(name, func(t *testing.T) {
			cy := newUBCycles(slices)
			cy.fits(t, true, half)
			if got := cy.allocate(t, share, recorded); got.Devices.Results[0].Device != "whole" || got.Devices.Results[0].ShareID == nil {
				t.Fatalf("the first cycle must take a share of whole: %+v", got.Devices.Results)
			}
			cy.fits(t, false, half)
			cy.fits(t, true, ubClaim("another-share", ubWithCapacity(ubRequest("r", 1, ubKind("whole")), "slots", "1")))
			ubCase{state: cy.tracker.AllocatedState(), slices: slices, claims: []*resourceapi.ResourceClaim{half}}.pin(t, nil)
		})
	}
}

// TestAPersistedShareIsNotChargedForItsCountersAgain:
// kubernetes/kubernetes#140450 (issue #140433). Symptom: a persisted share
// of a multi-allocatable device recorded only by its share ID (no
// consumed capacity) had its shared counters charged a second time when
// another claim asked to share the device, a false "Insufficient
// counters" that left a schedulable pod pending.
func TestAPersistedShareIsNotChargedForItsCountersAgain(t *testing.T) {
	// "link" is a multi-allocatable device that consumes the pool's only
	// counter, "part" a device that needs the same counter.
	plain := ubPool(ubDevices().
		Device("link", nil).Attribute("kind", "link").AllowMultipleAllocations().ConsumesCounters("fabric", map[string]string{"lanes": "1"}).
		Device("part", nil).Attribute("kind", "part").ConsumesCounters("fabric", map[string]string{"lanes": "1"}),
		"fabric", map[string]string{"lanes": "1"})
	withBandwidth := ubPool(ubDevices().
		Device("link", map[string]string{"bandwidth": "10"}).Attribute("kind", "link").AllowMultipleAllocations().
		ConsumesCounters("fabric", map[string]string{"lanes": "1"}),
		"fabric", map[string]string{"lanes": "1"})
	shareID := types.UID("persisted")
	byShareID := sets.New(structured.MakeSharedDeviceID(ubID("link"), &shareID))
	share := func(name string) *resourceapi.ResourceClaim { return ubClaim(name, ubRequest("r", 1, ubKind("link"))) }
	bandwidth := func(name, q string) *resourceapi.ResourceClaim {
		return ubClaim(name, ubWithCapacity(ubRequest("r", 1, ubKind("link")), "bandwidth", q))
	}
	part := ubClaim("part", ubRequest("r", 1, ubKind("part")))
	for _, tc := range []struct {
		name   string
		slices []*resourceapi.ResourceSlice
		state  structured.AllocatedState
		claims []*resourceapi.ResourceClaim
		want   []string // nil: does not fit
	}{
		{"a share recorded only by its share ID leaves room for another share", plain,
			structured.AllocatedState{AllocatedSharedDeviceIDs: byShareID}, []*resourceapi.ResourceClaim{share("a")}, []string{"link"}},
		{"a share recorded only by its share ID leaves room for two more in one pod", plain,
			structured.AllocatedState{AllocatedSharedDeviceIDs: byShareID}, []*resourceapi.ResourceClaim{share("a"), share("b")}, []string{"link", "link"}},
		{"a share recorded only by its share ID still holds the counter against another device", plain,
			structured.AllocatedState{AllocatedSharedDeviceIDs: byShareID}, []*resourceapi.ResourceClaim{part}, nil},
		{"a share with consumed capacity leaves the rest of the capacity to another share", withBandwidth,
			structured.AllocatedState{AllocatedSharedDeviceIDs: byShareID, AggregatedCapacity: structured.ConsumedCapacityCollection{
				ubID("link"): {"bandwidth": ptr.To(resource.MustParse("4"))}}},
			[]*resourceapi.ResourceClaim{bandwidth("a", "6")}, []string{"link"}},
		{"a share with consumed capacity refuses a share beyond the capacity", withBandwidth,
			structured.AllocatedState{AllocatedSharedDeviceIDs: byShareID, AggregatedCapacity: structured.ConsumedCapacityCollection{
				ubID("link"): {"bandwidth": ptr.To(resource.MustParse("4"))}}},
			[]*resourceapi.ResourceClaim{bandwidth("a", "7")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ubCase{state: tc.state, slices: tc.slices, claims: tc.claims}.pin(t, tc.want)
		})
	}
	t.Run("in the cycle after a share without consumed capacity was written", func(t *testing.T) {
		cy := newUBCycles(plain)
		got := cy.allocate(t, share("first"), true)
		if r := got.Devices.Results[0]; r.Device != "link" || r.ShareID == nil || r.ConsumedCapacity != nil {
			t.Fatalf("the first cycle must take a share of link without consumed capacity: %+v", r)
		}
		cy.fits(t, true, share("second"))
		cy.fits(t, true, share("second"), share("third"))
		cy.fits(t, false, part)
		ubCase{state: cy.tracker.AllocatedState(), slices: plain, claims: []*resourceapi.ResourceClaim{share("second")}}.pin(t, []string{"link"})
	})
}
