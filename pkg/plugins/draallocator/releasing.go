package draallocator

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
)

// A preemptor's victims give their devices back in two steps: the pods
// terminate and are deleted, then the resourceclaim controller removes
// them from their claims' reservations and deallocates the claims. While
// victims terminate, DefaultPreemption does not preempt again; once they
// are gone it would, although their claims are only a moment from being
// released. PostFilter, which runs before DefaultPreemption's, keeps the
// pod's nomination instead while the devices it needs on its nominated
// node are being released (awaitRelease): no second round of evictions.

// awaitRelease returns the pod's nominated node when the pod would fit
// there once the claims being released on it are (beingReleased); "" when
// it would not or the pod is not nominated.
func (pl *DRAAllocator) awaitRelease(ctx context.Context, s *stateData, pod *v1.Pod) string {
	name := pod.Status.NominatedNodeName
	if name == "" || s.alloc == nil || !pl.preemptionEnabled() {
		return ""
	}
	nodeInfo, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(name)
	if err != nil || nodeInfo.Node() == nil {
		return ""
	}
	claims, st := s.nodeClaims(pod, nodeInfo)
	if st != nil || len(claims) == 0 {
		return ""
	}
	release, err := pl.beingReleased(nodeInfo.Node())
	if err != nil {
		klog.FromContext(ctx).V(4).Info("Cannot tell which claims are being released", "node", klog.KRef("", name), "err", err)
		return ""
	}
	if len(release) == 0 {
		return ""
	}
	w := allocator.WhatIf{Node: name, Release: release}
	fits, err := s.alloc.WithState(s.alloc.State().Apply(pl.inv.inv, pl.features, w)).Fits(ctx, nodeInfo.Node(), claims)
	if err != nil || !fits {
		return ""
	}
	return name
}

// beingReleased returns the allocations on node of claims that every
// consumer is leaving: each is a pod that is gone, replaced (another UID)
// or terminating. The resourceclaim controller deallocates such claims.
func (pl *DRAAllocator) beingReleased(node *v1.Node) ([]*resourceapi.AllocationResult, error) {
	claims, err := pl.draManager.ResourceClaims().List()
	if err != nil {
		return nil, fmt.Errorf("list claims: %w", err)
	}
	var out []*resourceapi.AllocationResult
	for _, claim := range claims {
		alloc := claim.Status.Allocation
		if alloc == nil || len(claim.Status.ReservedFor) == 0 {
			continue
		}
		if sel, err := availableOn(alloc); err != nil || sel != nil && !sel.Match(node) {
			continue
		}
		if pl.consumersLeaving(claim) {
			out = append(out, alloc)
		}
	}
	return out, nil
}

// consumersLeaving reports whether every consumer of the claim is a pod
// that is gone, replaced or terminating.
func (pl *DRAAllocator) consumersLeaving(claim *resourceapi.ResourceClaim) bool {
	for _, c := range claim.Status.ReservedFor {
		if c.APIGroup != "" || c.Resource != "pods" {
			return false
		}
		pod, err := pl.podLister.Pods(claim.Namespace).Get(c.Name)
		if err == nil && pod.UID == c.UID && pod.DeletionTimestamp == nil {
			return false
		}
	}
	return true
}

// awaitingReleaseStatus is PostFilter's answer while the pod waits for
// released devices: Success ends the PostFilter phase before
// DefaultPreemption, and the result keeps the nomination.
func awaitingReleaseStatus(node string) (*fwk.PostFilterResult, *fwk.Status) {
	return &fwk.PostFilterResult{NominatingInfo: &fwk.NominatingInfo{NominatedNodeName: node, NominatingMode: fwk.ModeOverride}},
		fwk.NewStatus(fwk.Success, fmt.Sprintf("waiting for the devices of preempted pods on node %s to be released", node))
}
