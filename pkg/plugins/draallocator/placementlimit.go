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
	"cmp"
	"context"
	"slices"

	schedulingapi "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
)

// Placements limited (issue 39, docs/design/topology.md). kube-scheduler
// tries a pod group in every placement its generator gives, each pod
// through PreFilter, Filter, Score and Reserve over the placement's
// nodes: 277 racks of 18 nodes cost a gang of 72 pods about 20,000 pod
// cycles, where the same gang without a constraint costs 72. As
// percentageOfNodesToScore bounds the nodes a pod is tried on, the arg
// maxPlacements bounds the placements of a group's first attempt: of the
// domains that may fit, those its placement scoring ranks first by the
// devices in use now (MostAllocated: the fullest, which ScorePlacement ranks
// first too once the group's devices are added to each). A group that
// failed an attempt (its PodGroupInitiallyScheduled condition is False)
// is tried in every domain that may fit, as upstream's generator does,
// so that a domain the ranking left out is never out of reach for good.
// In a pod group preemption's re-run the domains kept are those with the
// most devices free without evicting anybody: they need the fewest
// victims, which ScorePlacement then ranks exactly
// (gangpreemptionrank.go).

// limitPlacements keeps at most MaxPlacements of placements for a
// PodGroup that has not failed an attempt, those ranked first by the
// devices in use now (free now, in the re-run of gcs's preemption), in
// their given order; otherwise (no limit, few
// enough placements, a failed attempt, a composite group) it returns
// placements as they are.
func (pl *DRAAllocator) limitPlacements(ctx context.Context, gcs fwk.PodGroupCycleState, alloc *allocator.Allocator, group fwk.PodGroupInfo, placements []*fwk.Placement) []*fwk.Placement {
	limit := int(pl.args.MaxPlacements)
	pg := group.GetPodGroup()
	if limit == 0 || len(placements) <= limit || pg == nil || failedBefore(pg) {
		return placements
	}
	score := func(used, total int) int64 {
		return placementOccupancyOrder(pl.args.PlacementScoring).score(used, total)
	}
	if foundGangPreemption(gcs) != nil {
		// alloc frees the victims' devices: count those free now.
		alloc = pl.newAllocator()
		score = func(used, total int) int64 { return int64(total - used) }
	}
	scores := make(map[*fwk.Placement]int64, len(placements))
	for _, p := range placements {
		scores[p] = score(alloc.Occupancy(nodeObjects(p.Nodes), nil))
	}
	ranked := slices.Clone(placements)
	slices.SortStableFunc(ranked, func(a, b *fwk.Placement) int { return cmp.Compare(scores[b], scores[a]) })
	kept := ranked[:limit]
	klog.FromContext(ctx).V(4).Info("Limited the placements of a pod group's first attempt", "podGroup", klog.KRef(group.GetNamespace(), group.GetName()),
		"placements", len(placements), "kept", limit)
	return slices.DeleteFunc(slices.Clone(placements), func(p *fwk.Placement) bool { return !slices.Contains(kept, p) })
}

// failedBefore says whether kube-scheduler failed an attempt of the
// PodGroup: its PodGroupInitiallyScheduled condition is False (a group
// scheduled before has it True, one never tried has none).
func failedBefore(pg *schedulingapi.PodGroup) bool {
	c := apimeta.FindStatusCondition(pg.Status.Conditions, schedulingapi.PodGroupInitiallyScheduled)
	return c != nil && c.Status == metav1.ConditionFalse
}
