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
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// preBindPreFlight tells the framework whether PreBind has work to do.
func (pl *DRAAllocator) preBindPreFlight(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeName string) (*fwk.PreBindPreFlightResult, *fwk.Status) {
	result := &fwk.PreBindPreFlightResult{AllowParallel: true}
	s, err := getState(cs)
	if err != nil {
		return result, statusError(klog.FromContext(ctx), err)
	}
	if s.empty() {
		return result, fwk.NewStatus(fwk.Skip)
	}
	return result, nil
}

// preBind writes the allocations chosen in Reserve and the pod's
// reservation into the claims' status, then waits for binding conditions.
// On error the framework calls Unreserve and the pod is retried.
func (pl *DRAAllocator) preBind(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeName string) (status *fwk.Status) {
	s, err := getState(cs)
	if err != nil {
		return statusError(klog.FromContext(ctx), err)
	}
	if s.empty() {
		return nil
	}
	start := time.Now()
	defer func() { observe(pl.latency.preBind, start, status) }()
	logger := klog.FromContext(ctx)

	var written []*resourceapi.ResourceClaim
	defer func() {
		// In-flight allocations end once the pod's claims are all written.
		if status.IsSuccess() {
			for _, claim := range written {
				pl.draManager.ResourceClaims().MaybeRemoveClaimPendingAllocation(claim.UID, true)
				pl.allocated.ClearPending(claim.UID)
			}
		}
	}()
	for i, claim := range s.claims {
		if resourceclaim.IsReservedForPod(pod, claim, pl.fts.EnableDRAWorkloadResourceClaims) {
			continue
		}
		updated, err := pl.bindClaim(ctx, claim, s.allocation[i], s.consumer(pod, i))
		if err != nil {
			return statusError(logger, err)
		}
		if s.allocation[i] != nil {
			written = append(written, updated)
		}
		// Unreserve must see the claim as written.
		s.claims[i] = updated
	}
	if st := pl.bindExtendedClaim(ctx, s, pod); st != nil {
		return st
	}
	if s.na != nil {
		if st := pl.patchNodeAllocatableStatus(ctx, s, pod, nodeName); st != nil {
			return st
		}
	}

	if !pl.bindingConditionsEnabled() || !hasBindingConditions(s.boundClaims()) {
		return nil
	}
	if err := pl.waitForBindingConditions(ctx, s, pod, nodeName); err != nil {
		return statusError(logger, err)
	}
	return nil
}

// bindClaim records allocation (if the plugin allocated the claim) and the
// reservation for consumer (the pod, or its PodGroup) in the claim's
// status, retrying on conflicts with a fresh claim. The assume cache
// learns the result at once, so the next cycles see the devices as
// allocated before the informer does.
//
// Pods of a pod group that share a pending allocation bind in parallel:
// the first one writes the allocation, the others find it written. Unlike
// the in-tree plugin, which fails them as "allocated elsewhere" and
// retries them (kubernetes#140053), they only add their reservation when
// the written allocation is the one they share.
func (pl *DRAAllocator) bindClaim(ctx context.Context, claim *resourceapi.ResourceClaim, allocation *resourceapi.AllocationResult, consumer resourceapi.ResourceClaimConsumerReference) (*resourceapi.ResourceClaim, error) {
	logger := klog.FromContext(ctx)
	claims := pl.client.ResourceV1().ResourceClaims(claim.Namespace)
	claim = claim.DeepCopy()
	refresh := false
	wroteAllocation := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if refresh {
			metrics.PreBindConflicts.Inc()
			fresh, err := claims.Get(ctx, claim.Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("get claim %s after a conflict: %w", klog.KObj(claim), err)
			}
			logger.V(5).Info("Retrying claim update after a conflict", "resourceclaim", klog.KObj(claim))
			claim = fresh
		}
		refresh = true
		if claim.DeletionTimestamp != nil {
			return fmt.Errorf("claim %s got deleted in the meantime", klog.KObj(claim))
		}
		writeAllocation := allocation != nil
		if writeAllocation && claim.Status.Allocation != nil {
			if !sameDevices(claim.Status.Allocation, allocation) {
				return fmt.Errorf("claim %s got allocated elsewhere in the meantime", klog.KObj(claim))
			}
			// Written by a pod sharing the allocation.
			writeAllocation = false
		}
		if writeAllocation {
			// The finalizer protects the allocation; it needs a normal
			// update before the status one.
			if !slices.Contains(claim.Finalizers, resourceapi.Finalizer) {
				claim.Finalizers = append(claim.Finalizers, resourceapi.Finalizer)
				updated, err := claims.Update(ctx, claim, metav1.UpdateOptions{})
				if err != nil {
					return fmt.Errorf("add finalizer to claim %s: %w", klog.KObj(claim), err)
				}
				claim = updated
			}
			// A copy: pods of a pod group share the pending allocation.
			claim.Status.Allocation = allocation.DeepCopy()
		}
		if !writeAllocation && reserved(claim, consumer) {
			// Reserved by a pod sharing the claim with the same consumer
			// (its PodGroup).
			return nil
		}
		claim.Status.ReservedFor = append(claim.Status.ReservedFor, consumer)
		if pl.bindingConditionsEnabled() {
			if claim.Status.Allocation == nil {
				return fmt.Errorf("claim %s got deallocated elsewhere in the meantime", klog.KObj(claim))
			}
			// Only an allocation being written gets its timestamp: an
			// existing one is immutable, and stamping it would make the API
			// server refuse the reservation (the in-tree plugin does that,
			// so it cannot reserve a claim someone allocated without one).
			if writeAllocation && claim.Status.Allocation.AllocationTimestamp == nil {
				claim.Status.Allocation.AllocationTimestamp = &metav1.Time{Time: time.Now()}
			}
		}
		updated, err := claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{})
		if err != nil {
			if writeAllocation {
				return fmt.Errorf("add allocation and reservation to claim %s: %w", klog.KObj(claim), err)
			}
			return fmt.Errorf("add reservation to claim %s: %w", klog.KObj(claim), err)
		}
		claim = updated
		wroteAllocation = writeAllocation
		return nil
	})
	if err != nil {
		if apierrors.IsConflict(err) {
			return nil, fmt.Errorf("claim %s: gave up after repeated conflicts: %w", klog.KObj(claim), err)
		}
		return nil, err
	}
	if wroteAllocation {
		metrics.ClaimsAllocated.Inc()
	}
	if err := pl.draManager.ResourceClaims().AssumeClaimAfterAPICall(claim); err != nil {
		logger.V(5).Info("Claim not stored in assume cache", "err", err, "resourceclaim", klog.KObj(claim))
	}
	pl.allocated.SetClaim(claim)
	logger.V(5).Info("Claim reserved", "resourceclaim", klog.KObj(claim), "consumer", consumer.Resource+"/"+consumer.Name)
	return claim, nil
}

// sameDevices reports whether two allocations hand out the same devices
// on the same nodes (their timestamps aside).
func sameDevices(a, b *resourceapi.AllocationResult) bool {
	return apiequality.Semantic.DeepEqual(a.Devices, b.Devices) && apiequality.Semantic.DeepEqual(a.NodeSelector, b.NodeSelector)
}

// reserved reports whether the claim is reserved for the consumer.
func reserved(claim *resourceapi.ResourceClaim, consumer resourceapi.ResourceClaimConsumerReference) bool {
	for _, r := range claim.Status.ReservedFor {
		if r.UID == consumer.UID {
			return true
		}
	}
	return false
}

// bindExtendedClaim creates the pod's extended-resource claim chosen in
// Reserve, writes its allocation and reservation, and records in the pod's
// status which container uses which of its requests.
func (pl *DRAAllocator) bindExtendedClaim(ctx context.Context, s *stateData, pod *v1.Pod) *fwk.Status {
	x := s.ext
	if x == nil || x.chosen == nil {
		return nil
	}
	logger := klog.FromContext(ctx)
	claim := x.chosen.claim.DeepCopy()
	claim.Name, claim.UID = "", ""
	claim.Status = resourceapi.ResourceClaimStatus{}
	created, err := pl.client.ResourceV1().ResourceClaims(claim.Namespace).Create(ctx, claim, metav1.CreateOptions{})
	if err != nil {
		return statusError(logger, fmt.Errorf("create the extended-resource claim of pod %s: %w", klog.KObj(pod), err))
	}
	// Unreserve deletes it if anything below fails.
	x.created = created
	updated, err := pl.bindClaim(ctx, created, x.allocation, podConsumer(pod))
	if err != nil {
		return statusError(logger, err)
	}
	x.created = updated
	newStatus := pod.Status.DeepCopy()
	newStatus.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{
		RequestMappings:   x.chosen.mappings,
		ResourceClaimName: updated.Name,
	}
	if err := schedutil.PatchPodStatus(ctx, pl.client, pod.Name, pod.Namespace, &pod.Status, newStatus); err != nil {
		return statusError(logger, fmt.Errorf("record the extended-resource claim %s in the status of pod %s: %w", klog.KObj(updated), klog.KObj(pod), err))
	}
	uid := x.placeholderUID()
	pl.draManager.ResourceClaims().MaybeRemoveClaimPendingAllocation(uid, true)
	pl.allocated.ClearPending(uid)
	return nil
}
