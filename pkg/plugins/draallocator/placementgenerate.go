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
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/helper"
)

// Placements generated (issue 39, docs/design/topology.md). With
// TopologyAwareWorkloadScheduling kube-scheduler asks one PlacementGenerate
// plugin per profile for the placements a pod group may go to, then tries
// the group in each. DRAAllocator takes the place of upstream's
// TopologyPlacementGenerator: for a key nodes carry as a label it gives
// what that plugin gives — a placement per value of the label, the group
// pinned to the domain of its already scheduled pods — in the order of
// the domains' names, so that what the first one's failure says is the
// same from one attempt to the next. A group without a topology
// constraint gets its parent placement whole.

// topologyKey returns the key of the group's topology constraint (a
// PodGroup's or a CompositePodGroup's; the API allows one).
func topologyKey(group fwk.PodGroupInfo) (string, bool) {
	if pg := group.GetPodGroup(); pg != nil {
		if c := pg.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
			return c.Topology[0].Key, true
		}
	} else if cpg := group.GetCompositePodGroup(); cpg != nil {
		if c := cpg.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
			return c.Topology[0].Key, true
		}
	}
	return "", false
}

// generatePlacements: see GeneratePlacements.
func (pl *DRAAllocator) generatePlacements(ctx context.Context, gcs fwk.PodGroupCycleState, group fwk.PodGroupInfo, parent *fwk.Placement) (*fwk.GeneratePlacementsResult, *fwk.Status) {
	key, ok := topologyKey(group)
	if !ok {
		return &fwk.GeneratePlacementsResult{Placements: []*fwk.Placement{parent}}, nil
	}
	name := group.GetNamespace() + "/" + group.GetName()
	if !slices.ContainsFunc(parent.Nodes, func(n fwk.NodeInfo) bool { _, ok := n.Node().Labels[key]; return ok }) {
		if strings.Contains(key, "/") {
			return pl.attributePlacements(ctx, gcs, group, key, parent)
		}
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("pod group %s: no node carries its topology key %q as a label", name, key))
	}
	required, err := pl.scheduledDomain(group, key)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("pod group %s: cannot determine the domain of its scheduled pods: %w", name, err))
	}
	byDomain := map[string][]fwk.NodeInfo{}
	for _, n := range parent.Nodes {
		if domain, ok := n.Node().Labels[key]; ok && (required == "" || domain == required) {
			byDomain[domain] = append(byDomain[domain], n)
		}
	}
	placements := make([]*fwk.Placement, 0, len(byDomain))
	for domain, nodes := range byDomain {
		placements = append(placements, &fwk.Placement{Name: domain, Nodes: nodes})
	}
	slices.SortFunc(placements, func(a, b *fwk.Placement) int { return strings.Compare(a.Name, b.Name) })
	klog.FromContext(ctx).V(4).Info("Generated placements", "podGroup", name, "key", key, "placements", len(placements), "pinnedTo", required)
	return &fwk.GeneratePlacementsResult{Placements: placements}, nil
}

// scheduledDomain returns the domain of key that the group's scheduled
// (assumed or bound) pods are in, "" when none is scheduled. Pods on nodes
// in different domains, or on a node without the label, are an error, as
// with upstream's generator.
func (pl *DRAAllocator) scheduledDomain(group fwk.PodGroupInfo, key string) (string, error) {
	pods, err := pl.scheduledPods(group)
	if err != nil {
		return "", err
	}
	domain := ""
	for _, pod := range pods {
		node, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(pod.Spec.NodeName)
		if err != nil {
			return "", fmt.Errorf("node of pod %s: %w", klog.KObj(pod), err)
		}
		d, ok := node.Node().Labels[key]
		if !ok {
			return "", fmt.Errorf("node %s of pod %s has no label %q", pod.Spec.NodeName, klog.KObj(pod), key)
		}
		if domain != "" && d != domain {
			return "", fmt.Errorf("its pods are in two domains, %s and %s", domain, d)
		}
		domain = d
	}
	return domain, nil
}

// scheduledPods returns the group's scheduled pods, its subgroups' too
// for a composite group.
func (pl *DRAAllocator) scheduledPods(group fwk.PodGroupInfo) ([]*v1.Pod, error) {
	lister := pl.handle.SnapshotSharedLister()
	if pl.fts.EnableCompositePodGroup {
		var pods []*v1.Pod
		for state, err := range helper.GetPodGroupStates(lister, fwk.MustParseEntityKey(group.GetKey())) {
			if err != nil {
				return nil, err
			}
			pods = append(pods, state.ScheduledPods()...)
		}
		return pods, nil
	}
	state, err := lister.PodGroupStates().Get(group.GetNamespace(), group.GetName())
	if err != nil {
		return nil, err
	}
	return state.ScheduledPods(), nil
}
