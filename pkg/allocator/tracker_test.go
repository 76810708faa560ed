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
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// naiveState recomputes upstream's AllocatedState from scratch from what
// each claim holds, the way the scheduler's DRA manager does.
func naiveState(recorded, pending map[types.UID]*resourceapi.AllocationResult) structured.AllocatedState {
	st := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	for _, m := range []map[types.UID]*resourceapi.AllocationResult{recorded, pending} {
		for _, alloc := range m {
			if alloc == nil {
				continue
			}
			for _, r := range alloc.Devices.Results {
				if ptr.Deref(r.AdminAccess, false) {
					continue
				}
				id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
				if r.ShareID == nil {
					st.AllocatedDevices.Insert(id)
					continue
				}
				st.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, r.ShareID))
				if r.ConsumedCapacity != nil {
					st.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity))
				}
			}
		}
	}
	return st
}

// TestTrackerStateMatchesARecomputation drives a tracker through random
// claim allocations, updates, stale informer copies, in-flight
// allocations and deletions, and after every step compares its
// incrementally updated State with one translated from scratch from an
// independent recomputation.
func TestTrackerStateMatchesARecomputation(t *testing.T) {
	cluster := inventorygen.NvidiaH100(2).Merge(inventorygen.SharedNICs(2))
	inv := inventory.New()
	for _, s := range cluster.Slices {
		inv.Set(s)
	}
	devices := cluster.Devices()
	for seed := range uint64(20) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			tr := allocator.NewTracker(structured.Features{ConsumableCapacity: true})
			recorded := map[types.UID]*resourceapi.AllocationResult{}
			pending := map[types.UID]*resourceapi.AllocationResult{}
			rv := map[types.UID]int{}
			randomAllocation := func() *resourceapi.AllocationResult {
				alloc := &resourceapi.AllocationResult{}
				for range 1 + rng.IntN(3) {
					d := devices[rng.IntN(len(devices))]
					r := resourceapi.DeviceRequestAllocationResult{Request: "r", Driver: d.Driver, Pool: d.Pool, Device: d.Device}
					switch rng.IntN(4) {
					case 0:
						r.AdminAccess = ptr.To(true)
					case 1:
						r.ShareID = ptr.To(types.UID(fmt.Sprintf("share-%d", rng.IntN(1000))))
						r.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{"bandwidth": resource.MustParse(strconv.Itoa(1+rng.IntN(5)) + "G")}
					}
					alloc.Devices.Results = append(alloc.Devices.Results, r)
				}
				return alloc
			}
			for step := range 300 {
				uid := types.UID(fmt.Sprintf("claim-%d", rng.IntN(12)))
				claim := func(alloc *resourceapi.AllocationResult, version int) *resourceapi.ResourceClaim {
					return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{UID: uid, ResourceVersion: strconv.Itoa(version)},
						Status: resourceapi.ResourceClaimStatus{Allocation: alloc}}
				}
				var what string
				switch rng.IntN(6) {
				case 0, 1:
					what = "allocate or reallocate"
					rv[uid]++
					alloc := randomAllocation()
					if rng.IntN(3) == 0 {
						alloc = nil
						what = "deallocate"
					}
					recorded[uid] = alloc
					tr.SetClaim(claim(alloc, rv[uid]))
				case 2:
					what = "stale copy ignored"
					// A lagging informer delivers an older version of a
					// claim the tracker knows (never after its deletion).
					if _, known := recorded[uid]; known && rv[uid] > 1 {
						tr.SetClaim(claim(randomAllocation(), rv[uid]-1))
					}
				case 3:
					what = "in flight"
					pending[uid] = randomAllocation()
					tr.SetPending(uid, pending[uid])
				case 4:
					what = "in flight done"
					delete(pending, uid)
					tr.ClearPending(uid)
				case 5:
					what = "deleted"
					delete(recorded, uid)
					delete(pending, uid)
					tr.DeleteClaim(uid)
				}
				// Not every step asks for a State: changes pile up.
				if rng.IntN(3) > 0 {
					continue
				}
				want := allocator.NewState(inv, naiveState(recorded, pending))
				if diff := allocator.DiffStates(tr.State(inv), want); diff != "" {
					t.Fatalf("step %d (%s of %s): %s", step, what, uid, diff)
				}
			}
		})
	}
}

func TestTrackerReportsADeviceHeldByTwoClaims(t *testing.T) {
	alloc := func(device string, admin bool) *resourceapi.AllocationResult {
		r := resourceapi.DeviceRequestAllocationResult{Request: "r", Driver: "d", Pool: "p", Device: device}
		if admin {
			r.AdminAccess = ptr.To(true)
		}
		return &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{r}}}
	}
	claim := func(uid, name string, a *resourceapi.AllocationResult) *resourceapi.ResourceClaim {
		return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: name, Namespace: "ns", ResourceVersion: "1"},
			Status: resourceapi.ResourceClaimStatus{Allocation: a}}
	}
	for _, tc := range []struct {
		name  string
		steps func(tr *allocator.Tracker)
		want  []string
	}{
		{"two claims allocated the same device are reported by name", func(tr *allocator.Tracker) {
			tr.SetClaim(claim("a", "first", alloc("dev-0", false)))
			tr.SetClaim(claim("b", "second", alloc("dev-0", false)))
		}, []string{"d/p/dev-0: ns/first, ns/second"}},
		{"an in-flight allocation of a held device is reported", func(tr *allocator.Tracker) {
			tr.SetClaim(claim("a", "first", alloc("dev-0", false)))
			tr.SetClaim(claim("b", "second", nil))
			tr.SetPending("b", alloc("dev-0", false))
		}, []string{"d/p/dev-0: ns/first, ns/second"}},
		{"a claim's own in-flight and written allocation are not a conflict", func(tr *allocator.Tracker) {
			tr.SetClaim(claim("a", "first", nil))
			tr.SetPending("a", alloc("dev-0", false))
			tr.SetClaim(claim("a", "first", alloc("dev-0", false)))
			tr.ClearPending("a")
		}, nil},
		{"admin access holds nothing", func(tr *allocator.Tracker) {
			tr.SetClaim(claim("a", "first", alloc("dev-0", false)))
			tr.SetClaim(claim("b", "admin", alloc("dev-0", true)))
		}, nil},
		{"a device released and then allocated again is no conflict", func(tr *allocator.Tracker) {
			tr.SetClaim(claim("a", "first", alloc("dev-0", false)))
			c := claim("a", "first", nil)
			c.ResourceVersion = "2"
			tr.SetClaim(c)
			tr.SetClaim(claim("b", "second", alloc("dev-0", false)))
		}, nil},
		{"a dry run's in-flight allocation of a device a victim holds is no conflict", func(tr *allocator.Tracker) {
			tr.SetClaim(claim("a", "victim", alloc("dev-0", false)))
			tr.SetClaim(claim("b", "preemptor", nil))
			tr.SetPendingDryRun("b", alloc("dev-0", false))
		}, nil},
		{"the victim's claim written again under a dry run is no conflict", func(tr *allocator.Tracker) {
			tr.SetClaim(claim("b", "preemptor", nil))
			tr.SetPendingDryRun("b", alloc("dev-0", false))
			tr.SetClaim(claim("a", "victim", alloc("dev-0", false)))
		}, nil},
		{"a third claim allocated the device a dry run and a victim hold is reported with the victim", func(tr *allocator.Tracker) {
			tr.SetClaim(claim("a", "victim", alloc("dev-0", false)))
			tr.SetPendingDryRun("b", alloc("dev-0", false))
			tr.SetClaim(claim("c", "third", alloc("dev-0", false)))
		}, []string{"d/p/dev-0: ns/victim, ns/third"}},
		{"an allocation to write after a dry run of the same claim is reported again", func(tr *allocator.Tracker) {
			tr.SetClaim(claim("a", "first", alloc("dev-0", false)))
			tr.SetClaim(claim("b", "second", nil))
			tr.SetPendingDryRun("b", alloc("dev-0", false))
			tr.ClearPending("b")
			tr.SetPending("b", alloc("dev-0", false))
		}, []string{"d/p/dev-0: ns/first, ns/second"}},
		{"a claim created for a placeholder's in-flight allocation and written is no conflict", func(tr *allocator.Tracker) {
			tr.SetPending("placeholder", alloc("dev-0", false))
			tr.MovePending("placeholder", "created")
			tr.SetClaim(claim("created", "pod-extended-resources", alloc("dev-0", false)))
			tr.ClearPending("created")
		}, nil},
		{"a placeholder's in-flight allocation moved to a claim still meets other claims' conflicts", func(tr *allocator.Tracker) {
			tr.SetPending("placeholder", alloc("dev-0", false))
			tr.MovePending("placeholder", "created")
			tr.SetClaim(claim("created", "pod-extended-resources", nil))
			tr.SetClaim(claim("other", "elsewhere", alloc("dev-0", false)))
		}, []string{"d/p/dev-0: ns/pod-extended-resources, ns/elsewhere"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := allocator.NewTracker(structured.Features{ConsumableCapacity: true})
			var got []string
			tr.OnConflict(func(c allocator.Conflict) {
				got = append(got, fmt.Sprintf("%s: %s, %s", c.Device, c.Claims[0], c.Claims[1]))
			})
			tc.steps(tr)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("conflicts %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAMovedInFlightAllocationHoldsItsDevicesThroughout: the devices a
// placeholder holds in flight stay taken while they pass to the claim
// created for them, and until that claim's pending allocation ends.
func TestAMovedInFlightAllocationHoldsItsDevicesThroughout(t *testing.T) {
	alloc := &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
		{Request: "r", Driver: "d", Pool: "p", Device: "dev-0"}}}}
	tr := allocator.NewTracker(structured.Features{})
	held := func() int { return tr.AllocatedState().AllocatedDevices.Len() }
	for _, step := range []struct {
		what string
		do   func()
		want int
	}{
		{"the placeholder's allocation in flight", func() { tr.SetPending("placeholder", alloc) }, 1},
		{"moved to the created claim", func() { tr.MovePending("placeholder", "created") }, 1},
		{"the placeholder's pending cleared", func() { tr.ClearPending("placeholder") }, 1},
		{"a move from a claim with nothing in flight", func() { tr.MovePending("placeholder", "created") }, 1},
		{"the created claim's pending cleared", func() { tr.ClearPending("created") }, 0},
	} {
		step.do()
		if got := held(); got != step.want {
			t.Fatalf("after %s: %d devices held, want %d", step.what, got, step.want)
		}
	}
}

// TestADeletedClaimStaysDeleted: a copy of a claim the API deleted — the
// caller's own write, answered before the deletion and recorded after
// the informer reported it — does not bring the claim and its devices
// back, for as long as such a write can be on its way (5 minutes); a
// newer copy (a fake API's object of the same UID) does.
func TestADeletedClaimStaysDeleted(t *testing.T) {
	alloc := &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
		{Request: "r", Driver: "d", Pool: "p", Device: "dev-0"}}}}
	claim := func(uid, rv string) *resourceapi.ResourceClaim {
		return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: uid, Namespace: "ns", ResourceVersion: rv},
			Status: resourceapi.ResourceClaimStatus{Allocation: alloc}}
	}
	held := func(tr *allocator.Tracker) int { return tr.AllocatedState().AllocatedDevices.Len() }
	now := time.Now()
	tr := allocator.NewTracker(structured.Features{})
	tr.SetClockForTest(func() time.Time { return now })

	tr.SetClaim(claim("a", "5"))
	tr.ClaimDeleted("a", "9")
	tr.SetClaim(claim("a", "7")) // the write, recorded late
	if n := held(tr); n != 0 {
		t.Fatalf("a write older than the deletion brought the claim back: %d devices held", n)
	}
	tr.SetClaim(claim("a", "10"))
	if n := held(tr); n != 1 {
		t.Errorf("a copy newer than the deletion was ignored: %d devices held, want 1", n)
	}

	tr.ClaimDeleted("b", "") // after a relist: version unknown
	tr.SetClaim(claim("b", "1000"))
	if n := held(tr); n != 1 {
		t.Errorf("a claim deleted with its version unknown came back: %d devices held, want a's 1", n)
	}

	tr.DeleteClaim("a")
	tr.SetClaim(claim("c", "1"))
	tr.DeleteClaim("c") // forgets, remembers nothing
	tr.SetClaim(claim("c", "1"))
	if n := held(tr); n != 1 {
		t.Errorf("DeleteClaim kept the claim deleted: %d devices held, want c's 1", n)
	}
	tr.DeleteClaim("c")

	// Forgotten after 5 minutes, when the next deletion comes.
	now = now.Add(5*time.Minute + time.Second)
	tr.ClaimDeleted("d", "1")
	tr.SetClaim(claim("b", "1000"))
	if n := held(tr); n != 1 {
		t.Errorf("a deletion 5 minutes old still ignores copies: %d devices held, want b's 1", n)
	}
}
