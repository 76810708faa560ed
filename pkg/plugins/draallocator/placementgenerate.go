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

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
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
// same from one attempt to the next — less the domains too small for the
// group's devices (keepDomainsThatMayFit) and, on an attempt before any
// failed, those beyond maxPlacements (placementlimit.go). A group without
// a topology constraint gets its parent placement whole.

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
	// Found here first in a preemption's re-run, which a group waiting for
	// released devices is turned down in at once (releasinggroup.go).
	pl.gangPreemptionOf(ctx, gcs, groupName(group))
	if why := awaitingInRerun(gcs); why != "" {
		return nil, fwk.NewStatus(fwk.Unschedulable, why)
	}
	name := group.GetNamespace() + "/" + group.GetName()
	if !slices.ContainsFunc(parent.Nodes, func(n fwk.NodeInfo) bool { _, ok := n.Node().Labels[key]; return ok }) {
		if strings.Contains(key, "/") {
			if group.GetCompositePodGroup() != nil {
				return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("composite pod group %s: a device attribute (%q) as its topology key is not supported yet; use it on its pod groups", name, key))
			}
			return pl.attributePlacements(ctx, gcs, group, key, parent)
		}
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("pod group %s: no node carries its topology key %q as a label", name, key))
	}
	required, pinned, err := pl.scheduledDomain(group, key)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("pod group %s: cannot determine the domain of its scheduled pods: %w", name, err))
	}
	byDomain := map[string][]fwk.NodeInfo{}
	for _, n := range parent.Nodes {
		if domain, ok := n.Node().Labels[key]; ok && (!pinned || domain == required) {
			byDomain[domain] = append(byDomain[domain], n)
		}
	}
	if len(byDomain) == 0 {
		// Pinned to a domain no node of the parent is in: as upstream.
		return &fwk.GeneratePlacementsResult{}, nil
	}
	placements := make([]*fwk.Placement, 0, len(byDomain))
	for domain, nodes := range byDomain {
		placements = append(placements, &fwk.Placement{Name: domain, Nodes: nodes})
	}
	slices.SortFunc(placements, func(a, b *fwk.Placement) int { return strings.Compare(a.Name, b.Name) })
	alloc, err := pl.groupAllocator(ctx, gcs, groupName(group))
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("pod group %s: %w", name, err))
	}
	placements, why, err := pl.keepDomainsThatMayFit(ctx, alloc, group, key, false, placements)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("pod group %s: %w", name, err))
	}
	if why != "" {
		return nil, fwk.NewStatus(fwk.Unschedulable, why)
	}
	placements = pl.limitPlacements(ctx, gcs, alloc, group, placements)
	klog.FromContext(ctx).V(4).Info("Generated placements", "podGroup", name, "key", key, "placements", len(placements), "pinnedTo", required)
	return &fwk.GeneratePlacementsResult{Placements: placements}, nil
}

// scheduledDomain returns the domain of key that the group's scheduled
// (assumed or bound) pods are in, and whether any is scheduled (a label's
// value may be empty). Pods on nodes in different domains, or on a node
// without the label, are an error, as with upstream's generator.
func (pl *DRAAllocator) scheduledDomain(group fwk.PodGroupInfo, key string) (domain string, pinned bool, err error) {
	pods, err := pl.scheduledPods(group)
	if err != nil {
		return "", false, err
	}
	for _, pod := range pods {
		node, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(pod.Spec.NodeName)
		if err != nil {
			return "", false, fmt.Errorf("node of pod %s: %w", klog.KObj(pod), err)
		}
		d, ok := node.Node().Labels[key]
		if !ok {
			return "", false, fmt.Errorf("node %s of pod %s has no label %q", pod.Spec.NodeName, klog.KObj(pod), key)
		}
		if pinned && d != domain {
			return "", false, fmt.Errorf("its pods are in two domains, %s and %s", domain, d)
		}
		domain, pinned = d, true
	}
	return domain, pinned, nil
}

// scheduledPods returns the group's scheduled pods, its subgroups' too
// for a composite group.
func (pl *DRAAllocator) scheduledPods(group fwk.PodGroupInfo) ([]*v1.Pod, error) {
	lister := pl.handle.SnapshotSharedLister()
	if pl.gates.EnableCompositePodGroup {
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

// keepDomainsThatMayFit drops the placements whose free devices cannot
// cover what the group's pods need at least, before any pod is tried
// there: counts only, no search (allocator.DomainFree, an upper bound of
// the devices a domain offers the group's claims — those their requests
// select, free, with counters to spare — against groupNeed, a lower bound
// of what the group asks). attribute says the domains are values of the
// device attribute key. When none is kept, why says so, per domain.
func (pl *DRAAllocator) keepDomainsThatMayFit(ctx context.Context, alloc *allocator.Allocator, group fwk.PodGroupInfo, key string, attribute bool, placements []*fwk.Placement) (kept []*fwk.Placement, why string, err error) {
	need, claims, err := pl.groupNeed(group)
	if err != nil || need == 0 {
		return placements, "", err
	}
	var dropped []string
	for _, p := range placements {
		nodes := nodeObjects(p.Nodes)
		attr, value := "", ""
		if attribute {
			attr, value = key, p.Name
		}
		if free := alloc.DomainFree(ctx, nodes, claims, attr, value); free < need {
			dropped = append(dropped, fmt.Sprintf("%s=%s: %d free", key, p.Name, free))
			continue
		}
		kept = append(kept, p)
	}
	if len(dropped) > 0 {
		klog.FromContext(ctx).V(4).Info("Dropped domains too small for the pod group's devices", "podGroup", klog.KRef(group.GetNamespace(), group.GetName()),
			"need", need, "dropped", dropped)
	}
	if len(kept) == 0 {
		why = fmt.Sprintf("pod group %s/%s: no domain of %s has the %d free devices its pods need at least (%s)",
			group.GetNamespace(), group.GetName(), key, need, strings.Join(dropped, ", "))
	}
	return kept, why, nil
}

// groupNeed is a lower bound of the devices the group needs: over the
// pods it must still place (a gang's minCount less its scheduled pods, or
// one), the fewest devices their claims not yet allocated ask for, each
// claim counted once however many pods share it. claims are the claims not
// yet allocated of every unscheduled pod of the group, whose requests
// say which devices count as free for it.
func (pl *DRAAllocator) groupNeed(group fwk.PodGroupInfo) (need int, claims []*resourceapi.ResourceClaim, err error) {
	pg := group.GetPodGroup()
	if pg == nil {
		return 0, nil, nil
	}
	must := 1
	if g := pg.Spec.SchedulingPolicy.Gang; g != nil {
		must = int(g.MinCount)
		if state, err := pl.handle.SnapshotSharedLister().PodGroupStates().Get(group.GetNamespace(), group.GetName()); err == nil {
			must -= state.ScheduledPodsCount()
		}
	}
	if must <= 0 {
		return 0, nil, nil
	}
	counted := map[types.UID]bool{}
	var needs []int
	for _, pod := range group.GetUnscheduledPods() {
		podClaims, err := pl.podClaims(pod)
		if err != nil {
			// Its own PreFilter says what is missing; it asks for nothing
			// here.
			needs = append(needs, 0)
			continue
		}
		n := 0
		for _, c := range podClaims {
			if counted[c.UID] || pl.allocationOf(c) != nil {
				continue
			}
			counted[c.UID] = true
			claims = append(claims, c)
			n += leastDevices(c)
		}
		needs = append(needs, n)
	}
	slices.Sort(needs)
	for _, n := range needs[:min(must, len(needs))] {
		need += n
	}
	return need, claims, nil
}

// leastDevices is the fewest devices the claim can be allocated with:
// each request's count (one for All), its smallest alternative's with
// firstAvailable; none for admin access, which may use allocated devices.
func leastDevices(claim *resourceapi.ResourceClaim) int {
	count := func(mode resourceapi.DeviceAllocationMode, n int64) int {
		if mode == resourceapi.DeviceAllocationModeAll {
			return 1
		}
		return int(n)
	}
	total := 0
	for _, r := range claim.Spec.Devices.Requests {
		switch {
		case r.Exactly != nil:
			if r.Exactly.AdminAccess == nil || !*r.Exactly.AdminAccess {
				total += count(r.Exactly.AllocationMode, r.Exactly.Count)
			}
		case len(r.FirstAvailable) > 0:
			least := -1
			for _, sub := range r.FirstAvailable {
				if n := count(sub.AllocationMode, sub.Count); least < 0 || n < least {
					least = n
				}
			}
			total += least
		}
	}
	return total
}
