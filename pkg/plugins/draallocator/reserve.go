package draallocator

import (
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// Reserve marks the devices Filter chose on the node as in flight, so that
// the next scheduling cycles do not hand them out again while PreBind
// writes the claims.
func (pl *DRAAllocator) Reserve(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeName string) (status *fwk.Status) {
	s, err := getState(cs)
	if err != nil {
		return statusError(klog.FromContext(ctx), err)
	}
	if s.empty() || s.alloc == nil {
		return nil
	}
	start := time.Now()
	defer func() { observe("Reserve", start, status) }()
	logger := klog.FromContext(ctx)
	nodeInfo, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(nodeName)
	if err != nil {
		return statusError(logger, fmt.Errorf("get node %s: %w", nodeName, err))
	}
	results, err := pl.nodeResults(ctx, s, nodeInfo.Node())
	if err != nil {
		return statusError(logger, err)
	}
	if len(results) != len(s.toAllocate) {
		return statusError(logger, fmt.Errorf("internal error: %d allocations for %d claims", len(results), len(s.toAllocate)))
	}
	for j, ci := range s.toAllocate {
		allocation := &results[j]
		s.allocation[ci] = allocation
		claim := s.claims[ci].DeepCopy()
		if !slices.Contains(claim.Finalizers, resourceapi.Finalizer) {
			claim.Finalizers = append(claim.Finalizers, resourceapi.Finalizer)
		}
		claim.Status.Allocation = allocation
		if err := pl.draManager.ResourceClaims().SignalClaimPendingAllocation(claim.UID, claim); err != nil {
			return statusError(logger, fmt.Errorf("internal error: mark allocation of claim %s in flight: %w", klog.KObj(claim), err))
		}
		pl.allocated.SetPending(claim.UID, allocation)
		logger.V(5).Info("Reserved devices", "resourceclaim", klog.KObj(claim), "allocation", klog.Format(allocation))
	}
	return nil
}

// Unreserve releases in-flight allocations and removes the pod from the
// reservations PreBind may have written. It is idempotent.
func (pl *DRAAllocator) Unreserve(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeName string) {
	s, err := getState(cs)
	if err != nil || s.empty() {
		return
	}
	logger := klog.FromContext(ctx)
	for _, claim := range s.claims {
		if pl.draManager.ResourceClaims().MaybeRemoveClaimPendingAllocation(claim.UID, false) {
			logger.V(5).Info("Released in-flight allocation", "resourceclaim", klog.KObj(claim))
			pl.draManager.ResourceClaims().AssumedClaimRestore(claim.Namespace, claim.Name)
			pl.allocated.ClearPending(claim.UID)
		}
		if claim.Status.Allocation != nil && resourceclaim.IsReservedForPod(pod, claim, false) {
			// A strategic merge patch removes just this pod's entry,
			// whatever else changed in the claim meanwhile.
			patch := fmt.Sprintf(`{"metadata": {"uid": %q}, "status": {"reservedFor": [{"$patch": "delete", "uid": %q}]}}`, claim.UID, pod.UID)
			if _, err := pl.client.ResourceV1().ResourceClaims(claim.Namespace).Patch(ctx, claim.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
				// Retried when the pod is scheduled again.
				logger.Error(err, "Removing the pod from the claim's reservations failed", "resourceclaim", klog.KObj(claim), "pod", klog.KObj(pod))
			}
		}
	}
}

// PostFilter runs when no node fits. If an allocated claim of the pod could
// not be used on some node and nobody else uses it, it deallocates that
// claim, so that the next attempt may allocate it elsewhere — as the
// in-tree plugin does.
func (pl *DRAAllocator) PostFilter(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, _ fwk.NodeToStatusReader) (_ *fwk.PostFilterResult, status *fwk.Status) {
	s, err := getState(cs)
	if err != nil {
		return nil, statusError(klog.FromContext(ctx), err)
	}
	if s.empty() {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	start := time.Now()
	defer func() { observe("PostFilter", start, status) }()
	logger := klog.FromContext(ctx)
	s.mu.Lock()
	unavailable := s.unavailable.UnsortedList()
	s.mu.Unlock()
	// Any order will do; there is no better heuristic than the first.
	for _, i := range unavailable {
		claim := s.claims[i]
		if len(claim.Status.ReservedFor) == 0 ||
			len(claim.Status.ReservedFor) == 1 && claim.Status.ReservedFor[0].UID == pod.UID {
			claim = claim.DeepCopy()
			claim.Status.ReservedFor = nil
			claim.Status.Allocation = nil
			claim.Status.Devices = nil
			logger.V(5).Info("Deallocating claim", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(claim))
			updated, err := pl.client.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(ctx, claim, metav1.UpdateOptions{})
			if err != nil {
				return nil, statusError(logger, fmt.Errorf("deallocate claim %s: %w", klog.KObj(claim), err))
			}
			pl.allocated.SetClaim(updated)
			metrics.ClaimsDeallocated.Inc()
			return nil, fwk.NewStatus(fwk.Unschedulable, "deallocation of ResourceClaim completed")
		}
	}
	return nil, fwk.NewStatus(fwk.Unschedulable)
}
