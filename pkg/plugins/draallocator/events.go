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

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// EventsToRegister lists the cluster events that can make a pod this
// plugin rejected schedulable: the in-tree plugin's list and hints.
func (pl *DRAAllocator) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	events := []fwk.ClusterEventWithHint{
		// Node labels decide which slices and allocations a node may use,
		// its declared features whether devices that skip node operations
		// may be used there (the in-tree plugin does not register the
		// latter: a pod it rejected for that waits for another event).
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeLabel | fwk.UpdateNodeAllocatable | fwk.UpdateNodeDeclaredFeature}},
		// Claims: created, allocated elsewhere, deallocated, deleted.
		{Event: fwk.ClusterEvent{Resource: fwk.ResourceClaim, ActionType: fwk.Add | fwk.Update | fwk.Delete},
			QueueingHintFn: pl.guardHint("ResourceClaimQueueingHint", pl.isSchedulableAfterClaimChange), PreQueueingHintFn: pl.claimPreQueueingHint()},
		// The claim controller records generated claim names in the pod.
		{Event: fwk.ClusterEvent{Resource: fwk.TargetPod, ActionType: fwk.UpdatePodGeneratedResourceClaim}, QueueingHintFn: pl.guardHint("PodQueueingHint", pl.isSchedulableAfterPodUpdate)},
		// A pod's device constraints changed (an annotation: the queue
		// reports it as a general update of the pod).
		{Event: fwk.ClusterEvent{Resource: fwk.TargetPod, ActionType: fwk.Update}, QueueingHintFn: pl.guardHint("DeviceConstraintsQueueingHint", isSchedulableAfterDeviceConstraintsChange)},
		// A missing class may appear or a class's selectors change.
		{Event: fwk.ClusterEvent{Resource: fwk.DeviceClass, ActionType: fwk.Add | fwk.Update}},
		// New or changed slices bring devices.
		{Event: fwk.ClusterEvent{Resource: fwk.ResourceSlice, ActionType: fwk.Add | fwk.Update}},
	}
	// Node resources: a pod rejected for cpu or memory its devices take,
	// or for what assumed pods' devices take (the ledger), may fit once a
	// pod leaves the node, or once an assumed pod arrives bound and the
	// node accounting, not the ledger, counts it (then NodeResourcesFit
	// judges it again). Preemption: a preemptor waits, gated by
	// DefaultPreemption, for its victims to be deleted, and only the
	// rejecting plugins' hints for that deletion let it go on. Only such
	// pods are queued. The in-tree plugin registers neither: its pods wait
	// for another event.
	var assigned fwk.ActionType
	if pl.gates.EnableDRANodeAllocatableResources {
		assigned |= fwk.Add | fwk.Delete
	}
	if pl.preemptionEnabled() {
		assigned |= fwk.Delete
	}
	if assigned != 0 {
		events = append(events, fwk.ClusterEventWithHint{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: assigned},
			QueueingHintFn: pl.guardHint("AssignedPodQueueingHint", pl.isSchedulableAfterAssignedPodEvent)})
	}
	return events, nil
}

// isSchedulableAfterAssignedPodEvent queues a pod short of node resources
// (isSchedulableAfterAssignedPodChange) or a preemptor whose victim is
// gone (isSchedulableAfterVictimGone).
func (pl *DRAAllocator) isSchedulableAfterAssignedPodEvent(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	if pl.gates.EnableDRANodeAllocatableResources {
		if hint, err := pl.isSchedulableAfterAssignedPodChange(logger, pod, oldObj, newObj); hint == fwk.Queue || err != nil {
			return hint, err
		}
	}
	if pl.preemptionEnabled() && newObj == nil {
		return pl.isSchedulableAfterVictimGone(logger, pod, oldObj)
	}
	return fwk.QueueSkip, nil
}

// isSchedulableAfterClaimChange queues the pod when one of its own claims
// appeared or changed status, or when any claim was deallocated (devices
// freed). It errs on the side of queueing.
func (pl *DRAAllocator) isSchedulableAfterClaimChange(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	if _, ok := oldObj.(cache.DeletedFinalStateUnknown); ok && newObj == nil {
		// We may have missed the update that removed its allocation.
		return fwk.Queue, nil
	}
	var oldClaim, newClaim *resourceapi.ResourceClaim
	if oldObj != nil {
		c, ok := oldObj.(*resourceapi.ResourceClaim)
		if !ok {
			return fwk.Queue, fmt.Errorf("unexpected object of type %T for a claim event", oldObj)
		}
		oldClaim = c
	}
	if newObj != nil {
		c, ok := newObj.(*resourceapi.ResourceClaim)
		if !ok {
			return fwk.Queue, fmt.Errorf("unexpected object of type %T for a claim event", newObj)
		}
		newClaim = c
	}
	if newClaim == nil {
		// Deleted: only a deleted allocation frees devices.
		if oldClaim != nil && oldClaim.Status.Allocation != nil {
			return fwk.Queue, nil
		}
		return fwk.QueueSkip, nil
	}
	deallocated := oldClaim != nil && oldClaim.Status.Allocation != nil && newClaim.Status.Allocation == nil
	if !deallocated && !mayReference(pod, newClaim) {
		// Cheap and common: the hint runs for every waiting pod on every
		// claim event, and most claims are other pods'.
		return fwk.QueueSkip, nil
	}
	claims, err := pl.podClaims(pod)
	if err != nil {
		// Still missing a claim: not schedulable yet.
		logger.V(6).Info("Pod still not schedulable after claim change", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(newClaim), "reason", err.Error())
		return fwk.QueueSkip, nil
	}
	if deallocated {
		logger.V(6).Info("Claim deallocated", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(newClaim))
		return fwk.Queue, nil
	}
	uses := false
	for _, c := range claims {
		if c.UID == newClaim.UID {
			uses = true
			break
		}
	}
	if !uses {
		return fwk.QueueSkip, nil
	}
	if oldClaim == nil {
		logger.V(5).Info("Claim for pod created", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(newClaim))
		return fwk.Queue, nil
	}
	if apiequality.Semantic.DeepEqual(&oldClaim.Status, &newClaim.Status) {
		// Typically a driver adding its finalizer.
		return fwk.QueueSkip, nil
	}
	logger.V(5).Info("Status of claim for pod changed", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(newClaim))
	return fwk.Queue, nil
}

// mayReference reports whether pod can use claim: it names the claim, its
// status names it as generated from a template, or the claim is owned by
// the pod. When it cannot, podClaims cannot resolve to the claim either.
func mayReference(pod *v1.Pod, claim *resourceapi.ResourceClaim) bool {
	if claim.Namespace != pod.Namespace {
		return false
	}
	for _, rc := range pod.Spec.ResourceClaims {
		if rc.ResourceClaimName != nil && *rc.ResourceClaimName == claim.Name {
			return true
		}
	}
	for _, st := range pod.Status.ResourceClaimStatuses {
		if st.ResourceClaimName != nil && *st.ResourceClaimName == claim.Name {
			return true
		}
	}
	for _, ref := range claim.OwnerReferences {
		if ref.UID == pod.UID {
			return true
		}
	}
	return false
}

// isSchedulableAfterPodUpdate queues the pod once all its claims exist.
func (pl *DRAAllocator) isSchedulableAfterPodUpdate(logger klog.Logger, pod *v1.Pod, _, newObj any) (fwk.QueueingHint, error) {
	p, ok := newObj.(*v1.Pod)
	if !ok {
		return fwk.Queue, fmt.Errorf("unexpected object of type %T for a pod event", newObj)
	}
	if _, err := pl.podClaims(p); err != nil {
		logger.V(6).Info("Pod still not schedulable after update", "pod", klog.KObj(pod), "reason", err.Error())
		return fwk.QueueSkip, nil
	}
	return fwk.Queue, nil
}

// isSchedulableAfterVictimGone queues a pod with claims (or asking for an
// extended resource a DeviceClass provides), nominated to the
// node of a deleted pod that had claims (or not nominated yet: the
// nomination may still be on its way to the pod's status), so that it can
// leave DefaultPreemption's gate once its victims are gone: while gated,
// only the rejecting plugins' hints for assigned-pod deletions are asked,
// never the claim events that follow.
func (pl *DRAAllocator) isSchedulableAfterVictimGone(logger klog.Logger, pod *v1.Pod, oldObj any) (fwk.QueueingHint, error) {
	if tomb, ok := oldObj.(cache.DeletedFinalStateUnknown); ok {
		oldObj = tomb.Obj
	}
	gone, ok := oldObj.(*v1.Pod)
	if !ok || !hasClaims(gone) || !hasClaims(pod) && pl.draExtendedResourceOf(pod) == "" {
		return fwk.QueueSkip, nil
	}
	if node := pod.Status.NominatedNodeName; node != "" && node != gone.Spec.NodeName {
		return fwk.QueueSkip, nil
	}
	logger.V(5).Info("A pod with claims left the node of a pod that may have preempted it", "pod", klog.KObj(pod), "gone", klog.KObj(gone), "node", gone.Spec.NodeName)
	return fwk.Queue, nil
}

// isSchedulableAfterAssignedPodChange queues a pod Filter turned away for
// node resources when an assigned pod is added (the bound copy of an
// assumed pod: the ledger no longer counts it, the node accounting does)
// or deleted (its resources freed); other pods wait for their own events.
func (pl *DRAAllocator) isSchedulableAfterAssignedPodChange(logger klog.Logger, pod *v1.Pod, _, _ any) (fwk.QueueingHint, error) {
	if pl.shortOfNodeResources.take(pod.UID) {
		logger.V(5).Info("An assigned pod came or went, retrying a pod short of node resources", "pod", klog.KObj(pod))
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}
