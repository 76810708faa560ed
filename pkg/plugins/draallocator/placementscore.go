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

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// Placements ranked by their devices (issue 39, docs/design/topology.md).
// With TopologyAwareWorkloadScheduling kube-scheduler tries a pod group in
// every placement (a topology domain: a rack, an NVLink domain) and
// commits the feasible one its PlacementScore plugins rank highest. By
// default only CPU and memory (NodeResourcesFit) and the pods placed
// (PodGroupPodsCount) rank them, so a gang of GPU pods lands in an empty
// rack as readily as in a partly used one, and the next gang that needs a
// whole rack finds none. ScorePlacement ranks a placement by the share of
// its devices in use once the group has the devices the cycle chose for
// it: MostAllocated (the default) prefers the fullest, LeastAllocated the
// emptiest (occupancy.go).
// NormalizePlacementScore stretches the scores of one cycle to 0–100, so
// that with the shipped weight the devices decide between placements
// whenever they differ at all, and CPU and memory only when they do not.

// scorePlacement reads, from the pods' cycle states, the devices the
// cycle chose for each pod on its node, and ranks the placement by the
// share of its devices in use with them. The allocator is the first pod's
// with devices: it saw the allocated devices before any pod of the group
// was reserved in this placement (the cycle's trial reservations are
// reverted before placements are scored).
func (pl *DRAAllocator) scorePlacement(ctx context.Context, podGroup fwk.PodGroupInfo, placement *fwk.PodGroupAssignments) (int64, *fwk.Status) {
	var alloc *allocator.Allocator
	var preemption *gangPreemption
	var results []resourceapi.AllocationResult
	for _, a := range placement.ProposedAssignments {
		s, err := getState(a.GetCycleState())
		if err != nil || s.alloc == nil {
			// A pod without devices to allocate.
			continue
		}
		if alloc == nil {
			alloc, preemption = s.alloc, s.gangPreemption
		}
		if found, ok := s.cachedResults(a.GetNodeName()); ok {
			results = append(results, found.all()...)
		}
	}
	if alloc == nil {
		// No devices: every placement is the same to this plugin.
		return 0, nil
	}
	if preemption != nil {
		// A pod group preemption's re-run: the placement whose victims
		// are the cheapest wins (gangpreemptionrank.go).
		start := time.Now()
		victims := pl.victimsOf(ctx, preemption, placement)
		metrics.GroupPreemptionRanking.Observe(time.Since(start).Seconds())
		preemption.keepVictims(placement.Placement, victims)
		klog.FromContext(ctx).V(4).Info("Scored a placement by the victims it needs", "podGroup", klog.KRef(podGroup.GetNamespace(), podGroup.GetName()),
			"placement", placement.Name, "victims", victims.podNames(), "pdbViolations", victims.pdbViolations)
		return preemption.victimScore(results), nil
	}
	used, total := alloc.Occupancy(nodeObjects(placement.Nodes), results)
	score := placementOccupancyOrder(pl.args.PlacementScoring).score(used, total)
	klog.FromContext(ctx).V(4).Info("Scored a placement by its devices", "podGroup", klog.KRef(podGroup.GetNamespace(), podGroup.GetName()),
		"placement", placement.Name, "devicesUsed", used, "devices", total, "score", score)
	return score, nil
}

// normalizePlacementScores stretches the scores to 0–100: the best
// placement gets MaxScore, the worst 0, the rest in proportion; equal
// scores all become 0 (no preference).
func normalizePlacementScores(scores []fwk.PlacementScore) {
	if len(scores) == 0 {
		return
	}
	lo, hi := scores[0].Score, scores[0].Score
	for _, s := range scores {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	for i := range scores {
		if hi == lo {
			scores[i].Score = 0
			continue
		}
		scores[i].Score = (scores[i].Score - lo) * fwk.MaxScore / (hi - lo)
	}
}
