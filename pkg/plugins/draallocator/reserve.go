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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/retry"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// reserve marks the devices Filter chose on the node as in flight, so that
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
	if s.empty() || s.alloc == nil && len(s.reused) == 0 && s.na == nil {
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
		}
	}
	// Claims sharing the pending allocation of an earlier pod of the pod
	// group: one more sharer of what that pod reserved.
	for _, i := range s.reused {
		if st := pl.markInFlight(logger, s, s.claims[i], s.allocation[i]); st != nil {
			return st
		}
		group.share(s.claims[i].UID, pod.UID)
	}
	if s.na != nil {
		// The pod is assumed on the node now, without the statuses.
		pl.recordInFlight(s, pod, nodeName)
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
	claims, st := s.nodeClaims(pod, nodeInfo)
	if st != nil {
		return st
	}
	results, err := pl.nodeResults(ctx, s, pod, nodeInfo, 0)
	if err != nil {
		return statusError(logger, err)
	}
	if len(results) != len(claims) {
		return statusError(logger, fmt.Errorf("internal error: %d allocations for %d claims", len(results), len(claims)))
	}
	for j, ci := range s.toAllocate {
		s.allocation[ci] = &results[j]
	}
	if extra := len(claims) - len(s.toAllocate); extra == 1 {
		v, _ := s.ext.variant(pod, nodeInfo, s.toAllocateClaims)
		s.ext.chosen, s.ext.allocation = v, &results[len(results)-1]
	}
	for j, claim := range claims {
		if st := pl.markInFlight(logger, s, claim, &results[j]); st != nil {
			return st
		}
		if j < len(s.toAllocate) {
			// The extended-resource claim is the pod's own.
			group.share(claim.UID, pod.UID)
		}
	}
	return nil
}

// markInFlight tells the framework and the tracker that the claim's
// allocation is chosen but not written yet, and records it in the cycle
// state for Unreserve. The framework declines when its assume cache has
// the claim allocated already (someone else allocated it since
// PreFilter): then nothing is in flight and the attempt fails.
func (pl *DRAAllocator) markInFlight(logger klog.Logger, s *stateData, claim *resourceapi.ResourceClaim, allocation *resourceapi.AllocationResult) *fwk.Status {
	claims := pl.draManager.ResourceClaims()
	inFlight := claim.DeepCopy()
	if !slices.Contains(inFlight.Finalizers, resourceapi.Finalizer) {
		inFlight.Finalizers = append(inFlight.Finalizers, resourceapi.Finalizer)
	}
	inFlight.Status.Allocation = allocation
	if err := claims.SignalClaimPendingAllocation(claim.UID, inFlight); err != nil {
		return statusError(logger, fmt.Errorf("internal error: mark allocation of claim %s in flight: %w", klog.KObj(claim), err))
	}
	if claims.GetPendingAllocation(claim.UID) == nil {
		return statusError(logger, fmt.Errorf("claim %s got allocated elsewhere in the meantime", klog.KObj(claim)))
	}
	s.mu.Lock()
	s.inFlight = append(s.inFlight, claim)
	s.mu.Unlock()
	pl.allocated.SetPending(claim.UID, allocation)
	logger.V(5).Info("Reserved devices", "resourceclaim", klog.KObj(claim), "allocation", klog.Format(allocation))
	return nil
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
			if claim.Name != specialClaimName {
				claims.AssumedClaimRestore(claim.Namespace, claim.Name)
			}
			group.released(claim.UID)
		}
		if claims.GetPendingAllocation(claim.UID) == nil {
			pl.allocated.ClearPending(claim.UID)
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

// forgetInFlight removes the pod's ledger entry and reports whether
// waiting pods should be retried (not when a pod-group cycle reverts its
// trial). It is idempotent and makes no API calls.
func (pl *DRAAllocator) forgetInFlight(cs fwk.CycleState, pod *v1.Pod) bool {
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
	if pl.releaseAttempt(logger, cs, s) {
		defer pl.requeue.changed()
	}
	if pl.forgetInFlight(cs, pod) {
		defer pl.requeue.changed()
	}
	pl.clearNodeAllocatableStatus(ctx, s, pod)
	for _, claim := range s.claims {
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
			// Written by PreBind: nobody else uses it.
			if err := pl.deleteClaim(ctx, x.created); err != nil {
				logger.Error(err, "Deleting the extended-resource claim failed", "resourceclaim", klog.KObj(x.created), "pod", klog.KObj(pod))
			}
			x.created = nil
		}
	}
}

// deleteClaim deletes a claim the plugin created, removing the allocation
// finalizer first so that the deletion completes.
func (pl *DRAAllocator) deleteClaim(ctx context.Context, claim *resourceapi.ResourceClaim) error {
	claims := pl.client.ResourceV1().ResourceClaims(claim.Namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := claims.Get(ctx, claim.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if i := slices.Index(current.Finalizers, resourceapi.Finalizer); i >= 0 {
			current.Finalizers = slices.Delete(current.Finalizers, i, i+1)
			_, err = claims.Update(ctx, current, metav1.UpdateOptions{})
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("remove the finalizer of claim %s: %w", klog.KObj(claim), err)
	}
	if err := claims.Delete(ctx, claim.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete claim %s: %w", klog.KObj(claim), err)
	}
	pl.allocated.DeleteClaim(claim.UID)
	return nil
}

// postFilter runs when no node fits. If an allocated claim of the pod could
// not be used on some node and nobody else uses it, it deallocates that
// claim, so that the next attempt may allocate it elsewhere — as the
// in-tree plugin does.
func (pl *DRAAllocator) postFilter(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, statuses fwk.NodeToStatusReader) (_ *fwk.PostFilterResult, status *fwk.Status) {
	s, err := getState(cs)
	if err != nil {
		return nil, statusError(klog.FromContext(ctx), err)
	}
	if s.empty() {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	start := time.Now()
	defer func() { observe(pl.latency.postFilter, start, status) }()
	if found, status := pl.freeClaims(ctx, pod, s, sets.New[types.UID]()); found {
		return nil, status
	}
	if node := pl.awaitRelease(ctx, s, pod, statuses); node != "" {
		metrics.PreemptionReleaseWaits.Inc()
		return awaitingReleaseStatus(node)
	}
	return nil, fwk.NewStatus(fwk.Unschedulable)
}

// freeClaims deallocates one allocated claim of the pod that some node
// could not use and nobody else uses, or deletes the pod's
// extended-resource claim left by an earlier attempt. found reports
// whether it did either (or failed trying). freed holds the claims
// deallocated already for other pods of the same pod group, whose states
// still show them allocated: such a claim counts as freed for this pod
// too, without a second, conflicting write.
func (pl *DRAAllocator) freeClaims(ctx context.Context, pod *v1.Pod, s *stateData, freed sets.Set[types.UID]) (found bool, status *fwk.Status) {
	logger := klog.FromContext(ctx)
	// Any order will do; there is no better heuristic than the first.
	for _, claim := range s.unavailableAllocated() {
		if freed.Has(claim.UID) {
			return true, fwk.NewStatus(fwk.Unschedulable, "deallocation of ResourceClaim completed")
		}
		if heldOnlyBy(claim, pod.UID) {
			if err := pl.deallocate(ctx, claim); err != nil {
				return true, statusError(logger, err)
			}
			freed.Insert(claim.UID)
			return true, fwk.NewStatus(fwk.Unschedulable, "deallocation of ResourceClaim completed")
		}
	}
	if s.ext != nil && s.ext.stale != nil {
		// Left by an attempt that did not bind the pod: start afresh.
		if err := pl.deleteClaim(ctx, s.ext.stale); err != nil {
			return true, statusError(logger, err)
		}
		metrics.ClaimsDeallocated.Inc()
		return true, fwk.NewStatus(fwk.Unschedulable, "deletion of ResourceClaim completed")
	}
	return false, fwk.NewStatus(fwk.Unschedulable)
}

// heldOnlyBy reports a claim reserved for nobody or for consumer alone.
func heldOnlyBy(claim *resourceapi.ResourceClaim, consumer types.UID) bool {
	r := claim.Status.ReservedFor
	return len(r) == 0 || len(r) == 1 && r[0].UID == consumer
}

// deallocate removes a claim's allocation and reservations.
func (pl *DRAAllocator) deallocate(ctx context.Context, claim *resourceapi.ResourceClaim) error {
	claim = claim.DeepCopy()
	claim.Status.ReservedFor = nil
	claim.Status.Allocation = nil
	claim.Status.Devices = nil
	klog.FromContext(ctx).V(5).Info("Deallocating claim", "resourceclaim", klog.KObj(claim))
	updated, err := pl.client.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(ctx, claim, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("deallocate claim %s: %w", klog.KObj(claim), err)
	}
	pl.allocated.SetClaim(updated)
	metrics.ClaimsDeallocated.Inc()
	return nil
}
