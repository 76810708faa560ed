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
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// reserve marks the devices chosen for the node (nodeResults) in flight, so that
// the next scheduling cycles do not hand them out again while PreBind
// writes the claims.
func (pl *DRAAllocator) reserve(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeName string) (status *fwk.Status) {
	s, err := getState(cs)
	if err != nil {
		return statusError(klog.FromContext(ctx), err)
	}
	if name := pl.extendedResourcesAppeared(pod, s.ext); name != "" {
		// An error, so the pod is retried after backoff, not left waiting
		// for an event that has come already; the next attempt allocates
		// the resource.
		return statusError(klog.FromContext(ctx), fmt.Errorf("a DeviceClass for extended resource %s appeared while the pod was being scheduled", name), "pod", klog.KObj(pod))
	}
	if s.empty() || s.alloc == nil && !s.reusesPending() && s.na == nil {
		return nil
	}
	start := time.Now()
	defer func() { observe(pl.latency.reserve, start, status) }()
	logger := klog.FromContext(ctx)
	group, err := getGroupState(cs)
	if err != nil {
		return statusError(logger, err)
	}
	if s.alloc != nil {
		if st := pl.reserveAllocated(ctx, s, pod, nodeName, group); st != nil {
			return st
		}
		if cs.IsPodGroupSchedulingCycle() {
			// The plan's siblings planned on the node now fit beside it.
			s.gang.setPlaced(true)
		} else {
			pl.reportDomain(cs, pod, s)
		}
	}
	// Claims sharing the pending allocation of an earlier pod of the pod
	// group: one more sharer of what that pod reserved.
	for _, c := range s.claims {
		if !c.reused {
			continue
		}
		if st := pl.reserveClaim(logger, s, group, pod, c.claim, c.allocation); st != nil {
			return st
		}
	}
	if s.na != nil {
		// The pod is assumed on the node now, without the statuses.
		pl.recordUncounted(s, pod, nodeName)
	}
	if !cs.IsPodGroupSchedulingCycle() {
		// A pod-group cycle's reservations are a trial, reverted when it
		// ends: the pod is placed only once it is reserved for binding.
		pl.requeue.placed(pod)
		pl.preemptors.take(pod.UID)
	}
	return nil
}

// reserveAllocated marks the devices the allocator found on the node in
// flight, for the claims it allocates.
func (pl *DRAAllocator) reserveAllocated(ctx context.Context, s *stateData, pod *v1.Pod, nodeName string, group *groupState) *fwk.Status {
	logger := klog.FromContext(ctx)
	nodeInfo, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(nodeName)
	if err != nil {
		return statusError(logger, fmt.Errorf("get node %s: %w", nodeName, err))
	}
	found, err := pl.nodeResults(ctx, s, pod, nodeInfo, 0)
	if err != nil {
		return statusError(logger, err)
	}
	for i := range s.claims {
		c := &s.claims[i]
		if !c.toAllocate {
			continue
		}
		r := found.claims[i]
		if r == nil {
			return statusError(logger, fmt.Errorf("internal error: node %s: no devices found for claim %s", nodeName, klog.KObj(c.claim)))
		}
		c.allocation = r
		if st := pl.reserveClaim(logger, s, group, pod, c.claim, r); st != nil {
			return st
		}
	}
	if found.extended != nil {
		// The extended-resource claim is the pod's own: not shared.
		v, st := s.ext.variant(pod, nodeInfo, s.toAllocateClaims)
		if st != nil || v == nil {
			return statusError(logger, fmt.Errorf("internal error: node %s: devices found for extended resources the node does not need from DRA", nodeName))
		}
		s.ext.chosen, s.ext.allocation = v, found.extended
		// Not shared with the pod group: nil.
		if st := pl.reserveClaim(logger, s, nil, pod, v.claim, found.extended); st != nil {
			return st
		}
	}
	return nil
}

// reserveClaim reserves the claim's allocation for pod: in flight
// (markInFlight), shared with the pod group's other pods in the pod-group
// cycle group (nil: not shared). In a pod group preemption's reprieve,
// whose reservations are never written, the pod holds it in the
// preemption's step instead (gangPreemption.holds).
func (pl *DRAAllocator) reserveClaim(logger klog.Logger, s *stateData, group *groupState, pod *v1.Pod, claim *resourceapi.ResourceClaim, allocation *resourceapi.AllocationResult) *fwk.Status {
	if g := s.gangPreemption; g.inReprieve() {
		g.holds.hold(claim.UID, pod.UID, allocation)
		return nil
	}
	held, st := pl.markInFlight(logger, s, claim, allocation)
	if st != nil {
		return st
	}
	if held {
		group.share(claim.UID, pod.UID)
	}
	return nil
}

// markInFlight tells the framework and the tracker that the claim's
// allocation is chosen but not written yet (in a pod group preemption's
// re-run, a dry run's), records it in the cycle state for Unreserve, and
// reports whether it did (held). The framework declines when its assume
// cache has the claim allocated already:
//   - with the very devices chosen, a pod sharing the allocation wrote it
//     since PreFilter: a pod of the same pod group, whose binding cycle
//     the framework starts before it reserves the next pod
//     (kubernetes#140053, #140263). Nothing needs to be held; the pod's
//     PreBind adds its reservation (bindClaim).
//   - otherwise someone else allocated it: the attempt fails.
func (pl *DRAAllocator) markInFlight(logger klog.Logger, s *stateData, claim *resourceapi.ResourceClaim, allocation *resourceapi.AllocationResult) (held bool, _ *fwk.Status) {
	claims := pl.draManager.ResourceClaims()
	inFlight := claim.DeepCopy()
	if !slices.Contains(inFlight.Finalizers, resourceapi.Finalizer) {
		inFlight.Finalizers = append(inFlight.Finalizers, resourceapi.Finalizer)
	}
	inFlight.Status.Allocation = allocation
	if err := claims.SignalClaimPendingAllocation(claim.UID, inFlight); err != nil {
		return false, statusError(logger, fmt.Errorf("internal error: mark allocation of claim %s in flight: %w", klog.KObj(claim), err))
	}
	if claims.GetPendingAllocation(claim.UID) == nil {
		if written := pl.assumedAllocation(claim); written != nil && sameDevices(written, allocation) {
			logger.V(5).Info("Claim written as chosen by a pod sharing it", "resourceclaim", klog.KObj(claim))
			return false, nil
		}
		return false, statusError(logger, fmt.Errorf("claim %s got allocated elsewhere in the meantime", klog.KObj(claim)))
	}
	s.mu.Lock()
	s.inFlight = append(s.inFlight, claim)
	s.mu.Unlock()
	if s.gangPreemption != nil {
		// A pod group preemption's re-run: undone, never written, on
		// devices the victims' claims still hold.
		pl.tracker.SetPendingDryRun(claim.UID, allocation)
	} else {
		pl.tracker.SetPending(claim.UID, allocation)
	}
	logger.V(5).Info("Reserved devices", "resourceclaim", klog.KObj(claim), "allocation", klog.Format(allocation))
	return true, nil
}

// releaseInFlight ends the in-flight allocations the attempt made and
// reports whether devices were released. The tracker follows the
// framework: its entry goes once the framework no longer has the claim in
// flight (another pod may share the allocation), and so does the pod-group
// cycle's record of it (group may be nil). It is idempotent and makes no
// API calls.
func (pl *DRAAllocator) releaseInFlight(logger klog.Logger, s *stateData, group *groupState) (released bool) {
	claims := pl.draManager.ResourceClaims()
	for _, claim := range s.takeInFlight() {
		if claims.MaybeRemoveClaimPendingAllocation(claim.UID, false) {
			logger.V(5).Info("Released in-flight allocation", "resourceclaim", klog.KObj(claim))
			if claim.Name != specialClaimName && pl.assumedAllocation(claim) == nil {
				// Not once PreBind wrote the allocation: the assume cache
				// keeps the written version, and the informer's copy of
				// that same version never replaces its older one, so a
				// restore would put back the claim unallocated
				// (kubernetes#140263).
				claims.AssumedClaimRestore(claim.Namespace, claim.Name)
			}
			group.released(claim.UID)
		}
		if claims.GetPendingAllocation(claim.UID) == nil {
			pl.tracker.ClearPending(claim.UID)
			released = true
		}
	}
	return released
}

// releaseAttempt releases the attempt's in-flight allocations
// (releaseInFlight) and reports whether waiting pods should be retried:
// not when a pod-group cycle reverts its trial reservations as it ends,
// since no devices were really freed.
func (pl *DRAAllocator) releaseAttempt(logger klog.Logger, cs fwk.CycleState, s *stateData) bool {
	group, err := getGroupState(cs)
	if err != nil {
		logger.Error(err, "Reading the pod-group cycle state failed")
	}
	return pl.releaseInFlight(logger, s, group) && !cs.IsPodGroupSchedulingCycle()
}

// forgetUncounted removes the pod's ledger entry and reports whether
// waiting pods should be retried (not when a pod-group cycle reverts its
// trial). It is idempotent and makes no API calls.
func (pl *DRAAllocator) forgetUncounted(cs fwk.CycleState, pod *v1.Pod) bool {
	return pl.ledger.remove(pod.UID) && !cs.IsPodGroupSchedulingCycle()
}

// unreserve releases in-flight allocations and removes the pod from the
// reservations PreBind may have written. It is idempotent.
func (pl *DRAAllocator) unreserve(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeName string) {
	s, err := getState(cs)
	if err != nil || s.empty() {
		return
	}
	logger := klog.FromContext(ctx)
	if cs.IsPodGroupSchedulingCycle() {
		s.gang.setPlaced(false)
	}
	s.gangPreemption.giveBackHolds(pod)
	if pl.releaseAttempt(logger, cs, s) {
		defer pl.requeue.changed()
	}
	if pl.forgetUncounted(cs, pod) {
		defer pl.requeue.changed()
	}
	pl.clearNodeAllocatableStatus(ctx, s, pod)
	for _, c := range s.claims {
		claim := c.claim
		// Only the pod's own entry: other pods of its PodGroup may still
		// need a reservation for the group.
		if claim.Status.Allocation != nil && resourceclaim.IsReservedForPod(pod, claim, false) {
			if err := pl.removeReservation(ctx, claim, pod.UID); err != nil {
				// Retried when the pod is scheduled again.
				logger.Error(err, "Removing the pod from the claim's reservations failed", "resourceclaim", klog.KObj(claim), "pod", klog.KObj(pod))
			}
		}
	}
	if x := s.ext; x != nil {
		if x.created != nil {
			// Written by PreBind: nobody else uses it. What it holds in
			// flight (bindExtendedClaim) ends with the attempt, even if
			// deleting it fails.
			pl.tracker.ClearPending(x.created.UID)
			if err := pl.deleteClaim(ctx, x.created); err != nil {
				logger.Error(err, "Deleting the extended-resource claim failed", "resourceclaim", klog.KObj(x.created), "pod", klog.KObj(pod))
			}
			x.created = nil
		}
	}
}
