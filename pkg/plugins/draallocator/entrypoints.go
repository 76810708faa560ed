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

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// The framework enters the plugin here and only here: each extension point
// runs its test hook and its implementation (in the file of its phase)
// under the guard, so that a panic fails the pod's attempt instead of the
// scheduler. See guard.go.

// PreEnqueue keeps a pod out of the active queue while one of its claims is
// missing; a claim event brings it back.
func (pl *DRAAllocator) PreEnqueue(ctx context.Context, pod *v1.Pod) (status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "PreEnqueue", pod, &status)
	pl.guard.enter("PreEnqueue", pod)
	return pl.preEnqueue(ctx, pod)
}

// PreFilter resolves the pod's claims, rejects pods whose claims are in use
// elsewhere or ask for missing classes, and builds the allocator for the
// claims that need devices.
func (pl *DRAAllocator) PreFilter(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (result *fwk.PreFilterResult, status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "PreFilter", pod, &status)
	pl.guard.enter("PreFilter", pod)
	return pl.preFilter(ctx, cs, pod, nodes)
}

// PreFilterExtensions lets preemption's dry runs remove and add pods
// (preemption.go); nil with preemption disabled, as in-tree.
func (pl *DRAAllocator) PreFilterExtensions() fwk.PreFilterExtensions {
	if !pl.preemptionEnabled() {
		return nil
	}
	return pl
}

// AddPod adds a pod to the node in a preemption dry run or kube-scheduler's
// pass with the node's nominated pods: its devices count as taken.
func (pl *DRAAllocator) AddPod(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, podInfo fwk.PodInfo, _ fwk.NodeInfo) (status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "AddPod", pod, &status)
	pl.guard.enter("AddPod", pod)
	return pl.addPod(cs, podInfo)
}

// RemovePod removes a pod from the node in a preemption dry run: the
// claims it alone holds count as free.
func (pl *DRAAllocator) RemovePod(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, podInfo fwk.PodInfo, _ fwk.NodeInfo) (status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "RemovePod", pod, &status)
	pl.guard.enter("RemovePod", pod)
	return pl.removePod(cs, podInfo)
}

// Filter checks the pod's allocated claims against the node and asks the
// allocator for the rest.
func (pl *DRAAllocator) Filter(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "Filter", pod, &status)
	pl.guard.enter("Filter", pod)
	return pl.filter(ctx, cs, pod, nodeInfo)
}

// PostFilter runs when no node fits: it may deallocate a claim of the pod
// that no node could use, or else keeps the pod's nomination while the
// devices of its victims are being released on its nominated node
// (releasing.go).
func (pl *DRAAllocator) PostFilter(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader) (result *fwk.PostFilterResult, status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "PostFilter", pod, &status)
	pl.guard.enter("PostFilter", pod)
	return pl.postFilter(ctx, cs, pod, m)
}

// PodGroupPostFilter runs when a pod group's cycle found no placement: it
// may free a claim of its pods or of the PodGroup that no node could use.
func (pl *DRAAllocator) PodGroupPostFilter(ctx context.Context, gcs fwk.PodGroupCycleState, info fwk.PodGroupInfo, _ fwk.PodGroupSchedulingFunc) (result *fwk.PodGroupPostFilterResult, status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "PodGroupPostFilter", nil, &status)
	pl.guard.enter("PodGroupPostFilter", nil)
	return pl.podGroupPostFilter(ctx, gcs, info)
}

// PreScore skips Score when no node's devices would change its score.
func (pl *DRAAllocator) PreScore(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "PreScore", pod, &status)
	pl.guard.enter("PreScore", pod)
	return pl.preScore(ctx, cs, pod, nodes)
}

// Score ranks a node by the devices the pod would get there (nodeResults).
func (pl *DRAAllocator) Score(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (score int64, status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "Score", pod, &status)
	pl.guard.enter("Score", pod)
	return pl.score(ctx, cs, pod, nodeInfo)
}

// ScoreExtensions returns the normalizer.
func (pl *DRAAllocator) ScoreExtensions() fwk.ScoreExtensions { return pl }

// NormalizeScore scales FirstAvailable scores to [0, MaxNodeScore].
func (pl *DRAAllocator) NormalizeScore(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, scores fwk.NodeScoreList) (status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "NormalizeScore", pod, &status)
	pl.guard.enter("NormalizeScore", pod)
	return pl.normalizeScore(ctx, cs, pod, scores)
}

// GeneratePlacements gives the placements (topology domains) a pod group
// may go to (placementgenerate.go).
func (pl *DRAAllocator) GeneratePlacements(ctx context.Context, gcs fwk.PodGroupCycleState, podGroup fwk.PodGroupInfo, parent *fwk.Placement) (result *fwk.GeneratePlacementsResult, status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "GeneratePlacements", nil, &status)
	pl.guard.enter("GeneratePlacements", nil)
	return pl.generatePlacements(ctx, gcs, podGroup, parent)
}

// ScorePlacement ranks a placement of a pod group by the share of its
// devices in use once the group has its own (placementscore.go).
func (pl *DRAAllocator) ScorePlacement(ctx context.Context, _ fwk.PlacementCycleState, podGroup fwk.PodGroupInfo, placement *fwk.PodGroupAssignments) (score int64, status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "ScorePlacement", nil, &status)
	pl.guard.enter("ScorePlacement", nil)
	return pl.scorePlacement(ctx, podGroup, placement)
}

// PlacementScoreExtensions returns the placement score normalizer.
func (pl *DRAAllocator) PlacementScoreExtensions() fwk.PlacementScoreExtensions { return pl }

// NormalizePlacementScore stretches one cycle's placement scores to
// 0–100; in a pod group preemption's re-run it ranks them by their
// victims instead (gangpreemptionrank.go).
func (pl *DRAAllocator) NormalizePlacementScore(ctx context.Context, gcs fwk.PodGroupCycleState, podGroup fwk.PodGroupInfo, scores []fwk.PlacementScore) (status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "NormalizePlacementScore", nil, &status)
	pl.guard.enter("NormalizePlacementScore", nil)
	if g := foundGangPreemption(gcs); g != nil {
		if ranked := g.rankByVictims(scores); ranked != nil {
			pl.explainPreemptionDomains(ctx, podGroup, ranked)
			return nil
		}
	}
	normalizePlacementScores(scores)
	return nil
}

// Reserve marks the devices chosen for the node (nodeResults) as in flight.
func (pl *DRAAllocator) Reserve(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeName string) (status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "Reserve", pod, &status)
	pl.guard.enter("Reserve", pod)
	return pl.reserve(ctx, cs, pod, nodeName)
}

// Unreserve releases what the pod's attempt had in flight and removes the
// pod from the reservations PreBind may have written.
func (pl *DRAAllocator) Unreserve(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeName string) {
	defer pl.recoverUnreserve(ctx, cs, pod)
	pl.guard.enter("Unreserve", pod)
	pl.unreserve(ctx, cs, pod, nodeName)
}

// recoverUnreserve, deferred by Unreserve, reports a panic and still
// releases the attempt's in-flight allocations and ledger entry (without
// API calls), so that no device or node resource stays taken by an
// attempt that is over.
func (pl *DRAAllocator) recoverUnreserve(ctx context.Context, cs fwk.CycleState, pod *v1.Pod) {
	r := recover()
	if r == nil {
		return
	}
	logger := klog.FromContext(ctx)
	_ = report(logger, "Unreserve", pod, r)
	var status *fwk.Status
	defer pl.guard.recoverStatus(ctx, "Unreserve", pod, &status)
	forgot := pl.forgetUncounted(cs, pod)
	s, err := getState(cs)
	released := err == nil && pl.releaseAttempt(logger, cs, s)
	if forgot || released {
		pl.requeue.changed()
	}
}

// PreBindPreFlight tells the framework whether PreBind has work to do.
func (pl *DRAAllocator) PreBindPreFlight(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeName string) (result *fwk.PreBindPreFlightResult, status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "PreBindPreFlight", pod, &status)
	pl.guard.enter("PreBindPreFlight", pod)
	return pl.preBindPreFlight(ctx, cs, pod, nodeName)
}

// PreBind writes the allocations chosen in Reserve and the pod's
// reservation into the claims' status, then waits for binding conditions.
func (pl *DRAAllocator) PreBind(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeName string) (status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "PreBind", pod, &status)
	pl.guard.enter("PreBind", pod)
	return pl.preBind(ctx, cs, pod, nodeName)
}

// SignPod refuses to sign pods with claims.
func (pl *DRAAllocator) SignPod(ctx context.Context, pod *v1.Pod) (fragments []fwk.SignFragment, status *fwk.Status) {
	defer pl.guard.recoverStatus(ctx, "SignPod", pod, &status)
	pl.guard.enter("SignPod", pod)
	return pl.signPod(ctx, pod)
}

// claimPreQueueingHint is the guarded pre-queueing hint of claim events,
// nil when the SchedulerPreQueueingHints gate is off.
func (pl *DRAAllocator) claimPreQueueingHint() fwk.PreQueueingHintFn {
	if pl.pods == nil {
		return nil
	}
	const point = "ResourceClaimPreQueueingHint"
	return func(logger klog.Logger, oldObj, newObj any) (result fwk.PreQueueingHintResult, err error) {
		defer pl.guard.recoverPreHint(logger, point, &result, &err)
		pl.guard.enter(point, nil)
		return pl.pods.podsForClaimEvent(logger, oldObj, newObj)
	}
}

// guardHint wraps a queueing hint in the guard.
func (pl *DRAAllocator) guardHint(point string, hint fwk.QueueingHintFn) fwk.QueueingHintFn {
	return func(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (result fwk.QueueingHint, err error) {
		defer pl.guard.recoverHint(logger, point, pod, &result, &err)
		pl.guard.enter(point, pod)
		return hint(logger, pod, oldObj, newObj)
	}
}
