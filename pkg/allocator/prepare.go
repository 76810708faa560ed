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
	"fmt"
	"math"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// request is one request, or one firstAvailable subrequest, of a claim,
// validated and resolved (§4.1).
type request struct {
	claim int
	// base is the request's name; sub the subrequest's ("" if none).
	base, sub string
	// hasSubs is set for subrequests of a firstAvailable request.
	hasSubs bool

	class     *resourceapi.DeviceClass
	selectors []resourceapi.DeviceSelector
	// classExprs and exprs are the compiled class and request selectors
	// (nil entries for selectors without CEL); chain numbers them in view
	// memos, cached is the matcher's entry for them.
	classExprs, exprs []*exprResults
	chain             int
	cached            *chainEntry
	mode              resourceapi.DeviceAllocationMode
	count             int64
	adminAccess       bool
	tolerations       []resourceapi.DeviceToleration
	capacity          *resourceapi.CapacityRequirements
	// derived are the request's derived attributes, name to expression
	// (DerivedAttributes; derived.go).
	derived map[resourceapi.FullyQualifiedName]string

	// numDevices is how many devices the request takes.
	numDevices int
	// allDevices are the candidates of an All-mode request (§4.5).
	allDevices []candidate
}

// shortName is the name upstream uses in validation errors: the
// subrequest's own name for subrequests.
func (r *request) shortName() string {
	if r.hasSubs {
		return r.sub
	}
	return r.base
}

// name is the name results carry: "<request>" or "<request>/<sub>".
func (r *request) name() string {
	if r.hasSubs {
		return r.base + "/" + r.sub
	}
	return r.base
}

// newConstraint returns a fresh constraint tracker, reusing the claim
// state's storage from earlier calls.
func (cs *claimState) newConstraint(con resourceapi.DeviceConstraint, features structured.Features) constraint {
	if features.ListTypeAttributes {
		// Rare (an alpha feature): not worth slabs.
		if con.MatchAttribute != nil {
			return &matchSetConstraint{compared: compared{requests: con.Requests, name: *con.MatchAttribute}}
		}
		return &distinctSetConstraint{compared: compared{requests: con.Requests, name: *con.DistinctAttribute}}
	}
	if con.MatchAttribute != nil {
		cs.matchSlab = append(cs.matchSlab, matchConstraint{compared: compared{requests: con.Requests, name: *con.MatchAttribute}})
		return &cs.matchSlab[len(cs.matchSlab)-1]
	}
	n := len(cs.distinctSlab)
	if n < cap(cs.distinctSlab) {
		cs.distinctSlab = cs.distinctSlab[:n+1]
		values := cs.distinctSlab[n].values[:0]
		cs.distinctSlab[n] = distinctConstraint{compared: compared{requests: con.Requests, name: *con.DistinctAttribute}, values: values}
	} else {
		cs.distinctSlab = append(cs.distinctSlab, distinctConstraint{compared: compared{requests: con.Requests, name: *con.DistinctAttribute}})
	}
	return &cs.distinctSlab[n]
}

// reset empties a claim state for reuse, keeping its storage.
// The references left in the storage point to long-lived objects (claims,
// devices) and are overwritten by the next use.
// Field by field: reslicing a field in place writes only its length,
// where rebuilding the struct would cost write barriers while the GC marks.
func (cs *claimState) reset() {
	cs.obj = nil
	cs.requests = cs.requests[:0]
	cs.selected = cs.selected[:0]
	cs.constraints = cs.constraints[:0]
	cs.results = cs.results[:0]
	cs.pick = twinPick{}
	cs.matchSlab = cs.matchSlab[:0]
	cs.distinctSlab = cs.distinctSlab[:0]
}

// claimState is a claim being allocated.
type claimState struct {
	obj *resourceapi.ResourceClaim
	// requests[q] has one entry, or one per subrequest.
	requests [][]*request
	// selected[q] is the chosen subrequest of request q.
	selected    []int
	constraints []constraint
	results     []deviceResult
	// pick is where the search of the claim's first request stands
	// (twins.go).
	pick twinPick
	// storage for constraint trackers, reused across calls
	matchSlab    []matchConstraint
	distinctSlab []distinctConstraint
}

// prepared is the node-independent part of validating a set of claims,
// shared by every node the claims are tried on.
type prepared struct {
	claims []*resourceapi.ResourceClaim
	// requests[ci][q][s] as validated; All-mode requests still need their
	// per-node pre-scan.
	requests [][][]*request
	// err is the first validation error, found at claim errClaim; All-mode
	// pre-scans of earlier requests may still fail first on some nodes.
	err      error
	errClaim int
	errReq   int
	// errSub counts the alternatives of request errReq validated before
	// the error; requests[errClaim][errReq] holds them.
	errSub int
	// counts is set when Fits can be answered without a search (count.go).
	counts *countPlan
	// twins marks the claims that are twins of the claim before them
	// (twins.go); nil when none is.
	twins []bool
}

// sameClaims reports whether p was prepared for exactly these claims.
func (p *prepared) sameClaims(claims []*resourceapi.ResourceClaim) bool {
	if p == nil || len(p.claims) != len(claims) {
		return false
	}
	for i := range claims {
		if p.claims[i] != claims[i] {
			return false
		}
	}
	return true
}

// prepareClaims validates claims and requests in order, resolving classes
// and compiling selectors (§4.1) — everything that does not depend on the
// node. It stops at the first error.
func (a *Allocator) prepareClaims(claims []*resourceapi.ResourceClaim) *prepared {
	p := &prepared{claims: claims, errClaim: len(claims)}
	var requests [][]*request
	var alternatives []*request
	fail := func(ci, qi int, err error) *prepared {
		p.err, p.errClaim, p.errReq, p.errSub = err, ci, qi, len(alternatives)
		p.requests = append(p.requests, append(requests, alternatives))
		return p
	}
	for ci, obj := range claims {
		claimRef := klog.KObj(obj)
		requests = nil
		for qi := range obj.Spec.Devices.Requests {
			alternatives = nil
			req := &obj.Spec.Devices.Requests[qi]
			hasSubs := len(req.FirstAvailable) > 0
			if !a.features.PrioritizedList && hasSubs {
				return fail(ci, qi, fmt.Errorf("claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled", claimRef, req.Name))
			}
			if !a.features.ConsumableCapacity {
				if req.Exactly != nil && req.Exactly.Capacity != nil {
					return fail(ci, qi, fmt.Errorf("claim %s, request %s: has capacity requests, but the DRAConsumableCapacity feature is disabled", claimRef, req.Name))
				}
				for _, sub := range req.FirstAvailable {
					if sub.Capacity != nil {
						return fail(ci, qi, fmt.Errorf("claim %s, subrequest %s: has capacity requests, but the DRAConsumableCapacity feature is disabled", claimRef, sub.Name))
					}
				}
			}
			if hasSubs {
				for si := range req.FirstAvailable {
					sub := &req.FirstAvailable[si]
					r := &request{
						claim: ci, base: req.Name, sub: sub.Name, hasSubs: true,
						selectors: sub.Selectors, mode: sub.AllocationMode, count: sub.Count,
						tolerations: sub.Tolerations, capacity: sub.Capacity,
					}
					if err := a.validate(r, obj, requestSource{className: sub.DeviceClassName, derivedAttributes: sub.DerivedAttributes}); err != nil {
						return fail(ci, qi, err)
					}
					alternatives = append(alternatives, r)
				}
			} else {
				exact := req.Exactly
				if exact == nil {
					return fail(ci, qi, fmt.Errorf("claim %s, request %s: neither exactly nor firstAvailable is set (unsupported request type?)", claimRef, req.Name))
				}
				r := &request{
					claim: ci, base: req.Name,
					selectors: exact.Selectors, mode: exact.AllocationMode, count: exact.Count,
					adminAccess: ptr.Deref(exact.AdminAccess, false),
					tolerations: exact.Tolerations, capacity: exact.Capacity,
				}
				if err := a.validate(r, obj, requestSource{className: exact.DeviceClassName, adminAccess: exact.AdminAccess, derivedAttributes: exact.DerivedAttributes}); err != nil {
					return fail(ci, qi, err)
				}
				alternatives = append(alternatives, r)
			}
			// The claim-size check needs All-mode device counts, which are
			// per node: prepare does it per call.
			requests = append(requests, alternatives)
		}
		alternatives = nil
		for i, con := range obj.Spec.Devices.Constraints {
			if con.MatchAttribute == nil && con.DistinctAttribute == nil {
				p.err, p.errClaim, p.errReq = fmt.Errorf("claim %s, constraint #%d: empty constraint (unsupported constraint type?)", claimRef, i), ci, len(requests)
				p.requests = append(p.requests, requests)
				return p
			}
		}
		p.requests = append(p.requests, requests)
	}
	p.counts = a.planCounts(p)
	p.twins = findTwins(claims)
	return p
}

// prepare builds this call's claim states from the prepared claims, running
// the per-node All-mode pre-scans and claim-size checks in upstream's order
// (§4.1, §4.5). Errors are fatal.
func (c *call) prepare(p *prepared) error {
	c.twins = p.twins
	for ci, obj := range c.claims {
		if ci > p.errClaim || ci >= len(p.requests) {
			return p.err
		}
		cs := c.newClaimState(obj)
		minPerClaim := 0
		for qi, alts := range p.requests[ci] {
			if ci == p.errClaim && qi == p.errReq {
				// Earlier alternatives of the failing request are
				// pre-scanned before the error, as upstream.
				for _, r := range alts[:p.errSub] {
					if r.mode == resourceapi.DeviceAllocationModeAll {
						if _, err := c.prescanned(r, obj); err != nil {
							return err
						}
					}
				}
				return p.err
			}
			minPerRequest := math.MaxInt
			// Alternatives are shared with other calls; All-mode ones get a
			// per-node copy, so the list is copied before the first of them.
			own, copied := alts, false
			for si, r := range alts {
				if r.mode == resourceapi.DeviceAllocationModeAll {
					perNode, err := c.prescanned(r, obj)
					if err != nil {
						return err
					}
					if !copied {
						own, copied = slices.Clone(alts), true
					}
					own[si] = perNode
					r = perNode
				}
				minPerRequest = min(minPerRequest, r.numDevices)
			}
			if minPerRequest > resourceapi.AllocationResultsMaxSize-minPerClaim {
				return fmt.Errorf("claim %s, request %s: adding %d devices exceeds the claim limit of %d, with %d already accounted for",
					klog.KObj(obj), alts[0].base, minPerRequest, resourceapi.AllocationResultsMaxSize, minPerClaim)
			}
			minPerClaim += minPerRequest
			cs.requests = append(cs.requests, own)
		}
		if ci == p.errClaim {
			return p.err
		}
		cs.selected = slices.Grow(cs.selected[:0], len(cs.requests))[:len(cs.requests)]
		clear(cs.selected)
		cs.results = slices.Grow(cs.results[:0], minPerClaim)
		for _, con := range obj.Spec.Devices.Constraints {
			cs.constraints = append(cs.constraints, cs.newConstraint(con, c.a.features))
		}
	}
	return c.prepareCross()
}

// prescanned returns a per-node copy of an All-mode request with its
// devices on this node collected.
func (c *call) prescanned(r *request, claim *resourceapi.ResourceClaim) (*request, error) {
	perNode := *r
	perNode.allDevices = nil
	if err := c.prescan(&perNode, claim); err != nil {
		return nil, err
	}
	return &perNode, nil
}

// requestSource is what validate reads of the API request (or
// subrequest) beyond what its request already holds.
type requestSource struct {
	className string
	// adminAccess is the request's field: set at all, it needs the
	// AdminAccess feature, whatever its value (subrequests have none).
	adminAccess *bool
	// derivedAttributes need the DerivedAttributes feature.
	derivedAttributes []resourceapi.DeviceDerivedAttribute
}

// validate checks one request or subrequest and resolves its class,
// selectors and, for ExactCount, its device count (upstream's
// validateDeviceRequest without the All-mode pre-scan).
func (a *Allocator) validate(r *request, claim *resourceapi.ResourceClaim, src requestSource) error {
	claimRef := klog.KObj(claim)
	className := src.className
	if len(src.derivedAttributes) > 0 {
		if !a.features.DerivedAttributes {
			return fmt.Errorf("claim %s, request %s: cannot handle request with derived attributes, the feature is disabled", claimRef, r.shortName())
		}
		r.derived = derivedAttributes(src.derivedAttributes)
	}
	for i, sel := range r.selectors {
		if sel.CEL == nil {
			return fmt.Errorf("claim %s, request %s, selector #%d: CEL expression empty (unsupported selector type?)", claimRef, r.shortName(), i)
		}
	}
	if !a.features.AdminAccess && src.adminAccess != nil {
		return fmt.Errorf("claim %s, request %s: admin access is requested, but the feature is disabled", claimRef, r.shortName())
	}
	if className == "" {
		return fmt.Errorf("claim %s, request %s: missing device class name (unsupported request type?)", claimRef, r.shortName())
	}
	class, err := a.classes.Get(className)
	if err != nil {
		return fmt.Errorf("claim %s, request %s: could not retrieve device class %s: %w", claimRef, r.shortName(), className, err)
	}
	r.class = class
	r.classExprs = a.compile(class.Spec.Selectors)
	r.exprs = a.compile(r.selectors)
	r.cached = a.matcher.chain(a.chainKey(r))
	r.chain = r.cached.id

	switch r.mode {
	case resourceapi.DeviceAllocationModeExactCount:
		if r.count > math.MaxInt {
			return fmt.Errorf("claim %s, request %s: exact count %d is too large", claimRef, r.shortName(), r.count)
		}
		r.numDevices = int(r.count)
	case resourceapi.DeviceAllocationModeAll:
		// Counted per node by prescan.
	default:
		return fmt.Errorf("claim %s, request %s: unsupported count mode %s", claimRef, r.shortName(), r.mode)
	}
	return nil
}

// compile looks up the compiled form of each selector; compile errors
// stay inside and surface when a device reaches the selector, as upstream.
func (a *Allocator) compile(selectors []resourceapi.DeviceSelector) []*exprResults {
	out := make([]*exprResults, len(selectors))
	for i, sel := range selectors {
		if sel.CEL != nil {
			out[i] = a.matcher.expr(sel.CEL.Expression)
		}
	}
	return out
}

// prescan collects an All-mode request's devices on this node (§4.5).
func (c *call) prescan(r *request, claim *resourceapi.ResourceClaim) error {
	claimRef := klog.KObj(claim)
	sel := c.selection(r)
	pos := 0
	for pi, pool := range c.view.Pools {
		if pool.Incomplete {
			return fmt.Errorf("claim %s, request %s: asks for all devices, but resource pool %s is currently being updated", claimRef, r.shortName(), pool.ID)
		}
		if pool.Invalid {
			return fmt.Errorf("claim %s, request %s: asks for all devices, but resource pool %s is currently invalid", claimRef, r.shortName(), pool.ID)
		}
		for ; pos < len(c.view.Devices) && c.view.PoolOf[pos] == pi; pos++ {
			d := c.view.Devices[pos]
			if sel.failed.Has(pos) {
				return sel.errs[pos].wrap(r, claimRef, d)
			}
			if !sel.match.Has(pos) {
				continue
			}
			if c.a.features.ConsumableCapacity {
				fits, err := c.capacityFits(r, d, nil, nil)
				if err != nil {
					return fmt.Errorf("claim %s, request %s: checking capacity for device %s: %w", claimRef, r.shortName(), d.Name(), err)
				}
				if !fits {
					continue
				}
			}
			r.allDevices = append(r.allDevices, candidate{dev: d, pool: pool})
		}
	}
	r.numDevices = len(r.allDevices)
	return nil
}

// candidate is a device of the node in search order, with its pool.
type candidate struct {
	dev  *inventory.Device
	pool *inventory.Pool
}
