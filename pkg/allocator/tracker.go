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
	"math"
	"strconv"
	"sync"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Tracker keeps which devices claims hold — their recorded allocations and
// allocations still in flight — and hands out a State for an inventory
// that it updates by the devices that changed since the last one, instead
// of translating every allocated device for every pod.
//
// A State it returned is never modified afterwards: allocators may read it
// while the tracker moves on. Tracker is safe for concurrent use; State
// must not run concurrently with changes to the inventory.
type Tracker struct {
	// consumableCapacity follows upstream: without the feature, a shared
	// result counts as a dedicated allocation.
	consumableCapacity bool

	mu     sync.Mutex
	claims map[types.UID]*trackedClaim
	// dedicated counts holders per device; shares counts holders per share
	// (normally one) and sharesOf counts shares per device.
	dedicated map[structured.DeviceID]int
	shares    map[structured.SharedDeviceID]int
	sharesOf  map[structured.DeviceID]int
	capacity  structured.ConsumedCapacityCollection
	// dirty lists devices whose entries changed since the last State.
	dirty sets.Set[structured.DeviceID]
	// holders counts, per dedicated device, the uses by each claim (its
	// recorded and in-flight allocation), to notice a device held by two
	// claims; names remembers claims' namespace/name for reports.
	holders map[structured.DeviceID]map[types.UID]int
	names   map[types.UID]string
	// gone keeps claims the API deleted (ClaimDeleted) deleted for
	// goneFor: the resourceVersion of the deleted object, below which
	// SetClaim ignores a copy; goneOrder lists them oldest first, to
	// forget them. now is the clock (tests replace it).
	gone      map[types.UID]int64
	goneOrder []goneClaim
	now       func() time.Time
	// onConflict, if set, hears of a dedicated device that two claims hold.
	onConflict func(Conflict)

	last    *State
	lastInv *inventory.Inventory
	lastGen uint64
}

// goneFor is how long a deleted claim stays deleted: longer than any
// write of it can be on its way back to the caller.
const goneFor = 5 * time.Minute

// goneClaim is a claim deleted at a time.
type goneClaim struct {
	uid types.UID
	at  time.Time
}

// trackedClaim is what one claim contributes.
type trackedClaim struct {
	// rv is the resourceVersion of the recorded object: an older object
	// (a lagging informer) must not undo a newer one (the caller's own
	// write).
	rv       int64
	recorded []deviceUse
	pending  []deviceUse
	// dryRun: pending is a dry run's (SetPendingDryRun), which may hold
	// devices of claims it would evict; no Conflict names the claim.
	dryRun bool
}

// deviceUse is one allocated device of a claim.
type deviceUse struct {
	id       structured.DeviceID
	share    *structured.SharedDeviceID
	capacity *structured.DeviceConsumedCapacity
}

// NewTracker returns an empty tracker.
func NewTracker(features structured.Features) *Tracker {
	return &Tracker{
		consumableCapacity: features.ConsumableCapacity,
		claims:             map[types.UID]*trackedClaim{},
		dedicated:          map[structured.DeviceID]int{},
		shares:             map[structured.SharedDeviceID]int{},
		sharesOf:           map[structured.DeviceID]int{},
		capacity:           structured.NewConsumedCapacityCollection(),
		dirty:              sets.New[structured.DeviceID](),
		holders:            map[structured.DeviceID]map[types.UID]int{},
		names:              map[types.UID]string{},
		gone:               map[types.UID]int64{},
		now:                time.Now,
	}
}

// Conflict is a dedicated device that two claims hold at once: a double
// allocation, whoever made it.
type Conflict struct {
	Device structured.DeviceID
	// Claims are the two claims as namespace/name (or their UID when the
	// name is unknown), the one that held the device first first.
	Claims [2]string
}

// OnConflict sets a function that hears of every double allocation the
// tracker notices. It is called with the tracker's lock held: it must not
// call back into the tracker.
func (t *Tracker) OnConflict(f func(Conflict)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.onConflict = f
}

func (t *Tracker) name(uid types.UID) string {
	if n := t.names[uid]; n != "" {
		return n
	}
	return string(uid)
}

// uses lists the devices an allocation holds, as upstream's scheduler
// counts them: admin-access results hold nothing.
func (t *Tracker) uses(alloc *resourceapi.AllocationResult) []deviceUse {
	return usesOf(alloc, t.consumableCapacity)
}

// usesOf lists the devices an allocation holds: admin-access results hold
// nothing, and without consumableCapacity a shared result counts as a
// dedicated one.
func usesOf(alloc *resourceapi.AllocationResult, consumableCapacity bool) []deviceUse {
	if alloc == nil {
		return nil
	}
	var out []deviceUse
	for _, r := range alloc.Devices.Results {
		if ptr.Deref(r.AdminAccess, false) {
			continue
		}
		u := deviceUse{id: structured.MakeDeviceID(r.Driver, r.Pool, r.Device)}
		if consumableCapacity && r.ShareID != nil {
			share := structured.MakeSharedDeviceID(u.id, r.ShareID)
			u.share = &share
			if r.ConsumedCapacity != nil {
				c := structured.NewDeviceConsumedCapacity(u.id, r.ConsumedCapacity)
				u.capacity = &c
			}
		}
		out = append(out, u)
	}
	return out
}

// SetClaim records the claim's status.allocation, unless a newer version
// of the claim was recorded already.
func (t *Tracker) SetClaim(claim *resourceapi.ResourceClaim) {
	rv, _ := strconv.ParseInt(claim.ResourceVersion, 10, 64)
	uses := t.uses(claim.Status.Allocation)
	t.mu.Lock()
	defer t.mu.Unlock()
	if deleted, ok := t.gone[claim.UID]; ok && rv <= deleted {
		return // a copy from before the claim's deletion
	}
	tc := t.claims[claim.UID]
	if tc == nil {
		tc = &trackedClaim{}
		t.claims[claim.UID] = tc
	} else if rv != 0 && rv < tc.rv {
		return
	}
	if claim.Name != "" {
		t.names[claim.UID] = claim.Namespace + "/" + claim.Name
	}
	tc.rv = rv
	t.apply(claim.UID, tc.recorded, -1)
	tc.recorded = uses
	t.apply(claim.UID, uses, +1)
	t.forgetIfEmpty(claim.UID, tc)
}

// DeleteClaim forgets a deleted claim, including anything in flight for it.
func (t *Tracker) DeleteClaim(uid types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.deleteLocked(uid)
}

// ClaimDeleted forgets a claim the API deleted, as DeleteClaim, and keeps
// it deleted for a while: SetClaim then ignores a copy of it whose
// resourceVersion is not newer than rv, the deleted object's (any copy
// when rv is "", unknown). A caller that records its own writes of a
// claim may record one after the informer reported the claim deleted (the
// write was answered before the deletion, recorded after it); without
// this the claim would come back and hold its devices for good. The API
// never reuses a UID, so no later copy is newer; a fake API that does
// gives the new object a newer resourceVersion.
func (t *Tracker) ClaimDeleted(uid types.UID, rv string) {
	deleted := int64(math.MaxInt64)
	if v, err := strconv.ParseInt(rv, 10, 64); err == nil && rv != "" {
		deleted = v
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.deleteLocked(uid)
	now := t.now()
	for len(t.goneOrder) > 0 && now.Sub(t.goneOrder[0].at) > goneFor {
		delete(t.gone, t.goneOrder[0].uid)
		t.goneOrder = t.goneOrder[1:]
	}
	if _, ok := t.gone[uid]; !ok {
		t.goneOrder = append(t.goneOrder, goneClaim{uid: uid, at: now})
	}
	t.gone[uid] = max(t.gone[uid], deleted)
}

func (t *Tracker) deleteLocked(uid types.UID) {
	if tc := t.claims[uid]; tc != nil {
		t.apply(uid, tc.recorded, -1)
		t.apply(uid, tc.pending, -1)
		delete(t.claims, uid)
	}
	delete(t.names, uid)
}

// SetPending records an allocation in flight for the claim (chosen, not
// yet written), replacing an earlier one.
func (t *Tracker) SetPending(uid types.UID, alloc *resourceapi.AllocationResult) {
	t.setPending(uid, alloc, pendingToWrite)
}

// SetPendingDryRun is SetPending for the allocation of a dry run that is
// undone and never written: a pod group preemption's re-run reserves its
// pods on devices that the claims of the pods it would evict still hold.
// Such an overlap is no double allocation, and no Conflict reports it.
func (t *Tracker) SetPendingDryRun(uid types.UID, alloc *resourceapi.AllocationResult) {
	t.setPending(uid, alloc, pendingDryRun)
}

// pendingKind tells an in-flight allocation to be written from a dry
// run's.
type pendingKind int

const (
	pendingToWrite pendingKind = iota
	pendingDryRun
)

func (t *Tracker) setPending(uid types.UID, alloc *resourceapi.AllocationResult, kind pendingKind) {
	uses := t.uses(alloc)
	t.mu.Lock()
	defer t.mu.Unlock()
	tc := t.claims[uid]
	if tc == nil {
		tc = &trackedClaim{}
		t.claims[uid] = tc
	}
	t.apply(uid, tc.pending, -1)
	tc.pending, tc.dryRun = uses, kind == pendingDryRun && len(uses) > 0
	t.apply(uid, uses, +1)
	t.forgetIfEmpty(uid, tc)
}

// MovePending hands claim from's in-flight allocation to claim to, at
// once: a claim created for an allocation chosen under a placeholder (a
// pod's DRA-backed extended resources) holds the devices from then on,
// without a moment where they look free, and its written allocation is
// then its own, no Conflict with the placeholder.
func (t *Tracker) MovePending(from, to types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	src := t.claims[from]
	if src == nil || len(src.pending) == 0 {
		return
	}
	dst := t.claims[to]
	if dst == nil {
		dst = &trackedClaim{}
		t.claims[to] = dst
	}
	uses, dryRun := src.pending, src.dryRun
	// Released first, so that the claim taking them is their only holder.
	t.apply(from, uses, -1)
	src.pending, src.dryRun = nil, false
	t.forgetIfEmpty(from, src)
	t.apply(to, dst.pending, -1)
	dst.pending, dst.dryRun = uses, dryRun
	t.apply(to, uses, +1)
}

// ClearPending drops the claim's in-flight allocation, if any.
func (t *Tracker) ClearPending(uid types.UID) { t.SetPending(uid, nil) }

func (t *Tracker) forgetIfEmpty(uid types.UID, tc *trackedClaim) {
	if len(tc.recorded) == 0 && len(tc.pending) == 0 && tc.rv == 0 {
		delete(t.claims, uid)
	}
}

// apply adds (sign +1) or removes (-1) the uses of claim uid; t.mu must
// be held.
func (t *Tracker) apply(uid types.UID, uses []deviceUse, sign int) {
	for _, u := range uses {
		t.dirty.Insert(u.id)
		if u.share == nil {
			addCount(t.dedicated, u.id, sign)
			t.hold(uid, u.id, sign)
			continue
		}
		addCount(t.shares, *u.share, sign)
		addCount(t.sharesOf, u.id, sign)
		if u.capacity != nil {
			if sign > 0 {
				t.capacity.Insert(*u.capacity)
			} else {
				t.capacity.Remove(*u.capacity)
			}
		}
	}
}

// hold counts claim uid's use of a dedicated device and reports a second
// claim holding it.
func (t *Tracker) hold(uid types.UID, id structured.DeviceID, sign int) {
	h := t.holders[id]
	if h == nil {
		if sign < 0 {
			return
		}
		h = map[types.UID]int{}
		t.holders[id] = h
	}
	if sign > 0 && h[uid] == 0 && len(h) > 0 && t.onConflict != nil && !t.inDryRun(uid) {
		for other := range h {
			if !t.inDryRun(other) {
				t.onConflict(Conflict{Device: id, Claims: [2]string{t.name(other), t.name(uid)}})
				break
			}
		}
	}
	addCount(h, uid, sign)
	if len(h) == 0 {
		delete(t.holders, id)
	}
}

// inDryRun reports whether claim uid's in-flight allocation is a dry
// run's (SetPendingDryRun); t.mu must be held.
func (t *Tracker) inDryRun(uid types.UID) bool {
	tc := t.claims[uid]
	return tc != nil && tc.dryRun
}

func addCount[K comparable](m map[K]int, k K, delta int) {
	if n := m[k] + delta; n > 0 {
		m[k] = n
	} else {
		delete(m, k)
	}
}
