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

package draallocator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// filter checks the pod's allocated claims against the node and asks the
// allocator whether the rest fit. Which devices they get is searched
// later, only for the nodes Score and Reserve ask about (nodeResults),
// except where the answer depends on them: beside the siblings a gang's
// plan puts on the node (fitBesideSiblings) and where devices take
// node-allocatable resources (filterNodeAllocatable). Those searches
// cache the devices for Score and Reserve.
func (pl *DRAAllocator) filter(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (status *fwk.Status) {
	s, err := getState(cs)
	if err != nil {
		return statusError(klog.FromContext(ctx), err)
	}
	// What assumed pods' devices take of the node and its accounting
	// misses (the ledger); zero mostly.
	uncounted := s.ledger.uncounted(nodeInfo)
	// NodeResourcesFit's check again, with what it misses: the in-tree
	// plugin's place in kube-scheduler puts it first.
	if st := s.fitsBesideUncounted(nodeInfo, uncounted); st != nil {
		// Retried when an entry goes (requeuer) or an assigned pod comes
		// or goes, since NodeResourcesFit's events do not reach a pod it
		// did not reject.
		pl.requeue.seen(pod)
		pl.shortOfNodeResources.add(pod.UID)
		return st
	}
	if s.empty() {
		return nil
	}
	start := time.Now()
	defer func() { observe(pl.latency.filter, start, status) }()
	logger := klog.FromContext(ctx)
	node := nodeInfo.Node()
	d := dryRunOf(cs)
	if (d == nil || len(d.removed) == 0) && s.gangPreemption == nil {
		defer func() {
			if status.IsRejected() {
				// Where it is the pod's nominated node: does the pod
				// wait there for released devices?
				pl.judgeReleaseWait(ctx, s, pod, node.Name)
			}
		}()
	}

	var unavailable []int
	for i, c := range s.claims {
		claim := c.claim
		if sel := c.availableOn; sel != nil && !sel.Match(node) {
			unavailable = append(unavailable, i)
			continue
		}
		if skipsNodeOperations(claim.Status.Allocation) && !allocator.DeclaresOptionalNodeOperations(node) {
			// The kubelet of such a node would prepare the devices anyway.
			logger.V(5).Info("Allocated claim skips node operations, which the node does not declare it supports", "pod", klog.KObj(pod), "node", klog.KObj(node), "resourceclaim", klog.KObj(claim))
			unavailable = append(unavailable, i)
			continue
		}
		if claim.Status.Allocation != nil && pl.bindingConditionsEnabled() {
			ready, err := claimReadyForBinding(claim)
			if err != nil || !ready && pl.bindingTimedOut(claim) {
				logger.V(5).Info("Allocated claim failed or timed out waiting for binding conditions", "pod", klog.KObj(pod), "node", klog.KObj(node), "resourceclaim", klog.KObj(claim), "err", err)
				unavailable = append(unavailable, i)
			}
		}
		if c.shareDenied != nil {
			return c.shareDenied
		}
	}
	if len(unavailable) > 0 {
		s.mu.Lock()
		if s.unavailable == nil {
			s.unavailable = sets.New[int]()
		}
		s.unavailable.Insert(unavailable...)
		s.mu.Unlock()
		return nodeUnresolvable(logger, "resourceclaim not available on the node", pod, node)
	}
	for _, c := range s.claims {
		if c.reused && skipsNodeOperations(c.allocation) && !allocator.DeclaresOptionalNodeOperations(node) {
			claim := c.claim
			return statusUnresolvable(logger, fmt.Sprintf("resource claim %s allocation requires DRAOptionalNodeOperations feature on the node", klog.KObj(claim)),
				"pod", klog.KObj(pod), "node", klog.KObj(node), "resourceclaim", klog.KObj(claim))
		}
	}
	claims, st := s.nodeClaims(pod, nodeInfo)
	if st != nil {
		return st
	}
	if len(claims) > 0 {
		fit := s.fit
		if fit == nil {
			fit = pl.fitClaims
		}
		if st := fit(ctx, cs, s, d, pod, nodeInfo, claims, start); st != nil {
			return st
		}
	}
	if s.na != nil {
		return pl.filterNodeAllocatable(ctx, s, pod, nodeInfo, uncounted, start)
	}
	return nil
}

// claimsFitter answers for Filter whether the claims the cycle allocates
// fit on the node, under the preemption dry run d (nil: none); start is
// when Filter began.
type claimsFitter func(ctx context.Context, cs fwk.CycleState, s *stateData, d *dryRun, pod *v1.Pod, nodeInfo fwk.NodeInfo, claims []*resourceapi.ResourceClaim, start time.Time) *fwk.Status

// fitClaims asks the allocator whether the claims fit on the node under
// the preemption dry run d (nil: none), explaining why not when they do
// not. Where they would fit had lower-priority pods left the node, the
// answer is Unschedulable, so that preemption tries the node; elsewhere it
// is UnschedulableAndUnresolvable.
func (pl *DRAAllocator) fitClaims(ctx context.Context, _ fwk.CycleState, s *stateData, d *dryRun, pod *v1.Pod, nodeInfo fwk.NodeInfo, claims []*resourceapi.ResourceClaim, start time.Time) *fwk.Status {
	logger := klog.FromContext(ctx)
	node := nodeInfo.Node()
	// The dry run's change to the allocated devices, if any: an allocator
	// over it is built only to explain (FitsWithinWhatIf).
	var change allocator.WhatIf
	if !d.empty() {
		if len(d.removed) > 0 {
			if st := waitingElsewhere(ctx, s, pod, node); st != nil {
				return st
			}
		}
		var preempting *v1.Pod
		if change, preempting = pl.dryRunChange(ctx, s, d, nodeInfo); preempting != nil {
			return nodeResolvable(logger, fmt.Sprintf("node %s is held for pod %s, nominated there, whose preemption is under way", node.Name, klog.KObj(preempting)), pod, node)
		}
	}
	// One time budget covers the answer and, on a node that does not fit,
	// its explanation.
	timeout := pl.filterTimeout()
	if d.empty() {
		if st, decided := pl.fitBesideSiblings(ctx, s, pod, node, claims, timeout); decided {
			return st
		}
	}
	// Only whether the claims fit is needed here; the devices are
	// searched again for the few nodes Score and Reserve look at.
	fits, err := s.alloc.FitsWithinWhatIf(ctx, node, claims, change, timeout)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		// Possibly transient: an error sends the pod to backoff instead of
		// waiting for a cluster event.
		return statusError(logger, fmt.Errorf("node %s: timed out trying to allocate devices", node.Name), "pod", klog.KObj(pod), "node", klog.KObj(node))
	case errors.Is(err, structured.ErrFailedAllocationOnNode):
		return nodeUnresolvable(logger, err.Error(), pod, node)
	case ctx.Err() != nil:
		return nodeUnresolvable(logger, fmt.Sprintf("asked by caller to stop allocating devices: %v", context.Cause(ctx)), pod, node)
	case err != nil:
		// Something is wrong with a claim or class (a CEL runtime error,
		// a missing class): abort scheduling the pod, naming the culprit.
		return statusError(logger, err, "pod", klog.KObj(pod), "node", klog.KObj(node))
	case !fits && d != nil && d.reprieving:
		// Nobody reads why: DefaultPreemption only tells whether a
		// reprieved victim still leaves room.
		return nodeUnresolvable(logger, reprieveReason, pod, node)
	case !fits:
		var deadline time.Time // none without a timeout
		if timeout > 0 {
			deadline = start.Add(timeout)
		}
		reason, unmet := pl.deviceConstraintsUnmet(ctx, s, node, claims, change, timeout)
		switch {
		case !unmet:
			reason = s.alloc.WhatIf(change).ExplainBefore(ctx, node, claims, deadline).String()
		case d == nil || len(d.removed) == 0: // a dry run's reason is not read
			reason += pl.closestOn(ctx, s, pod, node, claims, change)
		}
		// A preemption dry run's answer is only read as fits or not.
		if (d == nil || len(d.removed) == 0) && pl.preemptionMayHelp(ctx, s, pod, nodeInfo, claims, change.Take) {
			return nodeResolvable(logger, reason, pod, node)
		}
		return nodeUnresolvable(logger, reason, pod, node)
	}
	if d != nil && len(d.removed) > 0 {
		// A preemption dry run: DefaultPreemption may nominate the pod
		// here (nominatedNode).
		pl.preemptors.add(pod.UID)
	}
	return nil
}

// reprieveReason is Filter's answer in a preemption dry run where the
// claims do not fit once a victim is given back (dryRun.reprieving).
const reprieveReason = "devices do not fit beside the pods the preemption dry run gave back"

// filterTimeout is how long one Filter may search; zero: no limit.
func (pl *DRAAllocator) filterTimeout() time.Duration {
	if pl.gates.EnableDRASchedulerFilterTimeout && pl.args.FilterTimeout.Duration > 0 {
		return pl.args.FilterTimeout.Duration
	}
	return 0
}

// nodeClaims returns the claims to allocate on the node: the pod's
// unallocated claims, plus its extended-resource claim where DRA must
// provide extended resources. A status rejects the node.
func (s *stateData) nodeClaims(pod *v1.Pod, nodeInfo fwk.NodeInfo) ([]*resourceapi.ResourceClaim, *fwk.Status) {
	if s.ext == nil {
		return s.toAllocateClaims, nil
	}
	v, st := s.ext.variant(pod, nodeInfo, s.toAllocateClaims)
	if st != nil || v == nil {
		return s.toAllocateClaims, st
	}
	return v.claims, nil
}

// nodeResults returns the devices the pod gets on a node that passed
// Filter, searching once per node and cycle; a positive timeout limits
// the search as FitsWithin's does.
func (pl *DRAAllocator) nodeResults(ctx context.Context, s *stateData, pod *v1.Pod, nodeInfo fwk.NodeInfo, timeout time.Duration) (foundDevices, error) {
	node := nodeInfo.Node()
	if found, ok := s.cachedResults(node.Name); ok {
		return found, nil
	}
	claims, st := s.nodeClaims(pod, nodeInfo)
	if st != nil {
		return foundDevices{}, st.AsError()
	}
	if len(claims) == 0 {
		return foundDevices{}, nil
	}
	siblings, _ := s.gang.siblingsOn(node.Name)
	found, ok, err := s.searchDevices(ctx, node, claims, siblings, timeout)
	if err != nil {
		return foundDevices{}, fmt.Errorf("node %s: allocate devices: %w", node.Name, err)
	}
	if !ok {
		return foundDevices{}, fmt.Errorf("node %s: devices found in Filter are no longer available", node.Name)
	}
	return found, nil
}

// searchDevices is the one search for the devices of the pod's claims on
// node, beside siblings, the claims of the members of its group that the
// plan puts there: the pod's claims come first, so its results are the
// first ones. It caches the pod's share for Score and Reserve and returns
// it; ok is false where they do not fit together. A positive timeout
// limits the search as FitsWithin's does.
func (s *stateData) searchDevices(ctx context.Context, node *v1.Node, claims, siblings []*resourceapi.ResourceClaim, timeout time.Duration) (_ foundDevices, ok bool, _ error) {
	all := claims
	if len(siblings) > 0 {
		all = append(slices.Clone(claims), siblings...)
	}
	results, err := s.alloc.AllocateWithin(ctx, node, all, timeout)
	if err != nil || results == nil {
		return foundDevices{}, false, err
	}
	return s.keepFound(node.Name, results[:len(claims)]), true, nil
}
