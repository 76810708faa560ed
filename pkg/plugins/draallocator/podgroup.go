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
	"errors"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	fwk "k8s.io/kube-scheduler/framework"
)

// Pod groups (GenericWorkload, DRAWorkloadResourceClaims). With
// GenericWorkload kube-scheduler schedules the pods of a PodGroup together
// in one pod-group cycle: each pod runs PreFilter, Filter, Score and
// Reserve in turn, every Reserve is reverted when the cycle ends, and on
// success each pod is reserved again and bound. Within one such cycle pods
// share a claim's pending allocation: the first pod that needs the claim
// allocates it, the later ones reuse what it reserved instead of being
// turned away because the claim "is being allocated". With
// DRAWorkloadResourceClaims a claim the PodGroup declares is reserved for
// the PodGroup instead of for each pod. Both as the in-tree plugin does.

// groupStateKey is where a pod-group cycle's groupState lives in the
// PodGroupCycleState; stateData has stateKey in each pod's CycleState.
const groupStateKey fwk.StateKey = Name + "/group"

// groupState is one pod-group cycle's, kept in the framework's
// PodGroupCycleState. Only the cycle's synchronous phases see it —
// PreFilter, Reserve, Unreserve and PodGroupPostFilter, never Filter or
// the binding phase — so it needs no lock.
type groupState struct {
	// pending maps a claim to the pods of this cycle that share its
	// pending allocation. The DRA manager counts the sharers across
	// cycles; this set only says which claims this cycle may reuse.
	pending map[types.UID]sets.Set[types.UID]
	// pods holds every pod's state, for PodGroupPostFilter.
	pods map[types.NamespacedName]*stateData
}

// Clone returns the same state: the cycle's pods share it.
func (g *groupState) Clone() fwk.StateData { return g }

// readGroupState returns the pod-group cycle's state; nil without one
// (GenericWorkload off, a pod of no group, or the binding phase).
func readGroupState(gcs fwk.PodGroupCycleState) (*groupState, error) {
	if gcs == nil {
		return nil, nil
	}
	return stateAs[*groupState](gcs.Read(groupStateKey))
}

// getGroupState returns the state of the pod-group cycle the pod's cycle
// belongs to, nil if none.
func getGroupState(cs fwk.CycleState) (*groupState, error) {
	return readGroupState(cs.GetPodGroupSchedulingCycle())
}

// joinGroupState records the pod's state in its pod-group cycle, creating
// the cycle's state for its first pod. It returns nil outside a pod-group
// cycle.
func joinGroupState(cs fwk.CycleState, pod *v1.Pod, s *stateData) (*groupState, error) {
	gcs := cs.GetPodGroupSchedulingCycle()
	if gcs == nil {
		return nil, nil
	}
	g, err := readGroupState(gcs)
	if errors.Is(err, fwk.ErrNotFound) {
		g = &groupState{pending: map[types.UID]sets.Set[types.UID]{}, pods: map[types.NamespacedName]*stateData{}}
		gcs.Write(groupStateKey, g)
	} else if err != nil {
		return nil, err
	}
	g.pods[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}] = s
	return g, nil
}

// pendingFor returns the pending allocation of a claim that an earlier pod
// of this cycle reserved, nil if there is none to share.
func (g *groupState) pendingFor(claims fwk.ResourceClaimTracker, claim *resourceapi.ResourceClaim) *resourceapi.AllocationResult {
	if g == nil || g.pending[claim.UID] == nil {
		return nil
	}
	return claims.GetPendingAllocation(claim.UID)
}

// share records that the pod shares the claim's pending allocation.
// pendingAllocations returns the pending allocations of the claims the
// cycle's pods reserved and have not released: what the group holds in
// flight now. Sorted by claim, for one answer per state.
func (g *groupState) pendingAllocations(claims fwk.ResourceClaimTracker) []*resourceapi.AllocationResult {
	if g == nil {
		return nil
	}
	var out []*resourceapi.AllocationResult
	for _, uid := range slices.Sorted(maps.Keys(g.pending)) {
		if alloc := claims.GetPendingAllocation(uid); alloc != nil {
			out = append(out, alloc)
		}
	}
	return out
}

func (g *groupState) share(claim types.UID, pod types.UID) {
	if g == nil {
		return
	}
	if g.pending[claim] == nil {
		g.pending[claim] = sets.New[types.UID]()
	}
	g.pending[claim].Insert(pod)
}

// released forgets a claim whose pending allocation no pod holds any more.
func (g *groupState) released(claim types.UID) {
	if g != nil {
		delete(g.pending, claim)
	}
}

// podGroupName returns the namespace and name of the PodGroup the pod's
// scheduling group names; empty for a pod of no PodGroup.
func podGroupName(pod *v1.Pod) types.NamespacedName {
	if pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil {
		return types.NamespacedName{}
	}
	return types.NamespacedName{Namespace: pod.Namespace, Name: *pod.Spec.SchedulingGroup.PodGroupName}
}

// groupName returns the namespace and name of a pod group.
func groupName(group fwk.PodGroupInfo) types.NamespacedName {
	return types.NamespacedName{Namespace: group.GetNamespace(), Name: group.GetName()}
}

// podGroup returns the pod's PodGroup from the scheduling snapshot when
// claims may be reserved for it (DRAWorkloadResourceClaims), else nil.
func (pl *DRAAllocator) podGroup(pod *v1.Pod) (*schedulingapi.PodGroup, error) {
	if !pl.gates.EnableDRAWorkloadResourceClaims || pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil {
		return nil, nil
	}
	return pl.handle.SnapshotSharedLister().PodGroups().Get(pod.Namespace, *pod.Spec.SchedulingGroup.PodGroupName)
}

// consumers returns for each of the pod's claims, given by the pod's
// entries they come from (podClaimsAndEntries), whom PreBind reserves it
// for: the pod, or its PodGroup for a claim the PodGroup declares
// (DRAWorkloadResourceClaims).
func (pl *DRAAllocator) consumers(pod *v1.Pod, entries []*v1.PodResourceClaim) ([]resourceapi.ResourceClaimConsumerReference, error) {
	group, err := pl.podGroup(pod)
	if err != nil {
		return nil, fmt.Errorf("PodGroup of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	out := make([]resourceapi.ResourceClaimConsumerReference, 0, len(entries))
	for _, entry := range entries {
		ref, err := resourceclaim.BindTo(pod, group, entry)
		if err != nil {
			return nil, err
		}
		out = append(out, ref)
	}
	return out, nil
}

// podConsumer is the reservation of a claim for the pod itself.
func podConsumer(pod *v1.Pod) resourceapi.ResourceClaimConsumerReference {
	return resourceapi.ResourceClaimConsumerReference{APIGroup: v1.GroupName, Resource: "pods", Name: pod.Name, UID: pod.UID}
}
