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
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
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
				pl.tracker.ClearPending(claim.UID)
			}
		}
	}()
	for i := range s.claims {
		c := &s.claims[i]
		if resourceclaim.IsReservedForPod(pod, c.claim, pl.gates.EnableDRAWorkloadResourceClaims) {
			continue
		}
		updated, err := pl.bindClaim(ctx, c.claim, c.allocation, c.consumer)
		if err != nil {
			return statusError(logger, err)
		}
		if c.allocation != nil {
			written = append(written, updated)
		}
		// Unreserve must see the claim as written.
		c.claim = updated
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
	// Unreserve deletes it if anything below fails, and with it what the
	// tracker holds for it: from now on the claim holds the devices in
	// flight, not the placeholder, so that its written allocation below
	// meets no other holder (a DeviceAllocatedTwice false alarm).
	x.created = created
	pl.tracker.MovePending(x.placeholderUID(), created.UID)
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
	pl.draManager.ResourceClaims().MaybeRemoveClaimPendingAllocation(x.placeholderUID(), true)
	pl.tracker.ClearPending(updated.UID)
	return nil
}
