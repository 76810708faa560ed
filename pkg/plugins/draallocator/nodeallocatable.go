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
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
)

// Node-allocatable resources (DRANodeAllocatableResources), as the in-tree
// plugin does them: devices may be node cpu, memory or hugepages
// (mapping) or cost some besides (overhead). Filter adds what the pod's
// devices take on the node to the pod's own requests and checks that
// against the node's free resources; PreBind records it in the pod's
// status (nodeAllocatableResourceClaimStatuses), which kubelet and the
// scheduler's accounting read; Unreserve clears it. A claim whose
// devices are mapped is never shared between pods. The ledger (ledger.go)
// covers what kube-scheduler's assume does only for the in-tree plugin.

// nodeAllocatableState is a pod's node-allocatable accounting for one
// scheduling cycle; nil when the gate is off or no device declares node
// resources.
type nodeAllocatableState struct {
	// slices are the ResourceSlices as PreFilter listed them, indexed by
	// node.
	slices *nodeallocatable.Slices
	// podClaims maps the pod's names for its claims to the claims' UIDs.
	podClaims map[string]types.UID
	// demand sums the pod's requests once for every node's check.
	demand *nodeallocatable.Demander
}

// prepareNodeAllocatable fills s.na in PreFilter, once the pod's claims,
// their allocations and the shared pending ones are known.
func (pl *DRAAllocator) prepareNodeAllocatable(s *stateData, pod *v1.Pod, entries []*v1.PodResourceClaim, group *groupState) error {
	// The informer's copies: device taint rules do not touch the field.
	slices, err := pl.feed.slices.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list resource slices: %w", err)
	}
	if !declaresNodeResources(slices) {
		return nil
	}
	na := &nodeAllocatableState{
		slices:    nodeallocatable.IndexSlices(slices),
		podClaims: make(map[string]types.UID, len(entries)),
		demand:    nodeallocatable.NewDemander(pod, pl.nodeAllocatableFeatures()),
	}
	for i, entry := range entries {
		na.podClaims[entry.Name] = s.claims[i].claim.UID
	}
	// Which devices are mapped does not depend on the node.
	anywhere := na.slices.On(nil)
	for i := range s.claims {
		c := &s.claims[i]
		alloc := c.claim.Status.Allocation
		if alloc == nil {
			alloc = c.allocation // a shared pending allocation
		}
		if nodeallocatable.HasMapping(alloc, anywhere) && heldByOthers(pod, c.claim, group, pl.gates.EnableDRAWorkloadResourceClaims) {
			c.shareDenied = fwk.NewStatus(fwk.UnschedulableAndUnresolvable, nodeallocatable.SharingRefused(c.claim.Name))
		}
	}
	s.na = na
	return nil
}

// declaresNodeResources reports whether a device of the slices names node
// resources.
func declaresNodeResources(slices []*resourceapi.ResourceSlice) bool {
	for _, slice := range slices {
		for i := range slice.Spec.Devices {
			if len(slice.Spec.Devices[i].NodeAllocatableResources) > 0 {
				return true
			}
		}
	}
	return false
}

// heldByOthers reports a claim reserved for a consumer other than the pod
// (its PodGroup counts as the pod with DRAWorkloadResourceClaims), or
// sharing a pending allocation with another pod of the pod-group cycle.
func heldByOthers(pod *v1.Pod, claim *resourceapi.ResourceClaim, group *groupState, workloadClaims bool) bool {
	if len(claim.Status.ReservedFor) > 0 && !resourceclaim.IsReservedForPod(pod, claim, workloadClaims) {
		return true
	}
	if group == nil {
		return false
	}
	for uid := range group.pending[claim.UID] {
		if uid != pod.UID {
			return true
		}
	}
	return false
}

// filterNodeAllocatable checks on a node that passed the device checks
// that the pod's requests with what its devices take there fit the node's
// free resources, less uncounted (what assumed pods' devices take: the
// ledger), and keeps the pod's statuses for that node.
func (pl *DRAAllocator) filterNodeAllocatable(ctx context.Context, s *stateData, pod *v1.Pod, nodeInfo fwk.NodeInfo, uncounted nodeallocatable.Amounts, start time.Time) *fwk.Status {
	logger := klog.FromContext(ctx)
	node := nodeInfo.Node()
	allocs := make([]*resourceapi.AllocationResult, len(s.claims))
	for i, c := range s.claims {
		if allocs[i] = c.claim.Status.Allocation; allocs[i] == nil {
			allocs[i] = c.allocation // shared pending, or nil
		}
	}
	if len(s.toAllocateClaims) > 0 {
		// The devices Reserve will take: the first the search finds,
		// within what is left of Filter's time budget.
		var left time.Duration
		if timeout := pl.filterTimeout(); timeout > 0 {
			left = max(timeout-time.Since(start), time.Nanosecond)
		}
		found, err := pl.nodeResults(ctx, s, pod, nodeInfo, left)
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return statusError(logger, fmt.Errorf("node %s: timed out trying to allocate devices", node.Name), "pod", klog.KObj(pod), "node", klog.KObj(node))
		case ctx.Err() != nil:
			// The scheduler found enough nodes and stopped the others'
			// Filter: not this pod's failure.
			return nodeUnresolvable(logger, fmt.Sprintf("asked by caller to stop allocating devices: %v", context.Cause(ctx)), pod, node)
		case err != nil:
			return statusError(logger, err, "pod", klog.KObj(pod), "node", klog.KObj(node))
		}
		for i, r := range found.claims {
			if r != nil {
				allocs[i] = r
			}
		}
	}
	devices := s.na.slices.On(node)
	var claims []nodeallocatable.Claim
	for i, c := range s.claims {
		claim := c.claim
		if nodeallocatable.DeclaresNodeResources(allocs[i], devices) {
			claims = append(claims, nodeallocatable.Claim{
				Ref:        v1.ObjectReference{Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID},
				Allocation: allocs[i],
			})
		}
	}
	if len(claims) == 0 {
		return nil
	}
	statuses, err := nodeallocatable.Statuses(pod, claims, s.na.podClaims, devices)
	if err != nil {
		// In-tree's message: the claim, device and driver.
		return statusError(logger, err, "pod", klog.KObj(pod), "node", klog.KObj(node))
	}
	demand, err := s.na.demand.Demand(statuses)
	var budget *nodeallocatable.BudgetError
	switch {
	case errors.As(err, &budget):
		return nodeUnresolvable(logger, budget.Error(), pod, node)
	case err != nil:
		return statusError(logger, err)
	}
	if st := shortfall(nodeallocatable.AmountsOf(demand), nodeInfo, uncounted); st != nil {
		pl.shortOfNodeResources.add(pod.UID)
		return st
	}
	s.mu.Lock()
	if s.nodeStatuses == nil {
		s.nodeStatuses = map[string][]v1.NodeAllocatableResourceClaimStatus{}
	}
	s.nodeStatuses[node.Name] = statuses
	s.mu.Unlock()
	return nil
}

// fitsBesideUncounted checks the pod's own requests (as NodeResourcesFit
// computes them) against the node's free resources less uncounted, what
// assumed pods' devices take there and the node's accounting misses (the
// ledger's uncounted).
// NodeResourcesFit has checked them without that part.
func (s *stateData) fitsBesideUncounted(nodeInfo fwk.NodeInfo, uncounted nodeallocatable.Amounts) *fwk.Status {
	if uncounted.IsZero() {
		return nil
	}
	return shortfall(s.ownRequest, nodeInfo, uncounted)
}

// shortfall rejects a node whose free resources, less uncounted, cannot
// hold demand, with NodeResourcesFit's reasons: Unschedulable, or
// UnschedulableAndUnresolvable when the node could not hold it even
// empty.
func shortfall(demand nodeallocatable.Amounts, nodeInfo fwk.NodeInfo, uncounted nodeallocatable.Amounts) *fwk.Status {
	requested := amounts(nodeInfo.GetRequested()).Plus(uncounted)
	reasons, unresolvable := nodeallocatable.Shortfall(demand, amounts(nodeInfo.GetAllocatable()), requested)
	switch {
	case len(reasons) == 0:
		return nil
	case unresolvable:
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, reasons...)
	}
	return fwk.NewStatus(fwk.Unschedulable, reasons...)
}

// amounts converts the scheduler's resource totals.
func amounts(r fwk.Resource) nodeallocatable.Amounts {
	a := nodeallocatable.Amounts{MilliCPU: r.GetMilliCPU(), Memory: r.GetMemory(), EphemeralStorage: r.GetEphemeralStorage()}
	for name, v := range r.GetScalarResources() {
		if strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) {
			if a.HugePages == nil {
				a.HugePages = map[v1.ResourceName]int64{}
			}
			a.HugePages[name] = v
		}
	}
	return a
}

func (pl *DRAAllocator) nodeAllocatableFeatures() nodeallocatable.Features {
	return nodeallocatable.Features{PodLevelResources: pl.gates.EnablePodLevelResources}
}

// statusesFor returns the pod's statuses Filter computed for the node.
func (s *stateData) statusesFor(node string) []v1.NodeAllocatableResourceClaimStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nodeStatuses[node]
}

// recordUncounted adds the pod, just assumed on the node, to the ledger
// with what its statuses there add to its requests.
func (pl *DRAAllocator) recordUncounted(s *stateData, pod *v1.Pod, node string) {
	statuses := s.statusesFor(node)
	if len(statuses) == 0 {
		return
	}
	delta := nodeallocatable.Delta(pod, statuses, pl.nodeAllocatableFeatures())
	if delta.IsZero() {
		return
	}
	pl.ledger.add(ledgerEntry{pod: pod.UID, resourceVersion: pod.ResourceVersion, node: node, delta: delta})
}

// patchNodeAllocatableStatus records the pod's statuses for the node in
// its status, as the in-tree plugin's PreBind does (the same strategic
// merge patch). The pod we are given never carries them: kube-scheduler's
// assume copies only the in-tree plugin's.
func (pl *DRAAllocator) patchNodeAllocatableStatus(ctx context.Context, s *stateData, pod *v1.Pod, node string) *fwk.Status {
	statuses := s.statusesFor(node)
	if len(statuses) == 0 {
		return nil
	}
	logger := klog.FromContext(ctx)
	base := pod.Status.DeepCopy()
	base.NodeAllocatableResourceClaimStatuses = nil
	target := pod.Status.DeepCopy()
	target.NodeAllocatableResourceClaimStatuses = statuses
	s.mu.Lock()
	s.statusPatched = true // even a failed patch may have landed
	s.mu.Unlock()
	if err := schedutil.PatchPodStatus(ctx, pl.client, pod.Name, pod.Namespace, base, target); err != nil {
		return statusError(logger, fmt.Errorf("updating pod %s/%s NodeAllocatableResourceClaimStatuses: %w", pod.Namespace, pod.Name, err))
	}
	logger.V(5).Info("Patched pod status with NodeAllocatableResourceClaimStatuses", "pod", klog.KObj(pod), "node", node)
	return nil
}

// clearNodeAllocatableStatus removes the statuses PreBind wrote (or may
// have written) from the pod, as the in-tree plugin's Unreserve does: an
// explicit empty list in a JSON merge patch, with the pod's UID as a
// precondition. Errors are only logged.
func (pl *DRAAllocator) clearNodeAllocatableStatus(ctx context.Context, s *stateData, pod *v1.Pod) {
	s.mu.Lock()
	patched := s.statusPatched
	s.statusPatched = false
	s.mu.Unlock()
	if !patched {
		return
	}
	logger := klog.FromContext(ctx)
	patch := fmt.Appendf(nil, `{"metadata":{"uid":%q},"status":{"nodeAllocatableResourceClaimStatuses":[]}}`, pod.UID)
	if _, err := pl.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		logger.Error(err, "Failed to clear NodeAllocatableResourceClaimStatuses on Unreserve", "pod", klog.KObj(pod))
		return
	}
	logger.V(5).Info("Cleared NodeAllocatableResourceClaimStatuses", "pod", klog.KObj(pod))
}
