package allocator

import (
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Twin claims. A gang's pods take their claims from one template, and a
// gang's joint check (PlanGang, the plugin's Filter beside siblings) asks
// for many identical claims in one call. The depth-first search then
// visits every ordering of the same devices among them: on a node of 4
// GPUs in dynamic MIG mode, 8 claims that prefer a whole GPU and accept a
// half took 65,000 steps to find that only halves fit, 9 took 830,000 to
// find that nothing does.
//
// A claim is the twin of the claim just before it in the call when both
// have the same spec and that spec is one request of one device (with or
// without firstAvailable alternatives), without constraints, admin access
// or capacity. The search lets a twin pick only at or after its
// predecessor's pick, in the order the search walks: (alternative,
// candidate position). This changes no answer and no result: the search
// returns the first feasible assignment in that order, read claim by
// claim, and swapping the picks of two twins keeps an assignment feasible,
// so the first feasible assignment has non-decreasing picks across twins.
// The argument needs the walk to be the same for every twin: FirstFit
// walks the candidates in upstream's order, other policies in an order
// computed once per call and selector chain (policy.go), so both do.
// Skipping cannot hide an error either: the predecessor walked every
// candidate the twin skips (the alternatives before its pick whole, its own
// alternative up to its pick) with no more devices in use than the twin
// has, and an error there (a selector that failed on a device) would have
// ended the search at the predecessor.

// pick is where a claim's search stands: the alternative of its one
// request and the position of the candidate taken.
type pick struct {
	sub, pos int
}

// findTwins marks each claim that is the twin of the claim before it.
func findTwins(claims []*resourceapi.ResourceClaim) []bool {
	var twins []bool
	for ci := 1; ci < len(claims); ci++ {
		if !oneDeviceClaim(claims[ci]) || !equality.Semantic.DeepEqual(claims[ci].Spec.Devices, claims[ci-1].Spec.Devices) {
			continue
		}
		if twins == nil {
			twins = make([]bool, len(claims))
		}
		twins[ci] = true
	}
	return twins
}

// oneDeviceClaim reports a claim of one request for exactly one device in
// every alternative, without constraints, admin access or capacity.
func oneDeviceClaim(claim *resourceapi.ResourceClaim) bool {
	d := &claim.Spec.Devices
	if len(d.Requests) != 1 || len(d.Constraints) != 0 {
		return false
	}
	one := func(mode resourceapi.DeviceAllocationMode, count int64, capacity *resourceapi.CapacityRequirements) bool {
		return (mode == resourceapi.DeviceAllocationModeExactCount || mode == "") && count == 1 && capacity == nil
	}
	req := &d.Requests[0]
	if e := req.Exactly; e != nil {
		return len(req.FirstAvailable) == 0 && one(e.AllocationMode, e.Count, e.Capacity) && (e.AdminAccess == nil || !*e.AdminAccess)
	}
	if len(req.FirstAvailable) == 0 {
		return false
	}
	for _, sub := range req.FirstAvailable {
		if !one(sub.AllocationMode, sub.Count, sub.Capacity) {
			return false
		}
	}
	return true
}

// twinBound returns the least pick claim ci may make: its predecessor's
// current pick when ci is a twin, else the first pick.
func (c *call) twinBound(ci int) pick {
	if c.twins == nil || !c.twins[ci] {
		return pick{}
	}
	return c.claimStates[ci-1].pick
}
