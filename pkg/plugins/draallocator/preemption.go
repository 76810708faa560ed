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
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// Preemption for devices. kube-scheduler's DefaultPreemption finds victims
// by dry runs: on a copy of the cycle state and of the node, it removes
// lower-priority pods (RemovePod), runs Filter, and adds them back one by
// one (AddPod) while the pod still fits. Before every Filter it also adds
// the pods nominated to the node with at least the pod's priority, so
// that they keep what their own preemption freed. The plugin follows
// those calls in a dryRun of its own and, in Filter, answers for the
// devices the change would free and take (allocator.WhatIf): a claim is
// freed when every pod it is reserved for is removed and no pod left on
// the node uses it; a nominated pod takes the devices its unallocated
// claims would get on the node.

// dryRunKey is the cycle-state key of the plugin's dryRun.
const dryRunKey fwk.StateKey = Name + "/dry-run"

// dryRun is what a preemption dry run, or kube-scheduler's pass with the
// node's nominated pods, changes on one node: pods removed from it and
// pods added to it. Unlike stateData it is copied by Clone, because
// DefaultPreemption clones the cycle state once per node and runs the
// nodes in parallel; AddPod and RemovePod write only their own copy.
type dryRun struct {
	removed map[types.UID]*v1.Pod
	added   map[types.UID]*v1.Pod
	// reprieved are the pods a pod group preemption removed from the
	// snapshot that it gave back to this pod's state (gangpreemption.go).
	reprieved map[types.UID]*v1.Pod
	// reprieving is set once a removed pod is given back: DefaultPreemption
	// reprieves victims one by one after its first Filter without them,
	// and reads a reprieve's answer only as fits or not.
	reprieving bool
	// releases is what the dry run's removed pods freed when it last
	// asked with nothing added; victims given back since free a part of
	// it (preemptionmemo.go).
	releases *dryRunReleases
}

// Clone copies the change: every dry run changes its own.
func (d *dryRun) Clone() fwk.StateData {
	return &dryRun{removed: maps.Clone(d.removed), added: maps.Clone(d.added), reprieved: maps.Clone(d.reprieved), reprieving: d.reprieving, releases: d.releases}
}

// empty reports whether the dry run changes nothing.
func (d *dryRun) empty() bool { return d == nil || len(d.removed) == 0 && len(d.added) == 0 }

// remove records a pod removed from the node; removing a pod the dry run
// added undoes the addition, so any order of calls gives the same change.
func (d *dryRun) remove(pod *v1.Pod) {
	if _, ok := d.added[pod.UID]; ok {
		delete(d.added, pod.UID)
		return
	}
	d.removed[pod.UID] = pod
}

// add records a pod added to the node, or a removed one given back.
func (d *dryRun) add(pod *v1.Pod) {
	if _, ok := d.removed[pod.UID]; ok {
		delete(d.removed, pod.UID)
		d.reprieving = true
		return
	}
	d.added[pod.UID] = pod
}

// dryRunOf returns the cycle state's dry run, nil when nothing was
// removed or added.
func dryRunOf(cs fwk.CycleState) *dryRun {
	d, err := stateAs[*dryRun](cs.Read(dryRunKey))
	if err != nil {
		return nil
	}
	return d
}

// changeDryRun applies change to the cycle state's dry run, creating it in
// this copy of the cycle state on first use. Pods for which the plugin
// allocates nothing need none: their Filter does not look at devices.
func (pl *DRAAllocator) changeDryRun(cs fwk.CycleState, change func(*stateData, *dryRun)) *fwk.Status {
	s, err := getState(cs)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if s.alloc == nil {
		return nil
	}
	d := dryRunOf(cs)
	if d == nil {
		d = &dryRun{removed: map[types.UID]*v1.Pod{}, added: map[types.UID]*v1.Pod{}}
		cs.Write(dryRunKey, d)
	}
	change(s, d)
	return nil
}

// addPod: see AddPod. A pod a pod group preemption removed from the
// snapshot comes back as reprieved.
func (pl *DRAAllocator) addPod(cs fwk.CycleState, podInfo fwk.PodInfo) *fwk.Status {
	pod := podInfo.GetPod()
	return pl.changeDryRun(cs, func(s *stateData, d *dryRun) {
		if g := s.gangPreemption; g != nil && g.removed[pod.UID] != nil {
			if d.reprieved == nil {
				d.reprieved = map[types.UID]*v1.Pod{}
			}
			d.reprieved[pod.UID] = pod
			g.reprieving.Store(true)
			g.changed(pod.UID)
			return
		}
		d.add(pod)
	})
}

// removePod: see RemovePod. Removing a reprieved pod again undoes its
// reprieve.
func (pl *DRAAllocator) removePod(cs fwk.CycleState, podInfo fwk.PodInfo) *fwk.Status {
	pod := podInfo.GetPod()
	return pl.changeDryRun(cs, func(s *stateData, d *dryRun) {
		if _, ok := d.reprieved[pod.UID]; ok {
			delete(d.reprieved, pod.UID)
			s.gangPreemption.changed(pod.UID)
			return
		}
		d.remove(pod)
	})
}

// preemptionEnabled reports whether the plugin takes part in preemption.
func (pl *DRAAllocator) preemptionEnabled() bool {
	return pl.args.Preemption != config.PreemptionDisabled
}

// dryRunChange returns the change to the allocated devices under which
// the dry run's node is answered for: its removed pods' claims freed and
// its added pods' devices taken (nominatedDevices: what their own
// preemption freed, never what this dry run removes). Releases come
// before takes, so nothing taken is freed. preempting is an added pod
// whose preemption is still under way (nominatedDevices); the node is
// then not to be used.
func (pl *DRAAllocator) dryRunChange(ctx context.Context, s *stateData, d *dryRun, nodeInfo fwk.NodeInfo) (w allocator.WhatIf, preempting *v1.Pod) {
	node := nodeInfo.Node().Name
	w = allocator.WhatIf{Node: node, Release: pl.released(d, node, nodeInfo.GetPods())}
	w.Take, preempting = pl.nominatedDevices(ctx, s.unrestricted, d.added, d.removed, nodeInfo)
	return w, preempting
}

// released returns the allocations that the dry run's removed pods free
// on node, by the rule kubectl dra explain follows too
// (eviction.ReleasesBy): a claim in flight counts with its pending
// allocation. Once the dry run gives victims back, what they free is a
// part of what they freed before (dryRunReleases), until a pod is removed
// again or added.
func (pl *DRAAllocator) released(d *dryRun, node string, staying []fwk.PodInfo) []*resourceapi.AllocationResult {
	if len(d.added) == 0 && d.releases.cover(d.removed) {
		return d.releases.freedBy(d.removed)
	}
	releases := eviction.ReleasesBy(node, d.removed, func() []*v1.Pod { return podsOf(staying) }, claimLookup{pl})
	if len(d.added) == 0 {
		d.releases = newDryRunReleases(d.removed, releases)
	}
	out := make([]*resourceapi.AllocationResult, 0, len(releases))
	for _, r := range releases {
		out = append(out, r.Allocation)
	}
	return out
}

// podsOf returns the pods of infos, in order.
func podsOf(infos []fwk.PodInfo) []*v1.Pod {
	pods := make([]*v1.Pod, 0, len(infos))
	for _, pi := range infos {
		pods = append(pods, pi.GetPod())
	}
	return pods
}

// nominatedDevices returns what the pods added to the node take there,
// higher priorities first, for pods whose claims are not allocated yet (a
// preemptor waiting for its victims' devices; allocated claims are in
// alloc's State already): the devices alloc would give them on the node,
// or, where they do not fit yet, those they will get once the pods leaving
// the node are gone (onceReleased: the pods a dry run removed are not
// leaving). An added pod that fits neither way is preempting: its victims
// are not terminating yet, its preemption (asynchronous in kube-scheduler)
// still under way, and which devices it will get is not known; the first
// such pod is returned, and the caller keeps other pods off the node
// meanwhile, so that no second preemptor counts on the same victims.
func (pl *DRAAllocator) nominatedDevices(ctx context.Context, alloc *allocator.Allocator, added, removed map[types.UID]*v1.Pod, nodeInfo fwk.NodeInfo) (out []*resourceapi.AllocationResult, preempting *v1.Pod) {
	if len(added) == 0 {
		return nil, nil
	}
	pods := slices.SortedFunc(maps.Values(added), func(a, b *v1.Pod) int {
		if c := cmp.Compare(corev1helpers.PodPriority(b), corev1helpers.PodPriority(a)); c != 0 {
			return c
		}
		return cmp.Compare(a.UID, b.UID)
	})
	logger := klog.FromContext(ctx)
	node := nodeInfo.Node()
	for at, pod := range pods {
		claims, err := pl.podClaims(pod)
		if err != nil {
			continue
		}
		claims = slices.DeleteFunc(claims, func(c *resourceapi.ResourceClaim) bool { return pl.allocationOf(c) != nil })
		if len(claims) == 0 {
			continue
		}
		results, err := alloc.Allocate(ctx, node, claims)
		if err == nil && len(results) != len(claims) {
			// Its victims' devices are not all released yet: it holds
			// what it will get once they are, free ones included.
			results, err = pl.onceReleased(alloc, nodeInfo, removed, out).Allocate(ctx, node, claims)
		}
		if err != nil || len(results) != len(claims) {
			logger.V(5).Info("Nominated pod's claims do not fit on its node yet", "pod", klog.KObj(pod), "node", klog.KObj(node), "err", err)
			if preempting == nil {
				preempting = pod
			}
			continue
		}
		taken := make([]*resourceapi.AllocationResult, len(results))
		for i := range results {
			taken[i] = &results[i]
		}
		out = append(out, taken...)
		if at < len(pods)-1 {
			// What the pods after it take comes after what it takes.
			alloc = alloc.WhatIf(allocator.WhatIf{Take: taken})
		}
	}
	return out, preempting
}

// onceReleased returns alloc over the node as it will be once the claims
// of pods leaving it (terminating, or gone already) are released: the
// node's own devices hold only the claims of the pods staying — on the
// node and not terminating, or removed by a dry run, which does not make
// them leave — and taken, what nominated pods of higher priority take.
func (pl *DRAAllocator) onceReleased(alloc *allocator.Allocator, nodeInfo fwk.NodeInfo, removed map[types.UID]*v1.Pod, taken []*resourceapi.AllocationResult) *allocator.Allocator {
	node := nodeInfo.Node().Name
	staying := make([]*v1.Pod, 0, len(nodeInfo.GetPods())+len(removed))
	for _, pi := range nodeInfo.GetPods() {
		staying = append(staying, pi.GetPod())
	}
	for _, pod := range removed {
		if pod.Spec.NodeName == node {
			staying = append(staying, pod)
		}
	}
	staying = slices.DeleteFunc(staying, func(p *v1.Pod) bool { return p.DeletionTimestamp != nil })
	return alloc.WhatIf(allocator.WhatIf{Vacate: node, Take: append(slices.Clone(taken), pl.allocationsOf(staying)...)})
}

// preemptionMayHelp reports whether the claims would fit on the node had
// every pod of lower priority than pod left it, beside nominated: the
// devices the nominated pods Filter added to the node take there (the
// dry run's change, which removed no pod; nil: none). Filter then answers
// Unschedulable, so that DefaultPreemption tries the node, instead of
// UnschedulableAndUnresolvable. It is optimistic where it is cheap to be:
// the node's own devices hold only the claims of the pods that stay (of at
// least the pod's priority, not terminating) and of the nominated pods, so
// a claim no staying pod uses counts as free even where a dry run would
// not free it (a PodGroup's); DefaultPreemption's dry run then finds no
// victims there.
func (pl *DRAAllocator) preemptionMayHelp(ctx context.Context, s *stateData, pod *v1.Pod, nodeInfo fwk.NodeInfo, claims []*resourceapi.ResourceClaim, nominated []*resourceapi.AllocationResult) bool {
	if !pl.preemptionEnabled() || pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == v1.PreemptNever {
		return false
	}
	priority := corev1helpers.PodPriority(pod)
	var staying []*v1.Pod
	leaving := false
	for _, pi := range nodeInfo.GetPods() {
		p := pi.GetPod()
		if corev1helpers.PodPriority(p) < priority || p.DeletionTimestamp != nil {
			leaving = leaving || hasClaims(p)
			continue
		}
		staying = append(staying, p)
	}
	if !leaving {
		// No claims could be freed: the answer stands.
		return false
	}
	take := append(slices.Clone(nominated), pl.allocationsOf(staying)...)
	fits, err := s.preemptionMemo.vacated(s.alloc).WhatIf(allocator.WhatIf{Take: take}).Fits(ctx, nodeInfo.Node(), claims)
	return err == nil && fits
}
