package allocator

import (
	"fmt"
	"math"

	resourceapi "k8s.io/api/resource/v1"
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

	class       *resourceapi.DeviceClass
	selectors   []resourceapi.DeviceSelector
	mode        resourceapi.DeviceAllocationMode
	count       int64
	adminAccess bool
	tolerations []resourceapi.DeviceToleration
	capacity    *resourceapi.CapacityRequirements

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

// claimState is a claim being allocated.
type claimState struct {
	obj *resourceapi.ResourceClaim
	// requests[q] has one entry, or one per subrequest.
	requests [][]*request
	// selected[q] is the chosen subrequest of request q.
	selected    []int
	constraints []constraint
	results     []deviceResult
}

// prepare validates every claim and request in order, resolving classes
// and running All-mode pre-scans (§4.1, §4.5). Errors are fatal.
func (c *call) prepare() error {
	for ci, obj := range c.claims {
		cs := &claimState{obj: obj}
		c.claimStates = append(c.claimStates, cs)
		claimRef := klog.KObj(obj)
		minPerClaim := 0
		for qi := range obj.Spec.Devices.Requests {
			req := &obj.Spec.Devices.Requests[qi]
			hasSubs := len(req.FirstAvailable) > 0
			if !c.a.features.PrioritizedList && hasSubs {
				return fmt.Errorf("claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled", claimRef, req.Name)
			}
			if !c.a.features.ConsumableCapacity {
				if req.Exactly != nil && req.Exactly.Capacity != nil {
					return fmt.Errorf("claim %s, request %s: has capacity requests, but the DRAConsumableCapacity feature is disabled", claimRef, req.Name)
				}
				for _, sub := range req.FirstAvailable {
					if sub.Capacity != nil {
						return fmt.Errorf("claim %s, subrequest %s: has capacity requests, but the DRAConsumableCapacity feature is disabled", claimRef, sub.Name)
					}
				}
			}
			var alternatives []*request
			minPerRequest := 0
			if hasSubs {
				minPerRequest = math.MaxInt
				for si := range req.FirstAvailable {
					sub := &req.FirstAvailable[si]
					r := &request{
						claim: ci, base: req.Name, sub: sub.Name, hasSubs: true,
						selectors: sub.Selectors, mode: sub.AllocationMode, count: sub.Count,
						tolerations: sub.Tolerations, capacity: sub.Capacity,
					}
					if err := c.validate(r, obj, sub.DeviceClassName, false, len(sub.DerivedAttributes) > 0); err != nil {
						return err
					}
					alternatives = append(alternatives, r)
					minPerRequest = min(minPerRequest, r.numDevices)
				}
			} else {
				exact := req.Exactly
				if exact == nil {
					return fmt.Errorf("claim %s, request %s: neither exactly nor firstAvailable is set (unsupported request type?)", claimRef, req.Name)
				}
				r := &request{
					claim: ci, base: req.Name,
					selectors: exact.Selectors, mode: exact.AllocationMode, count: exact.Count,
					adminAccess: ptr.Deref(exact.AdminAccess, false),
					tolerations: exact.Tolerations, capacity: exact.Capacity,
				}
				if err := c.validate(r, obj, exact.DeviceClassName, exact.AdminAccess != nil, len(exact.DerivedAttributes) > 0); err != nil {
					return err
				}
				alternatives = append(alternatives, r)
				minPerRequest = r.numDevices
			}
			if minPerRequest > resourceapi.AllocationResultsMaxSize-minPerClaim {
				return fmt.Errorf("claim %s, request %s: adding %d devices exceeds the claim limit of %d, with %d already accounted for",
					claimRef, req.Name, minPerRequest, resourceapi.AllocationResultsMaxSize, minPerClaim)
			}
			minPerClaim += minPerRequest
			cs.requests = append(cs.requests, alternatives)
		}
		cs.selected = make([]int, len(cs.requests))
		cs.results = make([]deviceResult, 0, minPerClaim)
		for i, con := range obj.Spec.Devices.Constraints {
			switch {
			case con.MatchAttribute != nil:
				cs.constraints = append(cs.constraints, newMatchConstraint(con.Requests, *con.MatchAttribute))
			case con.DistinctAttribute != nil:
				cs.constraints = append(cs.constraints, newDistinctConstraint(con.Requests, *con.DistinctAttribute))
			default:
				return fmt.Errorf("claim %s, constraint #%d: empty constraint (unsupported constraint type?)", claimRef, i)
			}
		}
	}
	return nil
}

// validate checks one request or subrequest and resolves its class and
// device count (upstream's validateDeviceRequest).
func (c *call) validate(r *request, claim *resourceapi.ResourceClaim, className string, adminAccessSet, derived bool) error {
	claimRef := klog.KObj(claim)
	if derived {
		return fmt.Errorf("claim %s, request %s: cannot handle request with derived attributes, the feature is disabled", claimRef, r.shortName())
	}
	for i, sel := range r.selectors {
		if sel.CEL == nil {
			return fmt.Errorf("claim %s, request %s, selector #%d: CEL expression empty (unsupported selector type?)", claimRef, r.shortName(), i)
		}
	}
	if !c.a.features.AdminAccess && adminAccessSet {
		return fmt.Errorf("claim %s, request %s: admin access is requested, but the feature is disabled", claimRef, r.shortName())
	}
	if className == "" {
		return fmt.Errorf("claim %s, request %s: missing device class name (unsupported request type?)", claimRef, r.shortName())
	}
	class, err := c.a.classes.Get(className)
	if err != nil {
		return fmt.Errorf("claim %s, request %s: could not retrieve device class %s: %w", claimRef, r.shortName(), className, err)
	}
	r.class = class

	switch r.mode {
	case resourceapi.DeviceAllocationModeExactCount:
		if r.count > math.MaxInt {
			return fmt.Errorf("claim %s, request %s: exact count %d is too large", claimRef, r.shortName(), r.count)
		}
		r.numDevices = int(r.count)
	case resourceapi.DeviceAllocationModeAll:
		for _, pool := range c.pools {
			if pool.Incomplete {
				return fmt.Errorf("claim %s, request %s: asks for all devices, but resource pool %s is currently being updated", claimRef, r.shortName(), pool.ID)
			}
			if pool.Invalid {
				return fmt.Errorf("claim %s, request %s: asks for all devices, but resource pool %s is currently invalid", claimRef, r.shortName(), pool.ID)
			}
			var err error
			pool.Devices(func(d *inventory.Device) bool {
				var ok bool
				if ok, err = c.selectable(r, d); err != nil || !ok {
					return err == nil
				}
				if c.a.features.ConsumableCapacity {
					var fits bool
					if fits, err = c.capacityFits(r, d, nil, nil); err != nil {
						err = fmt.Errorf("claim %s, request %s: checking capacity for device %s: %w", claimRef, r.shortName(), d.Name(), err)
						return false
					}
					if !fits {
						return true
					}
				}
				r.allDevices = append(r.allDevices, candidate{dev: d, pool: pool})
				return true
			})
			if err != nil {
				return err
			}
		}
		r.numDevices = len(r.allDevices)
	default:
		return fmt.Errorf("claim %s, request %s: unsupported count mode %s", claimRef, r.shortName(), r.mode)
	}
	return nil
}

// candidate is a device of the node in search order, with its pool.
type candidate struct {
	dev  *inventory.Device
	pool *inventory.Pool
}
