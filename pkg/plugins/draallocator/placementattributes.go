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
	"sync"

	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
)

// Domains from device attributes (issue 39). DRA drivers publish the
// NVLink domain or fabric partition of a GPU as an attribute of the device
// (gpu.example.com/nvlinkDomain), not as a node label, and one node's GPUs
// may be in several. For a topology key that no node carries as a label
// and that is a qualified attribute name, DRAAllocator groups the nodes by
// the values their devices give the attribute: a node is in every domain
// one of its devices is in. While kube-scheduler tries the group in one
// domain, each pod's allocator takes no device of another domain
// (allocator.KeptTo); devices without the attribute stay usable. A
// group with scheduled pods stays in the domain of their devices.

// attributeDomainsKey is where a pod-group cycle keeps the domain of each
// placement generated from a device attribute.
const attributeDomainsKey fwk.StateKey = Name + "/attribute-domains"

// attributeDomains maps the cycle's placements to their domains, and the
// placement states kube-scheduler makes for them to the placements.
type attributeDomains struct {
	key string
	// order are the placements as generated, the order they are tried in;
	// values their domains; allNodes the snapshot's node count then.
	order    []*fwk.Placement
	values   map[*fwk.Placement]string
	allNodes int

	mu sync.Mutex
	// bound maps each placement state seen to its placement.
	bound map[fwk.PlacementCycleState]*fwk.Placement
}

// Clone returns the same record: the cycle's pods share it.
func (d *attributeDomains) Clone() fwk.StateData { return d }

// placementOf returns the placement the cycle state is for. The snapshot
// names the placement being tried (current), except one of every node,
// for which it sets none: such placements are tried in generation order,
// so a state not seen before is the first of them not yet bound.
func (d *attributeDomains) placementOf(state fwk.PlacementCycleState, current *fwk.Placement) (*fwk.Placement, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p, ok := d.bound[state]; ok {
		return p, true
	}
	if _, ok := d.values[current]; ok {
		d.bound[state] = current
		return current, true
	}
	if current != nil {
		return nil, false
	}
	taken := map[*fwk.Placement]bool{}
	for _, p := range d.bound {
		taken[p] = true
	}
	for _, p := range d.order {
		if len(p.Nodes) == d.allNodes && !taken[p] {
			d.bound[state] = p
			return p, true
		}
	}
	return nil, false
}

// attributePlacements generates one placement per value of the device
// attribute key among the parent placement's nodes, in order of value.
func (pl *DRAAllocator) attributePlacements(ctx context.Context, gcs fwk.PodGroupCycleState, group fwk.PodGroupInfo, key string, parent *fwk.Placement) (*fwk.GeneratePlacementsResult, *fwk.Status) {
	name := group.GetNamespace() + "/" + group.GetName()
	alloc, err := pl.groupAllocator(ctx, gcs, groupName(group))
	if err != nil {
		return nil, fwk.AsStatus(err)
	}
	required, err := pl.scheduledAttributeDomain(group, key)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("pod group %s: cannot determine the domain of its scheduled pods' devices: %w", name, err))
	}
	byDomain := map[string][]fwk.NodeInfo{}
	for _, n := range parent.Nodes {
		for _, v := range alloc.DomainValues(n.Node(), key) {
			if required == "" || v == required {
				byDomain[v] = append(byDomain[v], n)
			}
		}
	}
	if len(byDomain) == 0 && required != "" {
		// Pinned to a domain no node of the parent is in: as upstream.
		return &fwk.GeneratePlacementsResult{}, nil
	}
	if len(byDomain) == 0 {
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("pod group %s: no node carries its topology key %q as a label, and no device as an attribute", name, key))
	}
	all, err := pl.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("list nodes: %w", err))
	}
	placements := make([]*fwk.Placement, 0, len(byDomain))
	for v, nodes := range byDomain {
		placements = append(placements, &fwk.Placement{Name: v, Nodes: nodes})
	}
	slices.SortFunc(placements, func(a, b *fwk.Placement) int { return strings.Compare(a.Name, b.Name) })
	placements, why, err := pl.keepDomainsThatMayFit(ctx, alloc, group, key, true, placements)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("pod group %s: %w", name, err))
	}
	if why != "" {
		return nil, fwk.NewStatus(fwk.Unschedulable, why)
	}
	placements = pl.limitPlacements(ctx, gcs, alloc, group, placements)
	rec := &attributeDomains{key: key, order: placements, values: map[*fwk.Placement]string{}, allNodes: len(all), bound: map[fwk.PlacementCycleState]*fwk.Placement{}}
	for _, p := range placements {
		rec.values[p] = p.Name
	}
	gcs.Write(attributeDomainsKey, rec)
	klog.FromContext(ctx).V(4).Info("Generated placements from a device attribute", "podGroup", name, "key", key, "placements", len(placements), "pinnedTo", required)
	return &fwk.GeneratePlacementsResult{Placements: placements}, nil
}

// scheduledAttributeDomain returns the domain of key that the devices of
// the group's scheduled pods are in, "" when they have none with the
// attribute; devices in two domains are an error.
func (pl *DRAAllocator) scheduledAttributeDomain(group fwk.PodGroupInfo, key string) (string, error) {
	pods, err := pl.scheduledPods(group)
	if err != nil {
		return "", err
	}
	domain := ""
	for _, pod := range pods {
		claims, err := pl.podClaims(pod)
		if err != nil {
			// A claim of a scheduled pod that cannot be read (being
			// deleted, not seen yet) does not pin the group.
			continue
		}
		for _, c := range claims {
			a := pl.allocationOf(c)
			if a == nil {
				continue
			}
			for _, r := range a.Devices.Results {
				if r.AdminAccess != nil && *r.AdminAccess {
					// Admin access holds no device.
					continue
				}
				for _, d := range pl.feed.inv.LookupID(structured.MakeDeviceID(r.Driver, r.Pool, r.Device)) {
					v, ok := d.Attribute(key)
					if !ok {
						continue
					}
					if domain != "" && v != domain {
						return "", fmt.Errorf("its pods' devices are in two domains, %s and %s", domain, v)
					}
					domain = v
				}
			}
		}
	}
	return domain, nil
}

// keptToAttributeDomain keeps a pod's allocator to the device-attribute
// domain of the placement being tried, if it is one.
func (pl *DRAAllocator) keptToAttributeDomain(cs fwk.CycleState, alloc *allocator.Allocator) *allocator.Allocator {
	gcs := cs.GetPodGroupSchedulingCycle()
	if gcs == nil {
		return alloc
	}
	rec, err := stateAs[*attributeDomains](gcs.Read(attributeDomainsKey))
	if err != nil {
		return alloc
	}
	var current *fwk.Placement
	if p, ok := pl.handle.SnapshotSharedLister().(currentPlacement); ok {
		current = p.GetPlacement()
	}
	state := cs.GetPlacementCycleState()
	if state == nil {
		return alloc
	}
	placement, ok := rec.placementOf(state, current)
	if !ok {
		return alloc
	}
	return alloc.KeptTo(rec.key, rec.values[placement], nodeObjects(placement.Nodes))
}
