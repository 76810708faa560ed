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

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints/crossclaims"
)

// Device constraints across a pod group's pods (issue 57, group scope):
// the annotation dra-scheduler.io/device-constraints on a PodGroup ties
// the named requests of every pod of the group (crossclaims.OfGroup), a
// training gang's NICs to one rail. Each pod's PreFilter adds the group's
// constraints to its own, over the claims of every pod of the group, with
// the group's claims allocated or in flight as fixed choices: a pod that
// joins later keeps to the devices its group has, and within a pod-group
// cycle each pod to those its siblings reserved before it.
//
// The joint plan (gangplan.go) asks about all the members a node gets in
// one call, which ties them there. A match across nodes needs one value
// on all of them: when no fixed choice sets it, the plan tries the values
// the placement's devices have, those with the most devices first (at
// most maxGroupMatchValues), each as a device chosen elsewhere
// (allocator.CrossClaimConstraint.Chosen), and keeps the first whose plan
// places every member; the members' allocators then take that value. A
// distinct across nodes holds against the devices allocated or in flight
// before a pod's cycle; the plan does not search for it across nodes.

// maxGroupMatchValues bounds the values a plan tries for a group's
// matchAttribute across nodes.
const maxGroupMatchValues = 32

// groupDeviceConstraints reads the device constraints of the pod's
// PodGroup over the claims of every pod of the group (the pod's are
// claims, of entries), and returns them with the group's other claims
// allocated or in flight; nil when the group has none. A wrong annotation
// fails the pod as podDeviceConstraints does, the message naming the
// PodGroup.
func (pl *DRAAllocator) groupDeviceConstraints(ctx context.Context, pod *v1.Pod, claims []*resourceapi.ResourceClaim, entries []*v1.PodResourceClaim) ([]allocator.CrossClaimConstraint, []*resourceapi.ResourceClaim, *fwk.Status) {
	sg := pod.Spec.SchedulingGroup
	if sg == nil || sg.PodGroupName == nil || !pl.gates.EnableGenericWorkload {
		return nil, nil, nil
	}
	lister := pl.handle.SnapshotSharedLister()
	pg, err := lister.PodGroups().Get(pod.Namespace, *sg.PodGroupName)
	if err != nil || pg == nil {
		return nil, nil, nil // the group's own checks say what is missing
	}
	if _, found := pg.Annotations[deviceconstraints.Annotation]; !found {
		return nil, nil, nil
	}
	members := []crossclaims.Member{{Pod: pod, Claims: claims, PodClaims: podClaimNames(entries)}}
	own := make(map[types.UID]bool, len(claims))
	for _, c := range claims {
		own[c.UID] = true
	}
	var fixed []*resourceapi.ResourceClaim
	seen := map[types.UID]bool{}
	for _, p := range groupPods(lister, pod) {
		pc, pe, err := pl.podClaimsAndEntries(p)
		if err != nil {
			continue // its claims are not there yet: it is no member yet
		}
		members = append(members, crossclaims.Member{Pod: p, Claims: pc, PodClaims: podClaimNames(pe)})
		for _, c := range pc {
			if own[c.UID] || seen[c.UID] {
				continue
			}
			seen[c.UID] = true
			if a := pl.allocationOf(c); a != nil {
				if c.Status.Allocation == nil {
					c = c.DeepCopy()
					c.Status.Allocation = a
				}
				fixed = append(fixed, c)
			}
		}
	}
	constraints, err := crossclaims.OfGroup(pg, members)
	if err != nil {
		logger := klog.FromContext(ctx)
		pl.handle.EventRecorder().WithLogger(logger).Eventf(pod, nil, v1.EventTypeWarning, eventInvalidDeviceConstraints, "Scheduling", "%s", err.Error())
		return nil, nil, statusUnresolvable(logger, err.Error(), "pod", klog.KObj(pod))
	}
	return constraints, fixed, nil
}

// groupPods are the other pods of the pod's group the snapshot knows,
// scheduled or not, in UID order.
func groupPods(lister fwk.SharedLister, pod *v1.Pod) []*v1.Pod {
	state, err := lister.PodGroupStates().Get(pod.Namespace, *pod.Spec.SchedulingGroup.PodGroupName)
	if err != nil {
		return nil
	}
	var out []*v1.Pod
	for _, p := range state.ScheduledPods() {
		if p.UID != pod.UID {
			out = append(out, p)
		}
	}
	for _, p := range state.UnscheduledPods() {
		if p.UID != pod.UID {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *v1.Pod) int { return cmp.Compare(a.UID, b.UID) })
	return slices.CompactFunc(out, func(a, b *v1.Pod) bool { return a.UID == b.UID })
}

// groupMatchChoice is a device chosen elsewhere for the group constraint
// at index constraint: a plan's value for a match across nodes.
type groupMatchChoice struct {
	constraint int
	attribute  resourceapi.FullyQualifiedName
	device     structured.DeviceID
}

// groupMatchChoices are the choices a plan tries for the first of the
// group's matchAttribute constraints that no fixed choice sets: a device
// for each value the nodes' devices give the attribute, the values most
// devices have first (then by value), at most maxGroupMatchValues. None
// when every match is set, or with list-typed attributes.
func (pl *DRAAllocator) groupMatchChoices(c *crossConstraints, nodes []*v1.Node) []groupMatchChoice {
	if c == nil || pl.features.ListTypeAttributes {
		return nil
	}
	fixedNames := map[string]bool{}
	for _, f := range c.fixed {
		fixedNames[f.Name] = true
	}
	for i, con := range c.group {
		if con.MatchAttribute == nil || len(con.Chosen) > 0 || slices.ContainsFunc(con.Requests, func(r allocator.ClaimRequest) bool { return fixedNames[r.Claim] }) {
			continue
		}
		type value struct {
			name   string
			count  int
			device structured.DeviceID
		}
		byValue := map[string]*value{}
		for _, node := range nodes {
			for _, slice := range pl.feed.inv.SlicesOn(node.Name) {
				for _, d := range slice.Devices {
					v, ok := d.Attribute(string(*con.MatchAttribute))
					if !ok {
						continue
					}
					if byValue[v] == nil {
						byValue[v] = &value{name: v, device: structured.MakeDeviceID(d.Driver, d.Pool, d.Spec.Name)}
					}
					byValue[v].count++
				}
			}
		}
		values := make([]*value, 0, len(byValue))
		for _, v := range byValue {
			values = append(values, v)
		}
		slices.SortFunc(values, func(a, b *value) int {
			if c := cmp.Compare(b.count, a.count); c != 0 {
				return c
			}
			return cmp.Compare(a.name, b.name)
		})
		var out []groupMatchChoice
		for _, v := range values[:min(len(values), maxGroupMatchValues)] {
			out = append(out, groupMatchChoice{constraint: i, attribute: *con.MatchAttribute, device: v.device})
		}
		return out
	}
	return nil
}

// with returns the group's constraints with choice made.
func (ch groupMatchChoice) with(group []allocator.CrossClaimConstraint) []allocator.CrossClaimConstraint {
	if ch.constraint >= len(group) || group[ch.constraint].MatchAttribute == nil || *group[ch.constraint].MatchAttribute != ch.attribute {
		return group // another member's view of the group: nothing to fix
	}
	out := slices.Clone(group)
	out[ch.constraint].Chosen = []structured.DeviceID{ch.device}
	return out
}

// takePlanChoice gives the pod's allocator the value its group's plan
// chose for a match across nodes.
func (s *stateData) takePlanChoice(choice *groupMatchChoice) {
	if choice == nil || s.cross == nil || s.unconstrained == nil {
		return
	}
	s.cross.group = choice.with(s.cross.group)
	s.alloc = s.unconstrained.WithCrossClaimConstraints(s.cross.all(), s.cross.fixed)
}

// planGroupDevices runs plan (PlanGang, or planFreeFirst in a preemption's
// re-run) over the pod's plan allocator (stateData.planAllocator): with
// each of the group's match choices in turn, when it has some
// (groupMatchChoices), until one places every member. It returns the
// plan, and the choice it took; without a complete plan, the one that
// places the most members.
func (pl *DRAAllocator) planGroupDevices(s *stateData, pods map[types.UID]*v1.Pod, nodes []*v1.Node, plan func(*allocator.Allocator) (allocator.GangPlan, error)) (allocator.GangPlan, *groupMatchChoice, error) {
	members := pl.membersCrossConstraints(s, pods)
	var group []allocator.CrossClaimConstraint
	if members != nil {
		group = members.group
	}
	choices := pl.groupMatchChoices(members, nodes)
	if len(choices) == 0 {
		result, err := plan(s.planAllocator(members, group))
		return result, nil, err
	}
	var best allocator.GangPlan
	var chosen *groupMatchChoice
	for i := range choices {
		result, err := plan(s.planAllocator(members, choices[i].with(group)))
		if err != nil {
			return allocator.GangPlan{}, nil, err
		}
		if result.Complete || chosen == nil || len(result.Nodes) > len(best.Nodes) {
			best, chosen = result, &choices[i]
		}
		if result.Complete {
			break
		}
	}
	return best, chosen, nil
}
