package allocator

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// call is the state of one Allocate call: the search's mutable state lives
// here, never in the Allocator.
type call struct {
	ctx    context.Context
	a      *Allocator
	node   *v1.Node
	claims []*resourceapi.ResourceClaim
	pools  []*inventory.Pool
	// cands are the node's candidate devices in search order.
	cands        []candidate
	invalidPools bool

	claimStates []*claimState

	// allocating maps devices taken by this call (dedicated) to the
	// indexes of the claims taking them.
	allocating map[int][]int
	// shares tracks in-progress shares of multi-allocatable devices.
	shares map[int]*shareState
	// consumed counts counters taken by this call, per pool.
	consumed map[inventory.PoolID]counterSets
}

func newCall(ctx context.Context, a *Allocator, node *v1.Node, claims []*resourceapi.ResourceClaim, pools []*inventory.Pool) *call {
	c := &call{
		ctx: ctx, a: a, node: node, claims: claims, pools: pools,
		allocating: map[int][]int{},
		shares:     map[int]*shareState{},
		consumed:   map[inventory.PoolID]counterSets{},
	}
	for _, p := range pools {
		if p.Invalid {
			c.invalidPools = true
		}
		if p.Incomplete || p.Invalid {
			continue
		}
		p.Devices(func(d *inventory.Device) bool {
			c.cands = append(c.cands, candidate{dev: d, pool: p})
			return true
		})
	}
	return c
}

// selectable reports whether device d may serve request r: binding
// conditions supported, class selectors, request selectors, and the
// device's own node selection, in that order (§4.2). CEL errors are fatal.
func (c *call) selectable(r *request, d *inventory.Device) (bool, error) {
	if !c.a.features.DeviceBindingAndStatus && len(d.Spec.BindingConditions) > 0 {
		return false, nil
	}
	claim := c.claims[r.claim]
	for i, sel := range r.class.Spec.Selectors {
		ok, err := c.evaluate(sel, d, func(err error, compile bool) error {
			if compile {
				return fmt.Errorf("class %s: selector #%d: CEL compile error: %w", r.class.Name, i, err)
			}
			return fmt.Errorf("class %s: selector #%d on device %s: CEL runtime error: %w", r.class.Name, i, d.ID(), err)
		})
		if err != nil || !ok {
			return false, err
		}
	}
	for i, sel := range r.selectors {
		ok, err := c.evaluate(sel, d, func(err error, compile bool) error {
			if compile {
				return fmt.Errorf("claim %s: selector #%d: CEL compile error: %w", klog.KObj(claim), i, err)
			}
			return fmt.Errorf("claim %s: selector #%d on device %s: CEL runtime error: %w", klog.KObj(claim), i, d.ID(), err)
		})
		if err != nil || !ok {
			return false, err
		}
	}
	if d.Slice.PerDeviceNodeSelection() {
		return d.DeviceMatchesNode(c.node)
	}
	return true, nil
}

func (c *call) evaluate(sel resourceapi.DeviceSelector, d *inventory.Device, wrap func(err error, compile bool) error) (bool, error) {
	if sel.CEL == nil {
		// Only class selectors can get here; requests were validated.
		return false, wrap(fmt.Errorf("CEL expression empty (unsupported selector type?)"), true)
	}
	e := c.a.matcher.expr(sel.CEL.Expression)
	if e.compileErr != nil {
		return false, wrap(e.compileErr, true)
	}
	ok, err := c.a.matcher.match(c.ctx, e, d)
	if err != nil {
		return false, wrap(err, false)
	}
	return ok, nil
}
