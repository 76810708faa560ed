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
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Allocator allocates claims on one node at a time. It is safe for
// concurrent use by several goroutines, each asking about another node.
type Allocator struct {
	features structured.Features
	classes  structured.DeviceClassLister
	inv      *inventory.Inventory
	matcher  *Matcher
	state    *State
	policy   Policy
	// domain, when set, is the topology domain the allocator keeps to
	// (KeptTo): its state holds other domains' devices as taken.
	domain *domainRestriction
	// cross, when set, are constraints across the claims of every call
	// (WithCrossClaimConstraints, crossclaim.go).
	cross *crossClaims

	// prepared caches the node-independent validation of the claims the
	// allocator was last asked about: the scheduler asks about one pod's
	// claims on many nodes.
	prepared atomic.Pointer[prepared]
	// preparedBy keeps, by preparedKey, what this allocator and those
	// derived from it prepared: a preemption dry run asks a derived
	// allocator about a nominated pod's claims on node after node, beside
	// the preemptor's own.
	preparedBy *sync.Map
	// calls recycles per-call search state; allocators derived by
	// WithState and WhatIf share it, so that a preemption dry run's
	// allocator (one per node and step) starts with warm storage.
	calls *sync.Pool
	// placed memoizes what-ifs' allocations on the inventory (whatif.go);
	// shared like calls.
	placed *Placements

	steps atomic.Int64
}

// New builds an allocator over a long-lived inventory and matcher, with
// state as the allocated devices (NewState translates upstream's
// AllocatedState; Tracker.State keeps one up to date). The inventory must
// not change while the allocator is in use. WithState and WhatIf derive
// allocators over other states from it.
func New(features structured.Features, state *State, classLister structured.DeviceClassLister,
	inv *inventory.Inventory, matcher *Matcher, policy Policy) *Allocator {
	return &Allocator{
		features:   features,
		classes:    classLister,
		inv:        inv,
		matcher:    matcher,
		state:      state,
		policy:     policy,
		calls:      &sync.Pool{},
		preparedBy: &sync.Map{},
		placed:     NewPlacements(inv),
	}
}

// WithState returns an allocator like a (features, classes, inventory,
// matcher, policy, and the claims it prepared) whose allocated devices are
// st: a State from NewState or Tracker.State. WhatIf derives one changed
// by a WhatIf.
func (a *Allocator) WithState(st *State) *Allocator {
	// Not New: a dry run derives one per node and step, and shares a's
	// pool and placements instead of making its own.
	b := &Allocator{features: a.features, classes: a.classes, inv: a.inv, matcher: a.matcher, state: st, policy: a.policy,
		cross: a.cross, calls: a.calls, placed: a.placed, preparedBy: a.preparedBy}
	if st.outside != nil {
		// A State derived from a's by a what-if keeps a's domain; a new
		// one (NewState) has none.
		b.domain = a.domain
	}
	b.prepared.Store(a.prepared.Load())
	return b
}

// Allocate finds devices for every claim on node. It returns one result per
// claim (in claim order) when all fit, nil when they do not, and an error
// for problems with the inputs; only errors wrapping
// structured.ErrFailedAllocationOnNode are specific to this node.
func (a *Allocator) Allocate(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim) ([]resourceapi.AllocationResult, error) {
	results, _, err := a.run(ctx, node, claims, answerAndResults, 0)
	return results, err
}

// Fits answers whether Allocate would find devices for claims on node,
// with the same errors, without building the results: a scheduler's Filter
// needs only the answer for most nodes, and then never allocates memory.
// For the same inputs, a later Allocate finds exactly what Fits found.
func (a *Allocator) Fits(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim) (bool, error) {
	_, fits, err := a.run(ctx, node, claims, answerOnly, 0)
	return fits, err
}

// FitsWithin is Fits with a time limit, upstream's filter timeout: when
// the answer takes longer than timeout (evaluating selectors, searching),
// it fails with an error wrapping context.DeadlineExceeded. Answers from a
// summary are bounded by the node's device count and are never timed, so
// the common case costs no timer. timeout 0 means none.
func (a *Allocator) FitsWithin(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, timeout time.Duration) (bool, error) {
	_, fits, err := a.run(ctx, node, claims, answerOnly, timeout)
	return fits, err
}

// AllocateWithin is Allocate with FitsWithin's time limit.
func (a *Allocator) AllocateWithin(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, timeout time.Duration) ([]resourceapi.AllocationResult, error) {
	results, _, err := a.run(ctx, node, claims, answerAndResults, timeout)
	return results, err
}

// runGoal says what run must produce.
type runGoal uint8

const (
	// answerOnly: whether the claims fit, and the errors (Fits).
	answerOnly runGoal = iota
	// answerAndResults: the allocation results as well (Allocate).
	answerAndResults
)

// run answers whether claims fit on node and, for answerAndResults,
// returns their results. timeout, if positive, limits the work other than a
// summary's answer: computing a selection through a context with the
// deadline (summarize's, or the call's), the search through the deadline
// it checks between steps.
func (a *Allocator) run(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, goal runGoal, timeout time.Duration) ([]resourceapi.AllocationResult, bool, error) {
	view, id, err := a.inv.ViewAndID(node, a.viewOptions())
	if err != nil {
		return nil, false, fmt.Errorf("gather pool information: %w", err)
	}
	// Whether the result's node selector can be built (one term at most)
	// is only known once the devices are picked: Fits builds the result on
	// such nodes, so that it fails where Allocate does.
	build := goal == answerAndResults || view.MultiTermSelectors
	// 1. Prepare the claims (prepare.go), once per pod.
	p := a.preparedFor(claims)
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	// 2–3. Select the candidates (select.go) and answer from their counts
	// where the claims allow it (count.go); 4. pick what the search would
	// (pick.go). picked is the summary from which takeFirstFit may take
	// the devices.
	var picked *summary
	if q := p.counts; q != nil && a.cross == nil && ctx.Err() == nil {
		s := q.sums.lookup(id)
		if s == nil {
			s = a.summarize(ctx, node, claims, view, id, q, deadline)
		}
		if s != nil {
			if fits, ok := a.answerFromCounts(q, s, view); ok {
				switch {
				case !fits && s.invalidPools:
					return nil, false, errInvalidPools
				case !fits:
					return nil, false, a.doesNotFit(ctx, node)
				case !build:
					return nil, true, nil
				}
				if !p.fitsOnStack() {
					picked = s
				} else if results, ok, err := a.resultsOnStack(node, view, p, s); ok {
					return results, err == nil, err
				}
			}
		}
	}
	c := a.newCall(ctx, node, claims, view)
	defer a.done(c)
	// A deadline the search checks costs no timer.
	c.deadline = deadline
	if err := c.prepare(p); err != nil {
		return nil, false, err
	}
	// 5. Search (search.go), selecting each request's candidates on the
	// way, unless the pick stands.
	done := picked != nil && c.takeFirstFit(p.counts, picked)
	if !done {
		var err error
		if done, err = c.step(position{}, 0); err != nil {
			return nil, false, err
		}
	}
	if !done && view.InvalidPools {
		return nil, false, errInvalidPools
	}
	if !done {
		return nil, false, a.doesNotFit(ctx, node)
	}
	if !build {
		return nil, true, nil
	}
	// 6. Build the results (results.go).
	results, err := c.results()
	if err != nil {
		return nil, false, err
	}
	return results, true, nil
}

// preparedKey tells claim lists apart for preparedBy: lists with the same
// key are compared claim by claim (prepared.sameClaims).
type preparedKey struct {
	first, last *resourceapi.ResourceClaim
	n           int
}

func preparedKeyOf(claims []*resourceapi.ResourceClaim) preparedKey {
	if len(claims) == 0 {
		return preparedKey{}
	}
	return preparedKey{first: claims[0], last: claims[len(claims)-1], n: len(claims)}
}

// preparedFor returns claims prepared (prepare.go), reusing the last
// preparation when it was for exactly these claims, or else one that this
// allocator or one derived alike made for them: one pod's claims are
// asked about on many nodes, one group's about many domains.
func (a *Allocator) preparedFor(claims []*resourceapi.ResourceClaim) *prepared {
	p := a.prepared.Load()
	if p.sameClaims(claims) {
		return p
	}
	key := preparedKeyOf(claims)
	if v, ok := a.preparedBy.Load(key); ok && v.(*prepared).sameClaims(claims) {
		p = v.(*prepared)
		a.prepared.Store(p)
		return p
	}
	p = a.prepareClaims(claims)
	a.prepared.Store(p)
	a.preparedBy.Store(key, p)
	return p
}

// summarize is countSummary within the deadline, if one is set: computing
// the selection evaluates selectors, which a context interrupts.
func (a *Allocator) summarize(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim,
	view *inventory.NodeView, id inventory.ViewID, q *countPlan, deadline time.Time) *summary {
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	return a.countSummary(ctx, node, claims, view, id, q)
}

// errInvalidPools is the outcome on a node where the claims do not fit
// and some pool is invalid: one of them might have fitted.
var errInvalidPools = fmt.Errorf("invalid resource pools were encountered%w", structured.ErrFailedAllocationOnNode)

// doesNotFit is the outcome on a node where the claims do not fit and
// every pool is valid: no error, logged at V(5).
func (a *Allocator) doesNotFit(ctx context.Context, node *v1.Node) error {
	if v := klog.FromContext(ctx).V(5); v.Enabled() {
		v.Info("Claims do not fit on node", "node", klog.KObj(node))
	}
	return nil
}

// viewOptions are the inventory semantics the allocator's features select.
func (a *Allocator) viewOptions() inventory.Options {
	return inventory.Options{PartitionableDevices: a.features.PartitionableDevices, CompatibilityGroups: a.features.CompatibilityGroups}
}
