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
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints/crossclaims"
)

// Device constraints across a pod's claims (issue 57): the annotation
// dra-scheduler.io/device-constraints on the pod ties devices of several
// of its claims by an attribute, as a DeviceConstraint ties those of one
// claim (pkg/deviceconstraints reads it). PreFilter reads and checks it,
// names the claims by their ResourceClaims, and gives the constraints to
// the pod's allocator (allocator.WithCrossClaimConstraints), with the
// pod's allocated claims, and those sharing a pending allocation of its
// pod group, as fixed choices. So Filter, Score, Reserve and preemption's
// dry runs, which ask that allocator, all honour them. A value that is
// wrong leaves the pod pending with a message naming the annotation and
// the fault, and a Warning event; nothing else changes. Without the
// annotation nothing changes at all.

// eventInvalidDeviceConstraints is the reason of the Warning event about
// a wrong annotation.
const eventInvalidDeviceConstraints = "InvalidDeviceConstraints"

// crossConstraints are a pod's constraints across claims: its own (the
// pod's annotation) and its group's (the PodGroup's), and the claims they
// take as fixed choices. PreFilter writes them; the plan may set the
// group's chosen devices before the cycle's Filter runs.
type crossConstraints struct {
	own, group []allocator.CrossClaimConstraint
	fixed      []*resourceapi.ResourceClaim
	// described counts the nodes Filter said what came closest on
	// (closestOn).
	described atomic.Int32
}

// all are the constraints the pod's allocator honours.
func (c *crossConstraints) all() []allocator.CrossClaimConstraint {
	return append(slices.Clip(c.own), c.group...)
}

// podDeviceConstraints reads the pod's device constraints and returns them
// as constraints across the claims (the ResourceClaims of entries, in
// order), nil without the annotation; a status for the pod when the
// annotation is wrong. The translation is crossclaims.Of, which kubectl
// dra explain shares.
func (pl *DRAAllocator) podDeviceConstraints(ctx context.Context, pod *v1.Pod, claims []*resourceapi.ResourceClaim, entries []*v1.PodResourceClaim) ([]allocator.CrossClaimConstraint, *fwk.Status) {
	if _, found := pod.Annotations[deviceconstraints.Annotation]; !found {
		return nil, nil // most pods: nothing to name, nothing to allocate
	}
	constraints, err := crossclaims.Of(pod, claims, podClaimNames(entries))
	if err != nil {
		logger := klog.FromContext(ctx)
		pl.handle.EventRecorder().WithLogger(logger).Eventf(pod, nil, v1.EventTypeWarning, eventInvalidDeviceConstraints, "Scheduling", "%s", err.Error())
		return nil, statusUnresolvable(logger, err.Error(), "pod", klog.KObj(pod))
	}
	return constraints, nil
}

// fixedChoices are the pod's claims the cycle does not allocate, each
// with the allocation it has or shares: what constraints across claims
// take as given.
func (s *stateData) fixedChoices() []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	for _, c := range s.claims {
		switch {
		case c.toAllocate:
		case c.claim.Status.Allocation != nil:
			out = append(out, c.claim)
		case c.reused && c.allocation != nil:
			shared := c.claim.DeepCopy()
			shared.Status.Allocation = c.allocation
			out = append(out, shared)
		}
	}
	return out
}

// checkFixedChoices fails a pod whose allocated claims, and its group's
// (crossConstraints.fixed), break its constraints across claims by
// themselves, on every node (crossclaims.CheckFixed, which kubectl dra
// explain shares). It syncs the inventory, where the devices are looked
// up.
func (pl *DRAAllocator) checkFixedChoices(ctx context.Context, pod *v1.Pod, s *stateData) *fwk.Status {
	if s.cross == nil || len(s.cross.fixed) == 0 {
		return nil
	}
	constraints, fixed := s.cross.all(), s.cross.fixed
	logger := klog.FromContext(ctx)
	if err := pl.feed.sync(ctx); err != nil {
		return statusError(logger, err)
	}
	broken, err := crossclaims.CheckFixed(ctx, pl.newAllocator(), constraints, fixed)
	switch {
	case err != nil:
		return statusError(logger, err)
	case broken != "":
		return statusUnresolvable(logger, broken, "pod", klog.KObj(pod))
	}
	return nil
}

// isSchedulableAfterDeviceConstraintsChange queues a pod whose device
// constraints annotation changed: set, fixed, removed.
func isSchedulableAfterDeviceConstraintsChange(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	before, ok := oldObj.(*v1.Pod)
	after, ok2 := newObj.(*v1.Pod)
	if !ok || !ok2 {
		return fwk.Queue, fmt.Errorf("unexpected objects of types %T and %T for a pod update", oldObj, newObj)
	}
	old, had := before.Annotations[deviceconstraints.Annotation]
	now, has := after.Annotations[deviceconstraints.Annotation]
	if had == has && old == now {
		return fwk.QueueSkip, nil
	}
	logger.V(5).Info("The pod's device constraints changed", "pod", klog.KObj(pod))
	return fwk.Queue, nil
}

// deviceConstraintsUnmet reports, for a node where the pod's claims do
// not fit, whether they would without its device constraints: then those
// alone keep the pod off the node, and reason says so.
func (pl *DRAAllocator) deviceConstraintsUnmet(ctx context.Context, s *stateData, node *v1.Node, claims []*resourceapi.ResourceClaim, change allocator.WhatIf, timeout time.Duration) (reason string, unmet bool) {
	if s.unconstrained == nil {
		return "", false
	}
	if fits, err := s.unconstrained.FitsWithinWhatIf(ctx, node, claims, change, timeout); err != nil || !fits {
		return "", false
	}
	return "the pod's device constraints (annotation " + deviceconstraints.Annotation + ") are not met on node " + node.Name + ": its claims fit there without them", true
}

// maxClosestNodes is how many nodes of a cycle say what came closest.
const maxClosestNodes = 8

// closestOn is what came closest on a node where only the pod's device
// constraints fail (crossclaims.Closest, which kubectl dra explain
// shares), as "; closest: ..." for the node's reason; "" past the first
// maxClosestNodes nodes of the cycle, which are enough to read.
func (pl *DRAAllocator) closestOn(ctx context.Context, s *stateData, pod *v1.Pod, node *v1.Node, claims []*resourceapi.ResourceClaim, change allocator.WhatIf) string {
	if s.cross == nil || s.cross.described.Add(1) > maxClosestNodes {
		return ""
	}
	podClaims := make(map[string]string, len(s.claims))
	for i, c := range s.claims {
		if i < len(pod.Spec.ResourceClaims) {
			podClaims[c.claim.Name] = pod.Spec.ResourceClaims[i].Name
		}
	}
	closest, err := crossclaims.Closest(ctx, s.unconstrained.WhatIf(change), pl.feed.inv, node, claims, s.cross.all(), s.cross.fixed, podClaims)
	if err != nil || closest == "" {
		return ""
	}
	return "; closest: " + closest
}

// membersCrossConstraints are the constraints across claims of the
// pod's group's joint plan: the group's (s.cross), and the device
// constraints of every pod of the group (pods), each over its own claims,
// so that the plan puts no member where its own Filter would refuse it.
// nil when there are none. A pod whose annotation is wrong adds none: its
// own PreFilter fails it.
func (pl *DRAAllocator) membersCrossConstraints(s *stateData, pods map[types.UID]*v1.Pod) *crossConstraints {
	out := &crossConstraints{}
	seen := sets.New[types.UID]()
	if s.cross != nil {
		out.group = s.cross.group
		for _, c := range s.cross.fixed {
			seen.Insert(c.UID)
			out.fixed = append(out.fixed, c)
		}
	}
	for _, uid := range slices.Sorted(maps.Keys(pods)) {
		p := pods[uid]
		if _, found := p.Annotations[deviceconstraints.Annotation]; !found {
			continue
		}
		claims, entries, err := pl.podClaimsAndEntries(p)
		if err != nil {
			continue
		}
		own, err := crossclaims.Of(p, claims, podClaimNames(entries))
		if err != nil {
			continue
		}
		out.own = append(out.own, own...)
		for _, c := range claims {
			if c.Status.Allocation != nil && !seen.Has(c.UID) {
				seen.Insert(c.UID)
				out.fixed = append(out.fixed, c)
			}
		}
	}
	if len(out.own)+len(out.group) == 0 {
		return nil
	}
	return out
}

// planAllocator is the pod's allocator for its group's joint plan with
// the members' constraints (membersCrossConstraints), the group's as
// given: s.alloc without any.
func (s *stateData) planAllocator(members *crossConstraints, group []allocator.CrossClaimConstraint) *allocator.Allocator {
	if members == nil {
		return s.alloc
	}
	base := s.alloc
	if s.unconstrained != nil {
		base = s.unconstrained
	}
	return base.WithCrossClaimConstraints(append(slices.Clip(members.own), group...), members.fixed)
}
