package allocator

import (
	"context"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// call is the state of one Allocate call: the search's mutable state lives
// here, never in the Allocator.
type call struct {
	ctx    context.Context
	a      *Allocator
	node   *v1.Node
	claims []*resourceapi.ResourceClaim
	view   *inventory.NodeView

	claimStates []*claimState

	// allocating maps devices taken by this call (dedicated) to the
	// indexes of the claims taking them.
	allocating map[int][]int
	// shares tracks in-progress shares of multi-allocatable devices.
	shares map[int]*shareState
	// consumed counts counters taken by this call, per pool.
	consumed map[inventory.PoolID]counterSets
	// sels memoizes selection per request for this call.
	sels map[*request]*selection
}

func newCall(ctx context.Context, a *Allocator, node *v1.Node, claims []*resourceapi.ResourceClaim, view *inventory.NodeView) *call {
	return &call{
		ctx: ctx, a: a, node: node, claims: claims, view: view,
		allocating: map[int][]int{},
		shares:     map[int]*shareState{},
		consumed:   map[inventory.PoolID]counterSets{},
	}
}

// cand returns the node's i-th candidate device.
func (c *call) cand(i int) candidate {
	return candidate{dev: c.view.Devices[i], pool: c.view.Pools[c.view.PoolOf[i]]}
}
