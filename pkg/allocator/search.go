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
	"errors"
	"fmt"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// errMaxSize says that a claim would exceed the result size limit; it
// makes the search try the next firstAvailable alternative and never
// leaves Allocate (§5.1).
var errMaxSize = errors.New("allocation result would exceed the maximum size")

// deadlineEvery is how many steps of a search pass between looks at the
// clock; the first step looks.
const deadlineEvery = 16

// position is where the search stands: claim, request, subrequest and the
// number of devices already chosen for that (sub)request.
type position struct {
	claim, req, sub, dev int
	// subChosen is set once the search has chosen sub among the
	// request's firstAvailable alternatives.
	subChosen bool
}

// deviceResult is one chosen device.
type deviceResult struct {
	req         *request
	cand        candidate
	adminAccess bool
	// share is set for a share of a multi-allocatable device; its ID is
	// minted when the result is built (Fits needs none).
	share    bool
	consumed map[resourceapi.QualifiedName]resource.Quantity
}

// step is one step of the depth-first search (§5.1). start is the index
// into c.cands from which the current request may pick its next device,
// which makes the devices of one request an increasing combination.
func (c *call) step(p position, start int) (bool, error) {
	c.a.steps.Add(1)
	if c.ctx.Err() != nil {
		return false, fmt.Errorf("filter operation aborted: %w", context.Cause(c.ctx))
	}
	if c.steps++; !c.deadline.IsZero() && c.steps%deadlineEvery == 1 && time.Now().After(c.deadline) {
		return false, fmt.Errorf("filter operation aborted: %w", context.DeadlineExceeded)
	}
	if p.claim >= len(c.claimStates) {
		return true, nil
	}
	cs := c.claimStates[p.claim]
	if p.req >= len(cs.requests) {
		done, err := c.step(position{claim: p.claim + 1}, 0)
		if errors.Is(err, errMaxSize) {
			return false, nil
		}
		return done, err
	}
	alternatives := cs.requests[p.req]
	r := alternatives[p.sub]

	if !p.subChosen && r.hasSubs {
		// A twin starts at its predecessor's pick (twins.go).
		var from twinPick
		if p.req == 0 {
			from = c.twinBound(p.claim)
		}
		allExceeded := true
		for i := from.sub; i < len(alternatives); i++ {
			q := p
			q.sub, q.subChosen = i, true
			first := 0
			if i == from.sub {
				first = from.pos
			}
			done, err := c.step(q, first)
			if errors.Is(err, errMaxSize) {
				continue
			}
			allExceeded = false
			if err != nil {
				return false, err
			}
			if done {
				cs.selected[p.req] = i
				return true, nil
			}
		}
		if allExceeded {
			return false, errMaxSize
		}
		return false, nil
	}

	if r.mode == resourceapi.DeviceAllocationModeAll && len(r.allDevices) == 0 {
		return false, nil
	}
	if p.dev >= r.numDevices {
		return c.step(position{claim: p.claim, req: p.req + 1}, 0)
	}
	if r.numDevices-p.dev > resourceapi.AllocationResultsMaxSize-len(cs.results) {
		return false, errMaxSize
	}
	next := p
	next.dev++

	if r.mode == resourceapi.DeviceAllocationModeAll {
		ok, t, err := c.tryDevice(p, r, r.allDevices[p.dev], tryEveryDevice)
		if err != nil || !ok {
			return false, err
		}
		done, err := c.step(next, 0)
		if err != nil || !done {
			c.release(r, &t)
			return false, err
		}
		return true, nil
	}

	if p.req == 0 && p.dev == 0 && !r.hasSubs {
		start = c.twinBound(p.claim).pos
	}
	sel := c.selection(r)
	// FirstFit walks the candidates in upstream's order; other policies
	// walk a permutation of them. Either way the devices of one request
	// form an increasing combination in that order, so the search stays
	// exhaustive and only which valid allocation comes first changes.
	var order []int
	if c.a.policy != FirstFit {
		order = c.order(r, sel)
	}
	for k, i, more := start, 0, false; ; k++ {
		if order == nil {
			if i, more = sel.candidates.NextSet(k); !more {
				break
			}
			k = i
		} else {
			if k >= len(order) {
				break
			}
			i = order[k]
		}
		cand := c.cand(i)
		d := cand.dev
		if r.adminAccess {
			if c.allocatingFor(d.Index, p.claim) {
				continue
			}
		} else if c.inUse(d.Index) {
			continue
		}
		if sel.failed.Has(i) {
			return false, sel.errs[i].wrap(r, klog.KObj(c.claims[p.claim]), d)
		}
		if c.a.features.ConsumableCapacity {
			fits, err := c.capacityFits(r, d, c.a.state.aggregated[d.Index], c.inProgress(d.Index))
			if err != nil {
				return false, fmt.Errorf("claim %s, request %s: checking capacity for device %s: %w", klog.KObj(c.claims[p.claim]), r.shortName(), d.ID(), err)
			}
			if !fits {
				continue
			}
		}
		ok, t, err := c.tryDevice(p, r, cand, tryCheckedCandidate)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		if p.req == 0 && p.dev == 0 {
			cs.pick = twinPick{sub: p.sub, pos: k}
		}
		done, err := c.step(next, k+1)
		if err == nil && done {
			return true, nil
		}
		c.release(r, &t)
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

// inUse reports a device taken by a dedicated allocation, persisted or in
// this call.
func (c *call) inUse(i int) bool {
	return c.a.state.dedicated.Has(i) || (len(c.allocating) > 0 && len(c.allocating[i]) > 0)
}

// allocatingFor reports whether claim ci takes device i in this call.
func (c *call) allocatingFor(i, ci int) bool {
	for _, x := range c.allocating[i] {
		if x == ci {
			return true
		}
	}
	return false
}

// taken records what tryDevice took for one device, so that release can
// give it back in reverse order (upstream's rollback state).
type taken struct {
	cand        candidate
	claim       int
	counters    bool
	groups      bool
	constraints int
	cross       int
	marked      bool
	shared      bool
	consumed    map[resourceapi.QualifiedName]resource.Quantity
	result      bool
}

// tryMode says how the search came to a device.
type tryMode uint8

const (
	// tryEveryDevice: an All-mode request takes each of its devices in
	// turn, so a violated constraint is an error, not a reason to look
	// further.
	tryEveryDevice tryMode = iota
	// tryCheckedCandidate: an ExactCount request chose the candidate after
	// its capacityFits passed; nothing between that check and tryDevice
	// changes consumption, so tryDevice need not repeat it.
	tryCheckedCandidate
)

// tryDevice checks and takes one device for the request at p, in
// upstream's order (§5.2); mode says how the search came to it. On
// success, release(t) gives everything back.
func (c *call) tryDevice(p position, r *request, cand candidate, mode tryMode) (bool, taken, error) {
	d := cand.dev
	cs := c.claimStates[p.claim]
	t := taken{cand: cand, claim: p.claim}
	multi := c.a.features.ConsumableCapacity && ptr.Deref(d.Spec.AllowMultipleAllocations, false)
	if !multi && r.adminAccess && c.allocatingFor(d.Index, p.claim) {
		return false, t, nil
	}
	if !r.adminAccess && c.inUse(d.Index) {
		return false, t, nil
	}
	if c.nodeOperationsBlock(d) {
		return false, t, nil
	}
	if !c.a.features.PartitionableDevices && len(d.Spec.ConsumesCounters) > 0 {
		return false, t, nil
	}

	skipCounters := multi && c.capacityInUse(d.Index)
	if !skipCounters && len(d.Spec.ConsumesCounters) > 0 {
		if c.a.features.CompatibilityGroups {
			if !c.admitGroups(cand) {
				return false, t, nil
			}
			t.groups = true
		}
		if !c.reserveCounters(cand) {
			c.release(r, &t)
			return false, t, nil
		}
		t.counters = true
	}
	if c.a.features.DeviceTaints && taintPrevents(d.Spec.Taints, r.tolerations) {
		c.release(r, &t)
		return false, t, nil
	}
	for _, con := range cs.constraints {
		ok, err := con.add(c, r, d)
		if err != nil {
			c.release(r, &t)
			return false, t, err
		}
		if !ok {
			c.release(r, &t)
			if mode == tryEveryDevice {
				return false, t, fmt.Errorf("claim %s, request %s: cannot add device %s because a claim constraint would not be satisfied", klog.KObj(c.claims[p.claim]), r.shortName(), d.ID())
			}
			return false, t, nil
		}
		t.constraints++
	}
	for _, con := range c.cross {
		ok, err := con.add(c, r, d)
		if err != nil {
			c.release(r, &t)
			return false, t, err
		}
		if !ok {
			c.release(r, &t)
			if mode == tryEveryDevice {
				return false, t, fmt.Errorf("claim %s, request %s: cannot add device %s because a constraint across claims would not be satisfied", klog.KObj(c.claims[p.claim]), r.shortName(), d.ID())
			}
			return false, t, nil
		}
		t.cross++
	}
	if !multi {
		list, ok := c.allocating[d.Index]
		if !ok {
			list = c.takeList()
		}
		c.allocating[d.Index] = append(list, p.claim)
		t.marked = true
	}
	res := deviceResult{req: r, cand: cand, adminAccess: r.adminAccess}
	if c.a.features.ConsumableCapacity {
		if mode != tryCheckedCandidate {
			fits, err := c.capacityFits(r, d, c.a.state.aggregated[d.Index], c.inProgress(d.Index))
			if err != nil {
				c.release(r, &t)
				return false, t, fmt.Errorf("claim %s, request %s: rechecking capacity for device %s: %w", klog.KObj(c.claims[p.claim]), r.shortName(), d.ID(), err)
			}
			if !fits {
				c.release(r, &t)
				return false, t, nil
			}
		}
		if multi {
			consumed, err := consumedCapacity(r.capacity, d.Spec.Capacity, c.a.rangeArithmetic())
			if err != nil {
				c.release(r, &t)
				return false, t, fmt.Errorf("claim %s, request %s: computing consumed capacity for device %s: %w", klog.KObj(c.claims[p.claim]), r.shortName(), d.ID(), err)
			}
			res.share = true
			if len(consumed) > 0 {
				res.consumed = consumed
			}
			c.addShare(d.Index, consumed)
			t.shared, t.consumed = true, consumed
		}
	}
	cs.results = append(cs.results, res)
	t.result = true
	return true, t, nil
}

// release gives back what tryDevice took, in reverse order.
func (c *call) release(r *request, t *taken) {
	d := t.cand.dev
	cs := c.claimStates[t.claim]
	if t.result {
		cs.results = cs.results[:len(cs.results)-1]
	}
	if t.shared {
		c.removeShare(d.Index, t.consumed)
	}
	if t.marked {
		list := c.allocating[d.Index]
		for j := len(list) - 1; j >= 0; j-- {
			if list[j] == t.claim {
				list = append(list[:j], list[j+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(c.allocating, d.Index)
			c.spareLists = append(c.spareLists, list)
		} else {
			c.allocating[d.Index] = list
		}
	}
	for i := t.cross - 1; i >= 0; i-- {
		c.cross[i].remove(r, d)
	}
	for i := t.constraints - 1; i >= 0; i-- {
		cs.constraints[i].remove(r, d)
	}
	if t.groups {
		c.releaseGroups(t.cand)
	}
	if t.counters {
		c.releaseCounters(t.cand)
	}
	*t = taken{}
}

// taintPrevents reports an untolerated NoSchedule or NoExecute taint.
func taintPrevents(taints []resourceapi.DeviceTaint, tolerations []resourceapi.DeviceToleration) bool {
	for _, taint := range taints {
		if taint.Effect != resourceapi.DeviceTaintEffectNoSchedule && taint.Effect != resourceapi.DeviceTaintEffectNoExecute {
			continue
		}
		tolerated := false
		for _, t := range tolerations {
			if resourceclaim.ToleratesTaint(t, taint) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return true
		}
	}
	return false
}
