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
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// podGroupPostFilter runs when a pod group's cycle found no placement.
// While the devices of preempted pods are being released on the nominated
// nodes its pods wait on, it keeps their nominations (awaitGroupRelease,
// releasing.go). Otherwise, as the in-tree plugin's, it first does for
// every unscheduled pod what PostFilter does for a single pod (the
// framework calls PostFilter for no pod of a group); if that freed
// nothing for some pod, and claims may be
// reserved for PodGroups, it frees one claim of the group itself: an
// allocated claim no node could use that only the group holds, else the
// group's reservation of a claim it declares — but only while no pod of
// the group is assumed or bound, which would still use it.
func (pl *DRAAllocator) podGroupPostFilter(ctx context.Context, gcs fwk.PodGroupCycleState, info fwk.PodGroupInfo) (_ *fwk.PodGroupPostFilterResult, status *fwk.Status) {
	logger := klog.FromContext(ctx)
	if info.GetType() == fwk.CompositePodGroupKeyType {
		logger.V(5).Info("Nothing to free for a composite pod group", "podGroup", info.GetKey())
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	start := time.Now()
	defer func() { observe(pl.latency.podGroupPostFilter, start, status) }()
	group, err := readGroupState(gcs)
	if err != nil && !errors.Is(err, fwk.ErrNotFound) {
		return nil, statusError(logger, err)
	}
	if res, st := pl.awaitGroupRelease(ctx, group, info); st != nil {
		return res, st
	}
	if pl.gates.EnableTopologyAwareWorkloadScheduling && info.GetPodGroup() != nil && info.GetPodGroup().Spec.SchedulingConstraints != nil {
		pl.explainDomains(ctx, gcs, info)
		logger.V(5).Info("Nothing to free for a pod group with scheduling constraints", "podGroup", info.GetKey())
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}

	unscheduled := info.GetUnscheduledPods()
	freeGroup := false
	// Claims deallocated here, which the pods' states still show allocated.
	freed := sets.New[types.UID]()
	if group != nil {
		for _, pod := range unscheduled {
			s := group.pods[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}]
			if s == nil {
				continue
			}
			found, st := pl.freeClaims(ctx, pod, s, freed)
			if st.IsError() {
				return nil, st
			}
			if !found {
				freeGroup = true
			}
		}
	}
	if freeGroup && pl.gates.EnableDRAWorkloadResourceClaims && len(unscheduled) > 0 {
		if st := pl.freeGroupClaims(ctx, group, unscheduled[0], freed); st != nil {
			return nil, st
		}
	}
	return nil, fwk.NewStatus(fwk.Unschedulable, "deallocation and deletion of ResourceClaims completed")
}

// freeGroupClaims frees one claim held by the PodGroup of pod, a pod of
// the group that was not scheduled; nil if there is none to free. freed
// are the claims deallocated already.
func (pl *DRAAllocator) freeGroupClaims(ctx context.Context, group *groupState, pod *v1.Pod, freed sets.Set[types.UID]) *fwk.Status {
	if pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil {
		return nil
	}
	logger := klog.FromContext(ctx)
	// The cache's view, without this cycle's trial: pods assumed or bound
	// before it still use the group's claims. A stale "in use" only
	// postpones freeing to a later cycle.
	states, err := pl.handle.PodGroupManager().PodGroupStates().Get(pod.Namespace, *pod.Spec.SchedulingGroup.PodGroupName)
	if err != nil {
		return statusError(logger, fmt.Errorf("state of PodGroup %s/%s: %w", pod.Namespace, *pod.Spec.SchedulingGroup.PodGroupName, err))
	}
	if states.ScheduledPodsCount() > 0 {
		return nil
	}
	podGroup, err := pl.podGroup(pod)
	if err != nil {
		return statusError(logger, fmt.Errorf("PodGroup of pod %s: %w", klog.KObj(pod), err))
	}
	if podGroup == nil {
		return nil
	}
	if st := pl.deallocateUnavailableGroupClaim(ctx, group, podGroup, freed); st != nil {
		return st
	}
	return pl.unreserveGroupClaim(ctx, pod, podGroup)
}

// deallocateUnavailableGroupClaim deallocates a claim some node could not
// use for some pod of the cycle, if nobody or only the PodGroup holds it.
func (pl *DRAAllocator) deallocateUnavailableGroupClaim(ctx context.Context, group *groupState, podGroup *schedulingapi.PodGroup, freed sets.Set[types.UID]) *fwk.Status {
	if group == nil {
		return nil
	}
	for _, s := range group.pods {
		for _, claim := range s.unavailableAllocated() {
			if freed.Has(claim.UID) {
				continue
			}
			if heldOnlyBy(claim, podGroup.UID) {
				if err := pl.deallocate(ctx, claim); err != nil {
					return statusError(klog.FromContext(ctx), err)
				}
				return fwk.NewStatus(fwk.Unschedulable, "deallocation of PodGroup ResourceClaim completed")
			}
		}
	}
	return nil
}

// unreserveGroupClaim removes the PodGroup from the reservations of an
// allocated claim it declares, so that the claim may be deallocated and
// allocated elsewhere once nobody holds it.
func (pl *DRAAllocator) unreserveGroupClaim(ctx context.Context, pod *v1.Pod, podGroup *schedulingapi.PodGroup) *fwk.Status {
	logger := klog.FromContext(ctx)
	for i := range podGroup.Spec.ResourceClaims {
		name, mustCheckOwner, err := resourceclaim.NameFromPodGroup(podGroup, &podGroup.Spec.ResourceClaims[i])
		if err != nil {
			return statusError(logger, err)
		}
		if name == nil {
			continue
		}
		claim, err := pl.draManager.ResourceClaims().Get(podGroup.Namespace, *name)
		if err != nil {
			return statusError(logger, fmt.Errorf("claim %s/%s of PodGroup %s: %w", podGroup.Namespace, *name, podGroup.Name, err))
		}
		if mustCheckOwner && resourceclaim.IsForPodGroup(podGroup, claim) != nil {
			continue
		}
		if claim.Status.Allocation == nil || !resourceclaim.IsReservedForPod(pod, claim, true) {
			continue
		}
		if err := pl.removeReservation(ctx, claim, podGroup.UID); err != nil {
			// Tried again when the group is scheduled again.
			logger.Error(err, "Removing the PodGroup from the claim's reservations failed", "resourceclaim", klog.KObj(claim), "podGroup", klog.KObj(podGroup))
			continue
		}
		return statusUnresolvable(logger, "ResourceClaim unreserved for PodGroup")
	}
	return nil
}
