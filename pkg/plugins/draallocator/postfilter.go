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
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// postFilter runs when no node fits. If an allocated claim of the pod could
// not be used on some node and nobody else uses it, it deallocates that
// claim, so that the next attempt may allocate it elsewhere — as the
// in-tree plugin does. Otherwise it keeps the pod's nomination while the
// devices it needs on its nominated node are being released
// (awaitRelease, releasing.go), so that no second round of evictions
// starts.
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
