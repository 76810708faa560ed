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

package allocator

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// DeviceCounts sorts the devices of one node that match one request by
// what keeps them from being taken. Each device counts once, under the
// first reason in field order.
type DeviceCounts struct {
	// Matching devices pass the request's class and selectors.
	Matching int
	// Allocated ones are allocated to other claims (never counted for an
	// admin-access request or a device that allows multiple allocations).
	Allocated int
	// NodeOperationsRequired ones come from a slice that skips node
	// operations, which the node does not declare it honours (with the
	// OptionalNodeOperations feature).
	NodeOperationsRequired int
	// Tainted ones have a NoSchedule or NoExecute taint the request does
	// not tolerate (with the DRADeviceTaints feature).
	Tainted int
	// CountersExhausted ones consume more of a shared counter (a GPU's
	// memory, for its partitions) than is left.
	CountersExhausted int
	// CapacityExhausted ones allow multiple allocations but have too
	// little capacity left for what the request consumes.
	CapacityExhausted int
	// Usable is the rest: what the request could take on its own.
	Usable int
}

// RequestReport is what one request (one firstAvailable alternative) of
// one claim finds on one node.
type RequestReport struct {
	// Claim is the claim's index in the claims asked about.
	Claim int
	// Request is the name results carry: "<request>" or
	// "<request>/<subrequest>".
	Request string
	// Class and Selectors describe what it asks for (the class's
	// selectors when the request has none).
	Class     string
	Selectors []string
	// Need is how many devices it takes; for allocationMode All, every
	// matching device.
	Need int
	DeviceCounts
	// UsableDevices are the devices DeviceCounts.Usable counts, in the
	// node's order.
	UsableDevices []structured.DeviceID
}

// Diagnosis is what claims find on one node: the devices Allocate picks
// where they fit, the finding where they do not, and per request what the
// node's devices are doing.
type Diagnosis struct {
	// Results are Allocate's results, one per claim; nil if the claims do
	// not fit.
	Results []resourceapi.AllocationResult
	// Explanation is ExplainBefore's finding when they do not fit.
	Explanation Explanation
	// Requests has every request of every claim, in claim and request
	// order, a firstAvailable request's alternatives in their order.
	Requests []RequestReport
}

// Fits reports whether the claims fit on the node.
func (d Diagnosis) Fits() bool { return d.Results != nil }

// Diagnose tells what Allocate decides for claims on node and why: the
// results, or ExplainBefore's finding, and the device counts of every
// request. It answers exactly as Allocate and ExplainBefore do, without a
// deadline; its error is Allocate's.
func (a *Allocator) Diagnose(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim) (Diagnosis, error) {
	results, err := a.Allocate(ctx, node, claims)
	if err != nil {
		return Diagnosis{}, err
	}
	d := Diagnosis{Results: results}
	if results == nil {
		d.Explanation = a.ExplainBefore(ctx, node, claims, time.Time{})
	}
	d.Requests, err = a.countRequests(ctx, node, claims)
	if err != nil {
		return Diagnosis{}, err
	}
	return d, nil
}

// countRequests reports every request's device counts on node.
func (a *Allocator) countRequests(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim) ([]RequestReport, error) {
	view, err := a.inv.View(node, a.viewOptions())
	if err != nil {
		return nil, fmt.Errorf("gather pool information: %w", err)
	}
	c := a.newCall(ctx, node, claims, view)
	defer a.done(c)
	if err := c.prepare(a.prepareClaims(claims)); err != nil {
		return nil, err
	}
	var out []RequestReport
	for ci, cs := range c.claimStates {
		for _, alts := range cs.requests {
			for _, r := range alts {
				sel := c.selection(r)
				if sel.interrupted {
					return nil, fmt.Errorf("request %s of claim %d: evaluating selectors: %w", r.name(), ci, ctx.Err())
				}
				rep := RequestReport{Claim: ci, Request: r.name(), Class: r.class.Name, Selectors: r.describeSelectors()}
				rep.DeviceCounts, rep.UsableDevices = c.countDevices(r, sel)
				rep.Need = r.numDevices
				if r.mode == resourceapi.DeviceAllocationModeAll {
					rep.Need = rep.Matching
				}
				out = append(out, rep)
			}
		}
	}
	return out, nil
}

// describeSelectors returns the request's CEL selectors, or its class's
// when it has none.
func (r *request) describeSelectors() []string {
	var out []string
	for _, sel := range r.selectors {
		if sel.CEL != nil {
			out = append(out, sel.CEL.Expression)
		}
	}
	if len(out) == 0 {
		for _, sel := range r.class.Spec.Selectors {
			if sel.CEL != nil {
				out = append(out, sel.CEL.Expression)
			}
		}
	}
	return out
}

// countDevices sorts the devices sel matches for r by what keeps them
// from being taken, with the allocated state the allocator started from,
// and lists the usable ones.
func (c *call) countDevices(r *request, sel *selection) (DeviceCounts, []structured.DeviceID) {
	var n DeviceCounts
	var usable []structured.DeviceID
	for i, ok := sel.match.NextSet(0); ok; i, ok = sel.match.NextSet(i + 1) {
		n.Matching++
		switch c.blocker(r, i) {
		case allocatedDevice:
			n.Allocated++
		case nodeOperationsRequired:
			n.NodeOperationsRequired++
		case taintedDevice:
			n.Tainted++
		case countersExhausted:
			n.CountersExhausted++
		case capacityExhausted:
			n.CapacityExhausted++
		default:
			n.Usable++
			d := c.view.Devices[i]
			usable = append(usable, structured.MakeDeviceID(d.Driver, d.Pool, d.Spec.Name))
		}
	}
	return n, usable
}

// deviceBlocker is what keeps a matching device from a request.
type deviceBlocker int

const (
	notBlocked deviceBlocker = iota
	allocatedDevice
	nodeOperationsRequired
	taintedDevice
	countersExhausted
	capacityExhausted
)

// blocker tells what, of the allocated state, taints, counters and
// capacity, keeps the view's device i from request r on its own, checked
// in the search's terms (tryDevice).
func (c *call) blocker(r *request, i int) deviceBlocker {
	d := c.view.Devices[i]
	multi := c.a.features.ConsumableCapacity && ptr.Deref(d.Spec.AllowMultipleAllocations, false)
	if !r.adminAccess && !multi && c.a.state.isAllocated(d.Index) {
		return allocatedDevice
	}
	if c.nodeOperationsBlock(d) {
		return nodeOperationsRequired
	}
	if c.a.features.DeviceTaints && taintPrevents(d.Spec.Taints, r.tolerations) {
		return taintedDevice
	}
	if len(d.Spec.ConsumesCounters) > 0 && !(multi && c.a.state.shared.Has(d.Index)) {
		pc := c.a.available(c.view.Pools[c.view.PoolOf[i]])
		if !c.a.features.PartitionableDevices || pc.blockedKnown && pc.blocked.has(d.Index) {
			return countersExhausted
		}
	}
	if c.a.features.ConsumableCapacity {
		// An error here is the request's own (a consumption the device's
		// policy cannot express); Allocate reports it, counting does not.
		if fits, err := c.capacityFits(r, d, c.a.state.aggregated[d.Index], nil); err == nil && !fits {
			return capacityExhausted
		}
	}
	return notBlocked
}
