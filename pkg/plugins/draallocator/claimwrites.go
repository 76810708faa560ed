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

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// The plugin's writes to ResourceClaims, in the order a pod's attempt may
// make them: the allocation and reservation (PreBind), a reservation
// removed, an allocation given back, a claim the plugin created deleted.
// Each retries on conflict against the current object and records what it
// wrote in the tracker at once.

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
	pl.tracker.SetClaim(claim)
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

// removeReservation removes one consumer's entry from a claim's
// reservations with a strategic merge patch, whatever else changed in the
// claim meanwhile.
func (pl *DRAAllocator) removeReservation(ctx context.Context, claim *resourceapi.ResourceClaim, consumer types.UID) error {
	patch := fmt.Sprintf(`{"metadata": {"uid": %q}, "status": {"reservedFor": [{"$patch": "delete", "uid": %q}]}}`, claim.UID, consumer)
	_, err := pl.client.ResourceV1().ResourceClaims(claim.Namespace).Patch(ctx, claim.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
	if err != nil {
		return fmt.Errorf("remove %s from the reservations of claim %s: %w", consumer, klog.KObj(claim), err)
	}
	return nil
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
	pl.tracker.SetClaim(updated)
	metrics.ClaimsDeallocated.Inc()
	return nil
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
	pl.tracker.ClaimDeleted(claim.UID, "")
	return nil
}
