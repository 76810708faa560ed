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
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
)

// A preemptor's victims give their devices back in two steps: the pods
// terminate and are deleted, then the resourceclaim controller removes
// them from their claims' reservations and deallocates the claims. While
// victims terminate, DefaultPreemption does not preempt again; once they
// are gone it would, although their claims are only a moment from being
// released. The plugin keeps the pod's nomination instead while the
// devices it needs on its nominated node are being released: no second
// round of evictions, whichever of the two PostFilters runs first.
//
//   - Filter, where it turns the pod's nominated node down, decides
//     whether the pod waits there (releaseWait, once per cycle).
//   - A preemption dry run on any other node then finds no room while the
//     pod waits (waitingElsewhere): DefaultPreemption, even where it runs
//     before the plugin's PostFilter (a profile that enables DRAAllocator
//     alone), finds no candidate and evicts nobody.
//   - PostFilter keeps the nomination while the pod waits
//     (awaitingReleaseStatus); where it runs first, DefaultPreemption does
//     not run at all.
//   - A pod group keeps the nominations of its pods while each waits on
//     its nominated node, whichever PodGroupPostFilter runs first
//     (releasinggroup.go). Upstream's own check for a group only looks for
//     terminating victims; once they are gone, DefaultPreemption would run
//     the group again in every domain (a group that failed an attempt is
//     tried in all, placementlimit.go), each at the cost of a whole
//     re-run, to find the room its nominations hold already.

// releaseWait is a cycle's answer to whether the pod waits on its
// nominated node for the devices being released there, decided once: by
// Filter where it turns the nominated node down, otherwise by PostFilter.
// It lives in stateData, which every copy of the cycle state shares; dry
// runs read it in parallel.
type releaseWait struct {
	// nominatedOnce finds nominated, the pod's nominated node as Filter
	// sees it ("" for none), at the first node Filter turns down.
	nominatedOnce sync.Once
	nominated     string

	once sync.Once
	// node is the node the pod waits on, "" if it does not wait; written
	// before decided.
	node    string
	decided atomic.Bool
}

// decide returns the answer, found by wait on the first call.
func (r *releaseWait) decide(wait func() string) string {
	r.once.Do(func() {
		r.node = wait()
		r.decided.Store(true)
	})
	return r.node
}

// waitingOn returns the node the pod waits on; "" if it does not wait or
// nothing decided yet.
func (r *releaseWait) waitingOn() string {
	if !r.decided.Load() {
		return ""
	}
	return r.node
}

// judgeReleaseWait decides, where Filter turned node down outside a
// preemption dry run, whether the pod waits there: only if node is the
// pod's nominated node.
func (pl *DRAAllocator) judgeReleaseWait(ctx context.Context, s *stateData, pod *v1.Pod, node string) {
	if s.alloc == nil || !pl.preemptionEnabled() {
		return
	}
	s.release.nominatedOnce.Do(func() { s.release.nominated = pl.nominatedNode(pod) })
	if s.release.nominated != node {
		return
	}
	s.release.decide(func() string { return pl.releaseWaitOn(ctx, s, pod, node) })
}

// waitingElsewhere is a preemption dry run's answer on node while the pod
// waits for released devices on another node: victims are chosen nowhere
// else meanwhile. nil where the pod does not wait, or waits on node.
func waitingElsewhere(ctx context.Context, s *stateData, pod *v1.Pod, node *v1.Node) *fwk.Status {
	on := s.release.waitingOn()
	if on == "" || on == node.Name {
		return nil
	}
	return nodeUnresolvable(klog.FromContext(ctx), fmt.Sprintf("waiting for the devices of preempted pods on node %s to be released", on), pod, node)
}

// awaitRelease returns the pod's nominated node when the plugin rejected
// it there (statuses: Filter's per node; nil: unknown) and the pod would
// fit once the claims being released on it are (releaseWaitOn); "" when
// it would not or the pod is not nominated. Where Filter decided already,
// its answer stands.
func (pl *DRAAllocator) awaitRelease(ctx context.Context, s *stateData, pod *v1.Pod, statuses fwk.NodeToStatusReader) string {
	if s.alloc == nil || !pl.preemptionEnabled() {
		return ""
	}
	name := pl.nominatedNode(pod)
	if name == "" {
		return ""
	}
	if statuses != nil && !rejectedBy(statuses.Get(name), Name) {
		// Another plugin turned the node down: not a matter of devices.
		klog.FromContext(ctx).V(4).Info("Not waiting for released devices: another plugin rejected the nominated node",
			"pod", klog.KObj(pod), "node", klog.KRef("", name), "status", statuses.Get(name))
		return ""
	}
	return s.release.decide(func() string { return pl.releaseWaitOn(ctx, s, pod, name) })
}

// releaseWaitOn returns name, the pod's nominated node, if the pod would
// fit there once the claims being released on it are (beingReleased);
// "" if it would not.
//
// It asks the scheduler's DRA manager which devices are allocated, not the
// plugin's own tracker: the two are fed by separate handlers of one
// informer, and the scheduler may retry the pod on a claim's
// deallocation before the tracker has seen it. Filter then still finds the
// device taken; waiting here, instead of preempting again, lets the
// requeuer retry the pod once the tracker catches up. Where the claims
// cannot be read (the manager stays busy), the nomination is kept too.
func (pl *DRAAllocator) releaseWaitOn(ctx context.Context, s *stateData, pod *v1.Pod, name string) string {
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(pod), "node", klog.KRef("", name))
	nodeInfo, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(name)
	if err != nil || nodeInfo.Node() == nil {
		return ""
	}
	for _, c := range s.claims {
		if sel := c.availableOn; sel != nil && !sel.Match(nodeInfo.Node()) {
			// An allocated claim of the pod is elsewhere.
			return ""
		}
	}
	claims, st := s.nodeClaims(pod, nodeInfo)
	if st != nil || len(claims) == 0 {
		return ""
	}
	// Where the claims cannot be read, the nomination is kept: evicting
	// more pods on a guess would lose work; waiting costs one more
	// attempt, which the claims' next change brings.
	release, err := pl.beingReleased(nodeInfo.Node())
	if err != nil {
		logger.Error(err, "Cannot tell which claims are being released; keeping the nomination")
		return name
	}
	allocated, err := pl.allocatedState(ctx)
	if err != nil {
		logger.Error(err, "Cannot tell which devices are allocated; keeping the nomination")
		return name
	}
	w := allocator.WhatIf{Node: name, Release: release}
	released := s.alloc.WithState(allocator.NewState(pl.feed.inv, *allocated)).WhatIf(w)
	// Other pods nominated there, of at least the pod's priority, come
	// first: if they leave too little, waiting would be for ever, and
	// DefaultPreemption must find more. A pod of the same priority
	// nominated there after this one does not: its own dry runs counted
	// this one's devices as taken when it chose its victims, so both fit
	// once every victim is gone, and letting it take first would send this
	// one to evict more pods elsewhere.
	others := pl.nominatedBeside(pod, name)
	for uid, other := range others {
		if corev1helpers.PodPriority(other) == corev1helpers.PodPriority(pod) && pl.nominations.nominatedBefore(pod.UID, uid, name) {
			delete(others, uid)
		}
	}
	if len(others) > 0 {
		take, _ := pl.nominatedDevices(ctx, released, others, nil, nodeInfo)
		released = released.WhatIf(allocator.WhatIf{Take: take})
	}
	fits, err := released.Fits(ctx, nodeInfo.Node(), claims)
	if err != nil || !fits {
		logger.V(4).Info("Not waiting for released devices: the pod would not fit on its nominated node once they are",
			"releasing", len(release), "nominatedBeside", klog.KObjSlice(slices.Collect(maps.Values(others))), "err", err)
		return ""
	}
	return name
}

// nominatedNode returns the node the scheduler nominated the pod to, ""
// if none. The pod's status names it only once kube-scheduler's write of
// the nomination is done and its watch event has arrived; until then it
// is only in the scheduler's memory (the scheduling queue's nominator),
// while the victims' deletions may already have queued the pod again
// (SchedulerAsyncAPICalls, or a slow API server, widen that window). The
// nominator answers by node only: for a pod whose status names no node
// and for which a preemption dry run found room (preemptors, so that
// other pods cost nothing), every node is asked.
func (pl *DRAAllocator) nominatedNode(pod *v1.Pod) string {
	if name := pod.Status.NominatedNodeName; name != "" || !pl.preemptors.has(pod.UID) {
		return name
	}
	nodes, err := pl.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return ""
	}
	for _, ni := range nodes {
		name := ni.Node().Name
		for _, pi := range pl.handle.NominatedPodsForNode(name) {
			if pi.GetPod().UID == pod.UID {
				return name
			}
		}
	}
	return ""
}

// gatherTimeout bounds how long allocatedState asks the DRA manager
// again.
const gatherTimeout = time.Second

// allocatedState returns the devices the scheduler's DRA manager has
// allocated or in flight. The manager refuses to answer while its claims
// change under it ("conflicting concurrent modification"), which under
// load is common; it is asked again, as the in-tree plugin's PreFilter
// does, for up to gatherTimeout.
func (pl *DRAAllocator) allocatedState(ctx context.Context) (*structured.AllocatedState, error) {
	var state *structured.AllocatedState
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Microsecond, gatherTimeout, true, func(context.Context) (bool, error) {
		state, last = pl.draManager.ResourceClaims().GatherAllocatedState()
		return last == nil && state != nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("gather the allocated devices: %w (last answer: %v)", err, last)
	}
	return state, nil
}

// beingReleased returns the allocations on node of claims on their way
// out (releasing).
func (pl *DRAAllocator) beingReleased(node *v1.Node) ([]*resourceapi.AllocationResult, error) {
	claims, err := pl.draManager.ResourceClaims().List()
	if err != nil {
		return nil, fmt.Errorf("list claims: %w", err)
	}
	var out []*resourceapi.AllocationResult
	for _, claim := range claims {
		alloc := claim.Status.Allocation
		if alloc == nil {
			continue
		}
		if sel, err := availableOn(alloc); err != nil || sel != nil && !sel.Match(node) {
			continue
		}
		if pl.releasing(claim) {
			out = append(out, alloc)
		}
	}
	return out, nil
}

// releasing reports whether an allocated claim is on its way to being
// deallocated: every consumer is a pod that is gone, replaced (another
// UID) or terminating, which the resourceclaim controller removes,
// deallocating the claim with the last one; or, reserved for nobody, the
// claim is being deleted (the controller deallocates it) or was generated
// for such a pod (the garbage collector deletes it). A claim reserved for
// nobody otherwise stays allocated: nobody releases it.
func (pl *DRAAllocator) releasing(claim *resourceapi.ResourceClaim) bool {
	if len(claim.Status.ReservedFor) > 0 {
		for _, c := range claim.Status.ReservedFor {
			if c.APIGroup != "" || c.Resource != "pods" || !pl.podLeaving(claim.Namespace, c.Name, c.UID) {
				return false
			}
		}
		return true
	}
	if claim.DeletionTimestamp != nil {
		return true
	}
	owner := metav1.GetControllerOf(claim)
	return owner != nil && owner.APIVersion == "v1" && owner.Kind == "Pod" && pl.podLeaving(claim.Namespace, owner.Name, owner.UID)
}

// podLeaving reports whether the pod namespace/name of uid is gone,
// replaced or terminating.
func (pl *DRAAllocator) podLeaving(namespace, name string, uid types.UID) bool {
	pod, err := pl.podLister.Pods(namespace).Get(name)
	return err != nil || pod.UID != uid || pod.DeletionTimestamp != nil
}

// awaitingReleaseStatus is PostFilter's answer while the pod waits for
// released devices: Success ends the PostFilter phase before
// DefaultPreemption, and the result keeps the nomination.
func awaitingReleaseStatus(node string) (*fwk.PostFilterResult, *fwk.Status) {
	return &fwk.PostFilterResult{NominatingInfo: &fwk.NominatingInfo{NominatedNodeName: node, NominatingMode: fwk.ModeOverride}},
		fwk.NewStatus(fwk.Success, fmt.Sprintf("waiting for the devices of preempted pods on node %s to be released", node))
}

// nominatedBeside returns the other pods nominated to node with at least
// the pod's priority, as kube-scheduler adds them before Filter.
func (pl *DRAAllocator) nominatedBeside(pod *v1.Pod, node string) map[types.UID]*v1.Pod {
	priority := corev1helpers.PodPriority(pod)
	out := map[types.UID]*v1.Pod{}
	for _, pi := range pl.handle.NominatedPodsForNode(node) {
		if p := pi.GetPod(); p.UID != pod.UID && corev1helpers.PodPriority(p) >= priority {
			out[p.UID] = p
		}
	}
	return out
}
