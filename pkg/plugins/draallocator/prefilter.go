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
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
)

// preEnqueue: see PreEnqueue.
func (pl *DRAAllocator) preEnqueue(ctx context.Context, pod *v1.Pod) *fwk.Status {
	if len(pod.Spec.ResourceClaims) == 0 {
		return nil
	}
	if _, err := pl.podClaims(pod); err != nil {
		return statusUnresolvable(klog.FromContext(ctx), err.Error())
	}
	return nil
}

// preFilter resolves the pod's claims, rejects pods whose claims are in use
// elsewhere or ask for missing classes, and builds the allocator for the
// claims that need devices.
func (pl *DRAAllocator) preFilter(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) (_ *fwk.PreFilterResult, status *fwk.Status) {
	start := time.Now()
	defer func() { observe(pl.latency.preFilter, start, status) }()
	logger := klog.FromContext(ctx)

	s := &stateData{results: map[string]foundDevices{}}
	cs.Write(stateKey, s)
	if pl.gates.EnableInPlacePodVerticalScalingSchedulerPreemption && resourcehelper.IsPodResizeDeferred(pod) {
		// A bound pod whose resize waits: kube-scheduler looks for room
		// for the resize (preemption), and its devices stay as they are.
		return nil, fwk.NewStatus(fwk.Skip)
	}
	// Before anything may fail: PodGroupPostFilter looks at every pod.
	group, err := joinGroupState(cs, pod, s)
	if err != nil {
		return nil, statusError(logger, err)
	}
	ext, err := pl.newExtendedState(pod)
	if err != nil {
		return nil, statusError(logger, err)
	}
	s.ext = ext
	if pl.gates.EnableDRANodeAllocatableResources {
		pl.viewLedger(cs, s, pod)
	}
	if len(pod.Spec.ResourceClaims) == 0 && s.ext == nil {
		return nil, s.skip()
	}
	claims, entries, err := pl.podClaimsAndEntries(pod)
	if err != nil {
		return nil, statusUnresolvable(logger, err.Error())
	}
	if len(claims) == 0 && s.ext == nil {
		return nil, s.skip()
	}
	var consumers []resourceapi.ResourceClaimConsumerReference // the pod for every claim
	if pl.gates.EnableDRAWorkloadResourceClaims {
		if consumers, err = pl.consumers(pod, entries); err != nil {
			return nil, statusUnresolvable(logger, err.Error())
		}
	}
	pl.requeue.seen(pod)
	s.claims = make([]podClaim, len(claims))
	for i, claim := range claims {
		s.claims[i] = podClaim{claim: claim, consumer: podConsumer(pod)}
		if consumers != nil {
			s.claims[i].consumer = consumers[i]
		}
	}

	for i, claim := range claims {
		c := &s.claims[i]
		if claim.Status.Allocation != nil {
			if !resourceclaim.CanBeReserved(claim) && !resourceclaim.IsReservedForPod(pod, claim, pl.gates.EnableDRAWorkloadResourceClaims) {
				return nil, statusUnresolvable(logger, "resourceclaim in use", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(claim))
			}
			if c.availableOn, err = availableOn(claim.Status.Allocation); err != nil {
				return nil, statusError(logger, fmt.Errorf("claim %s: node selector of the allocation: %w", klog.KObj(claim), err))
			}
			continue
		}
		// Allocated for an earlier pod of this pod-group cycle? Share it.
		if pending := group.pendingFor(pl.draManager.ResourceClaims(), claim); pending != nil {
			if c.availableOn, err = availableOn(pending); err != nil {
				return nil, statusError(logger, fmt.Errorf("claim %s: node selector of the pending allocation: %w", klog.KObj(claim), err))
			}
			c.allocation, c.reused = pending, true
			logger.V(5).Info("Sharing the pending allocation of the pod group", "pod", klog.KObj(pod), "resourceclaim", klog.KObj(claim))
			continue
		}
		// Allocation in flight for another pod? Wait for it to land or be
		// abandoned, as the in-tree plugin does.
		if pl.draManager.ResourceClaims().GetPendingAllocation(claim.UID) != nil {
			return nil, statusUnresolvable(logger, fmt.Sprintf("resource claim %s is in the process of being allocated", klog.KObj(claim)))
		}
		if st := pl.checkClasses(logger, claim); st != nil {
			return nil, st
		}
		c.toAllocate = true
		s.toAllocateClaims = append(s.toAllocateClaims, claim)
	}
	if pl.gates.EnableDRANodeAllocatableResources {
		if err := pl.prepareNodeAllocatable(s, pod, entries, group); err != nil {
			return nil, statusError(logger, err)
		}
	}
	constraints, st := pl.podDeviceConstraints(ctx, pod, claims, entries)
	if st != nil {
		return nil, st
	}
	groupConstraints, groupFixed, st := pl.groupDeviceConstraints(ctx, pod, claims, entries)
	if st != nil {
		return nil, st
	}
	if len(constraints)+len(groupConstraints) > 0 {
		s.cross = &crossConstraints{own: constraints, group: groupConstraints, fixed: append(s.fixedChoices(), groupFixed...)}
	}
	if st := pl.checkFixedChoices(ctx, pod, s); st != nil {
		return nil, st
	}
	if len(s.toAllocateClaims) == 0 && s.ext == nil {
		// Nothing to allocate: Reserve may still share pending
		// allocations, a dry run's in a pod group preemption's re-run
		// (found by the pod that allocated them).
		if cs.IsPodGroupSchedulingCycle() {
			s.gangPreemption = foundGangPreemption(cs.GetPodGroupSchedulingCycle())
		}
		return nil, nil
	}

	if err := pl.waitForClaims(ctx); err != nil {
		return nil, statusError(logger, err)
	}
	if err := pl.feed.sync(ctx); err != nil {
		return nil, statusError(logger, err)
	}
	pl.feed.reportMatcher()
	s.gangPreemption = pl.gangPreemptionOf(ctx, cs.GetPodGroupSchedulingCycle(), podGroupName(pod))
	if why := awaitingInRerun(cs.GetPodGroupSchedulingCycle()); why != "" {
		return nil, fwk.NewStatus(fwk.Unschedulable, why)
	}
	s.unrestricted = pl.newAllocator()
	if s.gangPreemption != nil {
		s.unrestricted = s.gangPreemption.alloc(s.unrestricted, group.pendingAllocations(pl.draManager.ResourceClaims()), pl.feed.inv)
		s.fit = pl.fitInRerun
	}
	s.alloc = pl.keptToAttributeDomain(cs, s.unrestricted)
	if s.cross != nil {
		s.unconstrained = s.alloc
		s.alloc = s.alloc.WithCrossClaimConstraints(s.cross.all(), s.cross.fixed)
	}
	if st := pl.joinGangPlan(ctx, cs, pod, s); st != nil {
		return nil, st
	}
	if loggerV := logger.V(5); loggerV.Enabled() {
		loggerV.Info("Preparing allocation", "pod", klog.KObj(pod), "resourceclaims", klog.KObjSlice(s.toAllocateClaims))
	}
	return nil, nil
}

// syncedAllocator syncs the inventory and returns newAllocator's.
func (pl *DRAAllocator) syncedAllocator(ctx context.Context) (*allocator.Allocator, error) {
	if err := pl.feed.sync(ctx); err != nil {
		return nil, err
	}
	return pl.newAllocator(), nil
}

// newAllocator returns an allocator over the inventory and the devices
// allocated and in flight now; the inventory must be synced.
func (pl *DRAAllocator) newAllocator() *allocator.Allocator {
	return allocator.New(pl.features, pl.tracker.State(pl.feed.inv),
		pl.draManager.DeviceClasses(), pl.feed.inv, pl.feed.matcher, pl.policy).WithPlacements(pl.keptPlacements())
}

// keptPlacements returns the placements memo allocators share across
// cycles (allocator.Placements): each preemptor's dry runs release the
// same victims' allocations as the last one's did. It starts afresh when
// the inventory changes, and when it holds more allocations than the
// inventory has devices (plus some), which only allocations gone since
// can explain: it keeps every allocation it saw alive.
func (pl *DRAAllocator) keptPlacements() *allocator.Placements {
	inv := pl.feed.inv
	p := pl.placements.Load()
	if p == nil || !p.For(inv) || p.Len() > 2*inv.NumDevices()+keptPlacementsSlack {
		p = allocator.NewPlacements(inv)
		pl.placements.Store(p)
	}
	return p
}

// keptPlacementsSlack is how many allocations beyond twice the inventory's
// device count keptPlacements lets its memo hold.
const keptPlacementsSlack = 1024

// viewLedger gives the cycle the ledger's entries and, when there are
// any, the pod's own requests to check against them.
func (pl *DRAAllocator) viewLedger(cs fwk.CycleState, s *stateData, pod *v1.Pod) {
	// Recorded again if this attempt, too, finds it short.
	pl.shortOfNodeResources.take(pod.UID)
	if !cs.IsPodGroupSchedulingCycle() {
		pl.ledger.sweep(pl.handle.SnapshotSharedLister().NodeInfos())
	}
	s.ledger = pl.ledger.view()
	if s.ledger == nil {
		return
	}
	// A pod being scheduled has no statuses: this is its spec's requests.
	// NodeResourcesFit ignores a resource asked for with zero.
	own, _ := nodeallocatable.Demand(pod, nil, pl.nodeAllocatableFeatures())
	s.ownRequest = nodeallocatable.AmountsOf(own)
	maps.DeleteFunc(s.ownRequest.HugePages, func(_ v1.ResourceName, v int64) bool { return v == 0 })
}

// skip is PreFilter's answer for a pod the plugin has no claims to handle
// for: Skip, unless assumed pods' devices take node resources the node
// accounting misses; then Filter checks the pod's requests against them.
func (s *stateData) skip() *fwk.Status {
	if s.ledger != nil {
		return nil
	}
	return fwk.NewStatus(fwk.Skip)
}

// checkClasses checks that every class a claim's requests name exists. A
// missing class keeps the pod unschedulable until a DeviceClass event.
func (pl *DRAAllocator) checkClasses(logger klog.Logger, claim *resourceapi.ResourceClaim) *fwk.Status {
	for _, req := range claim.Spec.Devices.Requests {
		switch {
		case req.Exactly != nil:
			if st := pl.checkClass(logger, claim, req.Exactly.DeviceClassName, req.Name); st != nil {
				return st
			}
		case len(req.FirstAvailable) > 0:
			if !pl.gates.EnableDRAPrioritizedList {
				return statusUnresolvable(logger, fmt.Sprintf("resource claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled", klog.KObj(claim), req.Name))
			}
			for _, sub := range req.FirstAvailable {
				if st := pl.checkClass(logger, claim, sub.DeviceClassName, req.Name+"/"+sub.Name); st != nil {
					return st
				}
			}
		default:
			return statusUnresolvable(logger, fmt.Sprintf("resource claim %s, request %s: unknown request type", klog.KObj(claim), req.Name))
		}
	}
	return nil
}

func (pl *DRAAllocator) checkClass(logger klog.Logger, claim *resourceapi.ResourceClaim, className, request string) *fwk.Status {
	if className == "" {
		return statusError(logger, fmt.Errorf("resource claim %s, request %s: unsupported request type", klog.KObj(claim), request))
	}
	if _, err := pl.draManager.DeviceClasses().Get(className); err != nil {
		if apierrors.IsNotFound(err) {
			return statusUnresolvable(logger, fmt.Sprintf("resource claim %s, request %s: device class %s does not exist", klog.KObj(claim), request, className))
		}
		return statusError(logger, fmt.Errorf("resource claim %s, request %s: get device class %s: %w", klog.KObj(claim), request, className, err))
	}
	return nil
}
