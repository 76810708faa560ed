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
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// ExplanationKind and its values name the kinds of Explanation for the
// external tests.
type ExplanationKind = explanationKind

const (
	CannotAllocate          = kindCannotAllocate
	NoMatchingDevice        = kindNoMatchingDevice
	AllMatchingAllocated    = kindAllMatchingAllocated
	NotEnoughFree           = kindNotEnoughFree
	ConstraintUnsatisfiable = kindConstraintUnsatisfiable
	CutShort                = kindCutShort
	TooFewMatching          = kindTooFewMatching
	UntoleratedTaints       = kindUntoleratedTaints
	CountersExhausted       = kindCountersExhausted
	CapacityExhausted       = kindCapacityExhausted
	NodeOperationsRequired  = kindNodeOperationsRequired
)

// Explain is ExplainBefore without a deadline, for the tests.
func (a *Allocator) Explain(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim) Explanation {
	return a.ExplainBefore(ctx, node, claims, time.Time{})
}

// NewAllocator builds an allocator over a private inventory of slices, with
// the parameters and contract of upstream's structured.NewAllocator, so
// that the differential tests build both the same way. As there, every
// slice of the list counts, in list order, whatever its name: the
// inventory keeps each under its position.
func NewAllocator(_ context.Context,
	features structured.Features,
	allocatedState structured.AllocatedState,
	classLister structured.DeviceClassLister,
	slices []*resourceapi.ResourceSlice,
	celCache *cel.Cache,
) (*Allocator, error) {
	inv := inventory.New()
	for i, s := range slices {
		inv.SetWithKey(strconv.Itoa(i), s)
	}
	return New(features, NewState(inv, allocatedState), classLister, inv, NewMatcher(celCache), FirstFit), nil
}

// Apply is apply, for the tests that compare the States a WhatIf yields.
func (s *State) Apply(inv *inventory.Inventory, features structured.Features, w WhatIf) *State {
	a := New(features, s, nil, inv, nil, FirstFit)
	return s.apply(inv, w, a.placedOn)
}

// CacheLimits are the limits of a Matcher's cache, for the tests that
// bound it.
type CacheLimits = cacheLimits

// NewMatcherWithLimits is newMatcherWithLimits.
func NewMatcherWithLimits(cache *cel.Cache, limits CacheLimits) *Matcher {
	return newMatcherWithLimits(cache, limits)
}

// MaxActivations is how many devices' CEL inputs a Matcher keeps.
const MaxActivations = maxActivations

// DiffStates describes how two States differ ("" if they are equal): the
// allocated, shared and aggregated-capacity entries per device index.
func DiffStates(a, b *State) string {
	switch {
	case !a.dedicated.Equal(b.dedicated):
		return fmt.Sprintf("dedicated devices differ: %v vs %v", slices.Collect(a.dedicated.All()), slices.Collect(b.dedicated.All()))
	case !a.shared.Equal(b.shared):
		return fmt.Sprintf("shared devices differ: %v vs %v", slices.Collect(a.shared.All()), slices.Collect(b.shared.All()))
	case len(a.aggregated) != len(b.aggregated):
		return fmt.Sprintf("aggregated capacity for %d vs %d devices", len(a.aggregated), len(b.aggregated))
	}
	for i, ca := range a.aggregated {
		cb, ok := b.aggregated[i]
		if !ok || len(ca) != len(cb) {
			return fmt.Sprintf("aggregated capacity of device %d: %v vs %v", i, ca, cb)
		}
		for name, q := range ca {
			if cb[name] == nil || q.Cmp(*cb[name]) != 0 {
				return fmt.Sprintf("aggregated capacity %s of device %d: %v vs %v", name, i, q, cb[name])
			}
		}
	}
	return ""
}

// AllocatedStateOf describes s, a State translated for inv, in upstream's
// form, so that the same devices can be translated for another inventory
// holding the same slices: dedicated devices by ID, one share per shared
// device and its aggregated capacity. It reads s the way allocators do
// and writes nothing.
func AllocatedStateOf(inv *inventory.Inventory, s *State) structured.AllocatedState {
	st := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	id := func(i int) (structured.DeviceID, bool) {
		d := inv.Device(i)
		if d == nil {
			return structured.DeviceID{}, false
		}
		return structured.MakeDeviceID(d.Driver, d.Pool, d.Name()), true
	}
	for i := range s.dedicated.All() {
		if id, ok := id(i); ok {
			st.AllocatedDevices.Insert(id)
		}
	}
	share := types.UID("share")
	for i := range s.shared.All() {
		if id, ok := id(i); ok {
			st.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, &share))
		}
	}
	for i, c := range s.aggregated {
		if id, ok := id(i); ok {
			st.AggregatedCapacity[id] = c.Clone()
		}
	}
	return st
}

// FindTwins marks each claim that is the twin of the claim before it
// (twins.go).
var FindTwins = findTwins

// Steps counts the search steps taken by all Allocate calls so far
// (upstream's NumAllocateOneInvocations).
func (a *Allocator) Steps() int64 { return a.steps.Load() }

// MiscountForTest changes the tracker's count of holders of a dedicated
// device behind its claims' back, as a bookkeeping bug would.
func (t *Tracker) MiscountForTest(id structured.DeviceID, delta int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dedicated[id] += delta
}

// FlipStateBitForTest brings the tracker's State for inv up to date and
// then flips device i's allocated bit in it, as a faulty incremental
// update would.
func (t *Tracker) FlipStateBitForTest(inv *inventory.Inventory, i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stateLocked(inv)
	if s.dedicated.Has(i) {
		s.dedicated.Clear(i)
	} else {
		s.dedicated.Set(i)
	}
}

// MiscountCountersForTest sets one counter of a pool's cached available
// counters in the tracker's last State, as a stale cache entry would; it
// reports whether the pool had an entry.
func (t *Tracker) MiscountCountersForTest(pool inventory.PoolID, set, counter string, value resource.Quantity) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.last
	s.countersMu.Lock()
	defer s.countersMu.Unlock()
	pc, ok := s.counters[pool]
	if ok {
		pc.sets[set][counter] = value
	}
	return ok
}

// MiscountHolderForTest counts claim uid once more (or less) among the
// holders of a dedicated device, and the device's holders with it, as a
// use applied twice would.
func (t *Tracker) MiscountHolderForTest(id structured.DeviceID, uid types.UID, delta int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dedicated[id] += delta
	if t.holders[id] == nil {
		t.holders[id] = map[types.UID]int{}
	}
	t.holders[id][uid] += delta
}

// SetClockForTest replaces the tracker's clock (how long a deleted claim
// stays deleted).
func (t *Tracker) SetClockForTest(now func() time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.now = now
}

// StateOf returns the allocated devices a answers for.
func StateOf(a *Allocator) *State { return a.state }

// ExplainBothWays returns ExplainBefore's finding read off the counts (ok
// false where it cannot be) and found by search, for claims on node.
func (a *Allocator) ExplainBothWays(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim) (fromCounts Explanation, ok bool, bySearch Explanation) {
	view, id, err := a.inv.ViewAndID(node, a.viewOptions())
	if err != nil {
		panic(err)
	}
	p := a.prepareClaims(claims)
	fromCounts, ok = a.explainFromCounts(ctx, p, id)
	return fromCounts, ok, a.explainBySearch(ctx, node, claims, view, p, time.Time{})
}

// PreparedFor is preparedFor, for the tests of what allocators share.
func (a *Allocator) PreparedFor(claims []*resourceapi.ResourceClaim) any {
	return a.preparedFor(claims)
}

// FitsReleasingFromCounts is fitsReleasingFromCounts.
func (a *Allocator) FitsReleasingFromCounts(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, w WhatIf) (fits bool, err error, ok bool) {
	return a.fitsReleasingFromCounts(ctx, node, claims, w)
}
