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
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// A pod group whose victims are gone, but whose victims' claims are not
// released yet, keeps its nominations instead of preempting again
// (releasing.go has the single pod's rule). Its cycle often ends before
// most of its pods are tried: once a pod fails and minCount is out of
// reach, GangScheduling's PlacementFeasible stops the cycle. A pod the
// cycle did not try gets a probe instead (releaseProbe), so that the
// group's answer does not depend on where the cycle stopped.
//
//   - Where the plugin's PodGroupPostFilter runs first (the shipped
//     order), it keeps the nominations (awaitGroupRelease): DefaultPreemption
//     does not run.
//   - Where DefaultPreemption's runs first, its re-run of the group is
//     recognized as in gangpreemption.go, and the plugin turns every pod
//     of it down at once while the group waits (groupAwaitsRelease): the
//     re-run finds no room, in no domain, at the cost of one PreFilter per
//     domain instead of a whole re-run, and the plugin's PodGroupPostFilter,
//     next, keeps the nominations.

// awaitGroupRelease is awaitRelease for a pod group whose cycle found no
// placement: when every unscheduled pod of it that has claims waits on its
// nominated node for released devices and the others are nominated, the
// pods keep their nominations (Success, DefaultPreemption's own answer
// while victims terminate). nil when some pod does not wait.
func (pl *DRAAllocator) awaitGroupRelease(ctx context.Context, group *groupState, info fwk.PodGroupInfo) (*fwk.PodGroupPostFilterResult, *fwk.Status) {
	if group == nil {
		return nil, nil
	}
	nominating := pl.groupNominations(ctx, group.pods, info.GetUnscheduledPods())
	if nominating == nil {
		return nil, nil
	}
	metrics.PreemptionReleaseWaits.Inc()
	klog.FromContext(ctx).V(4).Info("Pod group keeps its nominations: the devices of preempted pods are being released on its nominated nodes",
		"podGroup", klog.KRef(info.GetNamespace(), info.GetName()), "pods", len(nominating))
	return &fwk.PodGroupPostFilterResult{NominatingInfos: nominating},
		fwk.NewStatus(fwk.Success, "waiting for the devices of preempted pods on the group's nominated nodes to be released")
}

// groupAwaitsRelease says why a pod group preemption's re-run of group
// finds no room: its unscheduled pods wait for the devices being released
// on their nominated nodes; "" when they do not. It is asked once per
// re-run, before any pod of it is placed.
func (pl *DRAAllocator) groupAwaitsRelease(ctx context.Context, group types.NamespacedName) string {
	states, err := pl.handle.PodGroupManager().PodGroupStates().Get(group.Namespace, group.Name)
	if err != nil {
		return ""
	}
	unscheduled := slices.SortedFunc(maps.Values(states.UnscheduledPods()), func(a, b *v1.Pod) int { return cmp.Compare(a.Name, b.Name) })
	if pl.groupNominations(ctx, nil, unscheduled) == nil {
		return ""
	}
	return fmt.Sprintf("pod group %s waits for the devices of preempted pods on its nominated nodes to be released", group)
}

// groupNominations returns the nominations the unscheduled pods of a group
// keep while they wait for released devices: every pod with claims would
// fit on its nominated node once the claims being released there are
// (awaitRelease, over its state in tried, else a probe), every other pod
// is nominated, and claims are being released on the node of at least
// one of them. nil otherwise.
func (pl *DRAAllocator) groupNominations(ctx context.Context, tried map[types.NamespacedName]*stateData, unscheduled []*v1.Pod) map[types.NamespacedName]*fwk.NominatingInfo {
	if len(unscheduled) == 0 {
		return nil
	}
	nominating := make(map[types.NamespacedName]*fwk.NominatingInfo, len(unscheduled))
	waits := false
	releasing := map[string]bool{} // by node, asked once per node
	for _, pod := range unscheduled {
		key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
		s := tried[key]
		if s == nil {
			if pl.nominatedNode(pod) == "" {
				// Not nominated: it waits for nothing, probed or not.
				return nil
			}
			s = pl.releaseProbe(ctx, pod)
		}
		node := ""
		switch {
		case s == nil:
			return nil
		case s.empty():
			node = pod.Status.NominatedNodeName
		default:
			node = pl.awaitRelease(ctx, s, pod, nil)
			if node != "" {
				if _, asked := releasing[node]; !asked {
					releasing[node] = pl.releasingOn(node)
				}
				waits = waits || releasing[node]
			}
		}
		if node == "" {
			return nil
		}
		nominating[key] = &fwk.NominatingInfo{NominatedNodeName: node, NominatingMode: fwk.ModeOverride}
	}
	if !waits {
		return nil
	}
	return nominating
}

// releasingOn reports whether claims are being released on the node. A
// group waits only for those: awaitRelease, asked without Filter's
// statuses, also says "waits" where the pod's devices fit now, and a pod
// that failed on its nominated node for another reason (cpu, say) would
// then keep its group's nominations for ever. false where the claims
// cannot be read: DefaultPreemption then runs.
func (pl *DRAAllocator) releasingOn(name string) bool {
	nodeInfo, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(name)
	if err != nil || nodeInfo.Node() == nil {
		return false
	}
	release, err := pl.beingReleased(nodeInfo.Node())
	return err == nil && len(release) > 0
}

// releaseProbe returns the state awaitRelease needs for a pod of a group
// that its cycle did not try: its claims, and those to allocate over the
// plugin's allocator as it is now. It leaves out what only PreFilter
// works out (device constraints across claims, DRA-backed extended
// resources, node resources), so such a pod may be said to wait where it
// would not fit; the wait then ends with the release, and the group's
// next attempt preempts if it must. nil when the pod's claims cannot be
// read or the allocator cannot be synced.
func (pl *DRAAllocator) releaseProbe(ctx context.Context, pod *v1.Pod) *stateData {
	claims, err := pl.podClaims(pod)
	if err != nil {
		return nil
	}
	s := &stateData{results: map[string]foundDevices{}, claims: make([]podClaim, len(claims))}
	for i, claim := range claims {
		s.claims[i] = podClaim{claim: claim, consumer: podConsumer(pod)}
		if alloc := pl.allocationOf(claim); alloc != nil {
			if s.claims[i].availableOn, err = availableOn(alloc); err != nil {
				return nil
			}
			continue
		}
		s.claims[i].toAllocate = true
		s.toAllocateClaims = append(s.toAllocateClaims, claim)
	}
	if len(s.toAllocateClaims) == 0 {
		return s
	}
	alloc, err := pl.syncedAllocator(ctx)
	if err != nil {
		return nil
	}
	s.unrestricted, s.alloc = alloc, alloc
	return s
}
