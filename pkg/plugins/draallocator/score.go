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
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// preScore skips Score for the pod when every node would score 0 and no
// pod group's plan names a node to prefer among them: the
// framework then calls neither Score nor NormalizeScore for it, which on
// a large cluster saves one call per feasible node and pod (the in-tree
// plugin has no PreScore and is called anyway).
func (pl *DRAAllocator) preScore(_ context.Context, cs fwk.CycleState, _ *v1.Pod, _ []fwk.NodeInfo) *fwk.Status {
	s, err := getState(cs)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if !pl.scoresDevices(s) && s.gang.plannedNode() == "" {
		return fwk.NewStatus(fwk.Skip)
	}
	return nil
}

// scoresDevices reports whether the pod's score depends on the devices a
// node offers. It does not when there is nothing to allocate, and with
// the FirstAvailable strategy unless a claim to allocate has a
// firstAvailable request (and DRAPrioritizedList is on): then every node
// scores 0. In a pod group preemption's re-run it always does.
func (pl *DRAAllocator) scoresDevices(s *stateData) bool {
	if s.alloc == nil {
		return false
	}
	if s.gangPreemption != nil {
		// A pod group preemption's re-run scores by victims (score).
		return true
	}
	if pl.args.ScoringStrategy.Type == config.FirstAvailable {
		return pl.gates.EnableDRAPrioritizedList && s.hasFirstAvailable()
	}
	return true
}

// score ranks a node by the devices the pod would get there (nodeResults,
// searched once per node and cycle), according to the
// configured strategy:
//
//   - FirstAvailable (the in-tree plugin's score): the better the chosen
//     firstAvailable alternatives, the higher.
//   - MostAllocated: the fuller the used device pools of the node would be,
//     the higher — fill nodes and GPUs before opening new ones.
//   - LeastAllocated: the emptier, the higher — spread.
//
// In a pod group preemption's re-run, the group's planned node scores
// MaxScore and every other 0; for a pod the plan did not place, the fewer
// of the devices a victim holds, the higher (gangPreemption.victimScore),
// whatever the strategy.
func (pl *DRAAllocator) score(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (_ int64, status *fwk.Status) {
	s, err := getState(cs)
	if err != nil {
		return 0, fwk.AsStatus(err)
	}
	if !pl.scoresDevices(s) {
		// Every node scores 0 (PreScore skips Score then, unless a pod
		// group's plan names a node, which NormalizeScore prefers).
		return 0, nil
	}
	start := time.Now()
	defer func() { observe(pl.latency.score, start, status) }()
	node := nodeInfo.Node()
	if s.gangPreemption != nil {
		if planned := s.gang.plannedNode(); planned != "" {
			// A pod group preemption's re-run follows the group's plan,
			// which places it where it needs the fewest victims
			// (planFreeFirst): a pod drawn to another node's free
			// device would take a device planned for a sibling, and
			// push that one onto a victim's.
			if node.Name == planned {
				return fwk.MaxScore, nil
			}
			return 0, nil
		}
	}
	found, err := pl.nodeResults(ctx, s, pod, nodeInfo, 0)
	if err != nil {
		return 0, fwk.AsStatus(err)
	}
	if s.gangPreemption != nil {
		// A pod group preemption's re-run without a plan for the pod: a
		// node where the pod needs no victim's device wins, whatever the
		// strategy.
		return s.gangPreemption.victimScore(found.all()), nil
	}
	switch pl.args.ScoringStrategy.Type {
	case config.MostAllocated, config.LeastAllocated:
		used, total := s.alloc.Occupancy([]*v1.Node{node}, found.all())
		return nodeOccupancyOrder(pl.args.ScoringStrategy.Type).score(used, total), nil
	default:
		return firstAvailableScore(s, found), nil
	}
}

// hasFirstAvailable reports whether a claim to allocate has a
// firstAvailable request.
func (s *stateData) hasFirstAvailable() bool {
	for _, claim := range s.toAllocateClaims {
		for _, req := range claim.Spec.Devices.Requests {
			if len(req.FirstAvailable) > 0 {
				return true
			}
		}
	}
	return false
}

// firstAvailableScore ranks the devices found for the claims to allocate
// by the firstAvailable alternatives they chose
// (allocator.FirstAvailableRank); the extended-resource claim has none.
func firstAvailableScore(s *stateData, found foundDevices) int64 {
	var claims []*resourceapi.ResourceClaim
	var results []resourceapi.AllocationResult
	for i, r := range found.claims {
		if r != nil {
			claims = append(claims, s.claims[i].claim)
			results = append(results, *r)
		}
	}
	return allocator.FirstAvailableRank(claims, results)
}

// normalizeScore scales FirstAvailable scores to [0, MaxNodeScore]; the
// allocation strategies already score in that range. The node a pod
// group's plan puts the pod on wins a tie for the best score
// (preferPlannedNode).
func (pl *DRAAllocator) normalizeScore(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	if s, err := getState(cs); err == nil {
		defer preferPlannedNode(scores, s.gang.plannedNode())
	}
	switch pl.args.ScoringStrategy.Type {
	case config.MostAllocated, config.LeastAllocated:
		return nil
	}
	var highest int64
	for _, s := range scores {
		highest = max(highest, s.Score)
	}
	if highest == 0 {
		return nil
	}
	for i := range scores {
		scores[i].Score = scores[i].Score * fwk.MaxNodeScore / highest
	}
	return nil
}
