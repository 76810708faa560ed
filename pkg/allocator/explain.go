package allocator

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// ExplanationKind classifies why claims do not fit on a node, from the
// most to the least specific finding.
type ExplanationKind int

const (
	// CannotAllocate: every request has enough free matching devices on
	// its own, yet no combination satisfies them all (counters, capacity,
	// taints, or several requests competing for the same devices).
	CannotAllocate ExplanationKind = iota
	// NoMatchingDevice: no device on the node matches the request's class
	// and selectors.
	NoMatchingDevice
	// AllMatchingAllocated: devices match, but all of them are allocated.
	AllMatchingAllocated
	// NotEnoughFree: some matching devices are free, fewer than requested.
	NotEnoughFree
	// ConstraintUnsatisfiable: enough devices are free for each request,
	// but none of their combinations meets the claim's constraints.
	ConstraintUnsatisfiable
)

// Explanation says why claims do not fit on a node. Its String is the same
// for every node with the same finding, so that a scheduler can count
// nodes by reason.
type Explanation struct {
	Kind ExplanationKind
	// Request is the request (the base name of a firstAvailable request)
	// the finding is about; Class and Selectors describe what it asks for.
	Request   string
	Class     string
	Selectors []string
	// Constraint names the attribute constraint, as "matchAttribute <name>"
	// or "distinctAttribute <name>".
	Constraint string
	// UnusablePools lists the node's pools the allocator had to skip, with
	// why ("<driver>/<pool> is incomplete" while a driver publishes its
	// slices, or invalid with the reason): their devices were not
	// considered, which may be the real cause.
	UnusablePools []string
}

func (e Explanation) String() string {
	s := e.finding()
	if len(e.UnusablePools) > 0 {
		s += "; unusable pools: " + strings.Join(e.UnusablePools, ", ")
	}
	return s
}

func (e Explanation) finding() string {
	switch e.Kind {
	case NoMatchingDevice:
		what := "class " + e.Class
		if len(e.Selectors) > 0 {
			what += ", selector " + strings.Join(e.Selectors, " && ")
		}
		return fmt.Sprintf("no device matches request %q (%s)", e.Request, what)
	case AllMatchingAllocated:
		return fmt.Sprintf("all devices matching request %q are allocated", e.Request)
	case NotEnoughFree:
		return fmt.Sprintf("not enough free devices for request %q (class %s)", e.Request, e.Class)
	case ConstraintUnsatisfiable:
		return e.Constraint + " unsatisfiable"
	default:
		return "cannot allocate all claims"
	}
}

// Explain tells why Allocate found no solution for claims on node. It is
// meant for the failure path only: it may allocate, and it assumes that
// Allocate returned neither results nor an error for the same inputs.
func (a *Allocator) Explain(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim) Explanation {
	view, err := a.inv.View(node, inventory.Options{PartitionableDevices: a.features.PartitionableDevices})
	if err != nil {
		return Explanation{}
	}
	p := a.prepared.Load()
	if !p.sameClaims(claims) {
		p = a.prepareClaims(claims)
	}
	c := a.newCall(ctx, node, claims, view)
	defer a.done(c)
	if err := c.prepare(p); err != nil {
		return Explanation{}
	}
	e := c.explain(ctx, node, view)
	for _, pool := range view.Pools {
		switch {
		case pool.Invalid:
			e.UnusablePools = append(e.UnusablePools, fmt.Sprintf("%s is invalid (%s)", pool.ID, pool.InvalidReason))
		case pool.Incomplete:
			e.UnusablePools = append(e.UnusablePools, fmt.Sprintf("%s is incomplete (not all of its slices are published)", pool.ID))
		}
	}
	return e
}

// explain finds the most specific reason, request by request, then claim
// constraints.
func (c *call) explain(ctx context.Context, node *v1.Node, view *inventory.NodeView) Explanation {
	a := c.a
	for _, cs := range c.claimStates {
		for _, alts := range cs.requests {
			// A firstAvailable request is blocked only if every alternative
			// is; report the alternative that came closest.
			best := Explanation{Kind: -1}
			for _, r := range alts {
				e := c.explainRequest(r)
				if best.Kind < 0 || rank(e.Kind) < rank(best.Kind) {
					best = e
				}
			}
			if best.Kind != CannotAllocate {
				return best
			}
		}
	}
	for _, cs := range c.claimStates {
		if e, ok := a.blameConstraint(ctx, node, view, cs.obj); ok {
			return e
		}
	}
	return Explanation{}
}

// blameConstraint finds the constraint that keeps claim, on its own, from
// fitting on the node: the claim must not fit as it is, must fit without
// constraints, and must not fit with that one constraint alone.
func (a *Allocator) blameConstraint(ctx context.Context, node *v1.Node, view *inventory.NodeView, claim *resourceapi.ResourceClaim) (Explanation, bool) {
	constraints := claim.Spec.Devices.Constraints
	if len(constraints) == 0 || a.fits(ctx, node, view, claim) {
		return Explanation{}, false
	}
	with := func(cons []resourceapi.DeviceConstraint) *resourceapi.ResourceClaim {
		c := claim.DeepCopy()
		c.Spec.Devices.Constraints = cons
		return c
	}
	if !a.fits(ctx, node, view, with(nil)) {
		return Explanation{}, false
	}
	var names []string
	for _, con := range constraints {
		name := constraintName(con)
		if !a.fits(ctx, node, view, with([]resourceapi.DeviceConstraint{con})) {
			return Explanation{Kind: ConstraintUnsatisfiable, Constraint: name}, true
		}
		names = append(names, name)
	}
	// Each holds alone; only together do they fail.
	return Explanation{Kind: ConstraintUnsatisfiable, Constraint: strings.Join(names, " with ")}, true
}

func constraintName(con resourceapi.DeviceConstraint) string {
	switch {
	case con.MatchAttribute != nil:
		return "matchAttribute " + string(*con.MatchAttribute)
	case con.DistinctAttribute != nil:
		return "distinctAttribute " + string(*con.DistinctAttribute)
	default:
		return "constraint"
	}
}

// fits runs the search for one claim on the node, without touching the
// allocator's per-pod cache (other nodes may be using it).
func (a *Allocator) fits(ctx context.Context, node *v1.Node, view *inventory.NodeView, claim *resourceapi.ResourceClaim) bool {
	claims := []*resourceapi.ResourceClaim{claim}
	c := a.newCall(ctx, node, claims, view)
	defer a.done(c)
	if err := c.prepare(a.prepareClaims(claims)); err != nil {
		return false
	}
	done, err := c.step(position{}, false, 0)
	return err == nil && done
}

// rank orders kinds from "closest to fitting" to "furthest".
func rank(k ExplanationKind) int {
	switch k {
	case CannotAllocate:
		return 0
	case NotEnoughFree:
		return 1
	case AllMatchingAllocated:
		return 2
	default:
		return 3
	}
}

// explainRequest counts the request's matching and free devices on the
// call's node.
func (c *call) explainRequest(r *request) Explanation {
	e := Explanation{Request: r.base, Class: r.class.Name}
	for _, sel := range r.selectors {
		e.Selectors = append(e.Selectors, sel.CEL.Expression)
	}
	if len(e.Selectors) == 0 {
		for _, sel := range r.class.Spec.Selectors {
			if sel.CEL != nil {
				e.Selectors = append(e.Selectors, sel.CEL.Expression)
			}
		}
	}
	sel := c.selection(r)
	matching, free := 0, 0
	for i, ok := sel.match.NextSet(0); ok; i, ok = sel.match.NextSet(i + 1) {
		matching++
		d := c.view.Devices[i]
		if r.adminAccess || d.Spec.AllowMultipleAllocations != nil && *d.Spec.AllowMultipleAllocations || !c.a.state.isAllocated(d.Index) {
			free++
		}
	}
	need := r.numDevices
	if r.mode == resourceapi.DeviceAllocationModeAll {
		need = matching
	}
	switch {
	case matching == 0:
		e.Kind = NoMatchingDevice
	case free == 0:
		e.Kind = AllMatchingAllocated
	case free < need:
		e.Kind = NotEnoughFree
	default:
		e.Kind = CannotAllocate
	}
	return e
}

// Occupancy reports, over the pools of node that results allocate from,
// how many devices there are and how many would be in use once results
// are applied. Scoring strategies use it to pack or to spread.
func (a *Allocator) Occupancy(node *v1.Node, results []resourceapi.AllocationResult) (used, total int) {
	view, err := a.inv.View(node, inventory.Options{PartitionableDevices: a.features.PartitionableDevices})
	if err != nil {
		return 0, 0
	}
	pools := map[inventory.PoolID]bool{}
	taken := map[inventory.DeviceKey]bool{}
	for _, res := range results {
		for _, d := range res.Devices.Results {
			pools[inventory.PoolID{Driver: d.Driver, Pool: d.Pool}] = true
			taken[inventory.DeviceKey{Driver: d.Driver, Pool: d.Pool, Device: d.Device}] = true
		}
	}
	for i, d := range view.Devices {
		if !pools[view.Pools[view.PoolOf[i]].ID] {
			continue
		}
		total++
		if a.state.isAllocated(d.Index) || taken[d.Key()] {
			used++
		}
	}
	return used, total
}
