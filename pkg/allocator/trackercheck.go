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

package allocator

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Compare reports how the tracker differs from what the API says it
// should hold, and from itself:
//
//   - claims holds every ResourceClaim as the API has it (an informer's
//     lister): each device a claim's allocation holds must be held by
//     the claim in the tracker, with the same share and consumed
//     capacity, and nothing more. A claim the tracker knows at a newer
//     resourceVersion is skipped (the plugin's own write, which the
//     informer has not delivered yet), and so is a device the tracker has
//     in flight for the claim.
//   - an allocation the tracker has in flight is one the scheduler has in
//     flight too (inFlight, by claim UID; nil takes every one for in
//     flight): otherwise its devices would stay taken.
//   - the counts per device (holders, shares, consumed capacity) are
//     those of the claims tracked (incremental bookkeeping).
//   - the State handed to allocators, brought up to date as State does,
//     equals one rebuilt from the counts, and so do the pool counters
//     cached in it (statecheck.go).
//
// In-flight allocations the API has not seen yet are never differences.
// Compare holds the tracker's lock throughout and, like State, must not
// run concurrently with changes to inv.
func (t *Tracker) Compare(inv *inventory.Inventory, claims []*resourceapi.ResourceClaim, inFlight func(types.UID) bool) []drift.Difference {
	t.mu.Lock()
	defer t.mu.Unlock()
	var l drift.List
	t.compareClaims(&l, claims)
	t.compareInFlight(&l, inFlight)
	t.compareCounts(&l)
	t.compareState(&l, inv)
	return l.Sorted()
}

// compareClaims compares the recorded allocations with the API's claims.
func (t *Tracker) compareClaims(l *drift.List, claims []*resourceapi.ResourceClaim) {
	// known counts the claims holding recorded devices that the API has:
	// when they are all the tracker's, no recorded claim is deleted.
	known := 0
	for _, c := range claims {
		tc := t.claims[c.UID]
		if tc != nil && len(tc.recorded) > 0 {
			known++
		}
		rv, _ := strconv.ParseInt(c.ResourceVersion, 10, 64)
		if tc != nil && rv != 0 && tc.rv > rv {
			continue // the tracker has a newer copy than the informer
		}
		var recorded, pending []deviceUse
		if tc != nil {
			recorded, pending = tc.recorded, tc.pending
			if sameUses(c.Status.Allocation, recorded, t.consumableCapacity) {
				continue
			}
		}
		compareUses(l, c.Namespace+"/"+c.Name, t.uses(c.Status.Allocation), recorded, pending)
	}
	holding := 0
	for _, tc := range t.claims {
		if len(tc.recorded) > 0 {
			holding++
		}
	}
	if holding == known {
		return
	}
	seen := make(map[types.UID]bool, len(claims))
	for _, c := range claims {
		seen[c.UID] = true
	}
	for uid, tc := range t.claims {
		if seen[uid] || len(tc.recorded) == 0 {
			continue
		}
		for pool, devices := range byPool(tc.recorded) {
			l.Add(drift.Allocation, pool, "%s held by %s in the tracker, claim deleted in the API", devicesPhrase(devices), t.name(uid))
		}
	}
}

// sameUses reports whether the uses recorded are those of alloc, in
// order: usesOf(alloc) without building them.
func sameUses(alloc *resourceapi.AllocationResult, recorded []deviceUse, consumableCapacity bool) bool {
	if alloc == nil {
		return len(recorded) == 0
	}
	i := 0
	for _, r := range alloc.Devices.Results {
		if ptr.Deref(r.AdminAccess, false) {
			continue
		}
		if i == len(recorded) {
			return false
		}
		u := recorded[i]
		i++
		if u.id.Driver.String() != r.Driver || u.id.Pool.String() != r.Pool || u.id.Device.String() != r.Device {
			return false
		}
		shared := consumableCapacity && r.ShareID != nil
		switch {
		case !shared:
			if u.share != nil {
				return false
			}
		case u.share == nil || u.share.ShareID.String() != string(*r.ShareID):
			return false
		case (r.ConsumedCapacity == nil) != (u.capacity == nil):
			return false
		case u.capacity != nil && !sameCapacity(u.capacity.ConsumedCapacity, structured.NewDeviceConsumedCapacity(u.id, r.ConsumedCapacity).ConsumedCapacity):
			return false
		}
	}
	return i == len(recorded)
}

// useKey identifies one use of a device: the device, and the share for a
// shared result.
type useKey struct {
	id    structured.DeviceID
	share structured.SharedDeviceID
}

func keyOf(u deviceUse) useKey {
	k := useKey{id: u.id}
	if u.share != nil {
		k.share = *u.share
	}
	return k
}

// compareUses compares one claim's uses in the API with those the
// tracker recorded; uses it has pending are in flight, not missing.
func compareUses(l *drift.List, claim string, api, recorded, pending []deviceUse) {
	if len(api) == 0 && len(recorded) == 0 {
		return
	}
	have := make(map[useKey]deviceUse, len(recorded))
	for _, u := range recorded {
		have[keyOf(u)] = u
	}
	var missing []deviceUse
	for _, u := range api {
		k := keyOf(u)
		got, ok := have[k]
		if !ok {
			if !slices.ContainsFunc(pending, func(p deviceUse) bool { return keyOf(p) == k }) {
				missing = append(missing, u)
			}
			continue
		}
		delete(have, k)
		if want, held := consumed(u), consumed(got); want != held {
			l.Add(drift.Allocation, poolObject(u.id), "device %s of %s consumes %s in the API, %s in the tracker", shareName(u), claim, want, held)
		}
	}
	for pool, devices := range byPool(missing) {
		l.Add(drift.Allocation, pool, "%s allocated to %s in the API, free in the tracker", devicesPhrase(devices), claim)
	}
	extra := slices.Collect(maps.Values(have))
	for pool, devices := range byPool(extra) {
		l.Add(drift.Allocation, pool, "%s held by %s in the tracker, free in the API", devicesPhrase(devices), claim)
	}
}

// compareInFlight reports allocations in flight in the tracker that the
// scheduler no longer has in flight.
func (t *Tracker) compareInFlight(l *drift.List, inFlight func(types.UID) bool) {
	if inFlight == nil {
		return
	}
	for uid, tc := range t.claims {
		if len(tc.pending) == 0 || inFlight(uid) {
			continue
		}
		for pool, devices := range byPool(tc.pending) {
			l.Add(drift.InFlight, pool, "%s in flight for %s in the tracker, not in the scheduler", devicesPhrase(devices), t.name(uid))
		}
	}
}

func poolObject(id structured.DeviceID) string {
	return "pool " + id.Driver.String() + "/" + id.Pool.String()
}

// shareName names a use's device, and its share if it has one.
func shareName(u deviceUse) string {
	if u.share != nil && u.share.ShareID.String() != "" {
		return u.id.Device.String() + " (share " + u.share.ShareID.String() + ")"
	}
	return u.id.Device.String()
}

// consumed renders a use's consumed capacity, sorted by name.
func consumed(u deviceUse) string {
	if u.capacity == nil {
		return "nothing"
	}
	return renderCapacity(u.capacity.ConsumedCapacity)
}

func renderCapacity(c structured.ConsumedCapacity) string {
	parts := make([]string, 0, len(c))
	for _, name := range slices.Sorted(maps.Keys(c)) {
		parts = append(parts, string(name)+"="+c[name].String())
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// byPool groups uses by their pool's object name, each pool's device
// names sorted.
func byPool(uses []deviceUse) map[string][]string {
	out := map[string][]string{}
	for _, u := range uses {
		p := poolObject(u.id)
		out[p] = append(out[p], shareName(u))
	}
	for _, names := range out {
		slices.SortFunc(names, cmp.Compare)
	}
	return out
}

// devicesPhrase renders device names as "device a" or "devices a, b".
func devicesPhrase(names []string) string {
	if len(names) == 1 {
		return "device " + names[0]
	}
	return "devices " + strings.Join(names, ", ")
}
