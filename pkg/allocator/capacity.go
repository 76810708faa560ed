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
	"errors"
	"fmt"
	"math"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Consumable capacity (§5.6): what a request consumes of a device's
// capacities, whether that obeys the device's request policies, and
// whether it fits next to what is already consumed.

var (
	errNotRepresentable = errors.New("capacity request cannot be represented in the device's range arithmetic")
	errNegative         = errors.New("capacity value is negative")
)

// shareState is the in-progress consumption of one multi-allocatable
// device in this call.
type shareState struct {
	n        int
	consumed map[resourceapi.QualifiedName]resource.Quantity
}

// rangeArithmetic is how a capacity's validRange rounds and checks a
// request: in whole units, or, with DRAFractionalCapacityRange, in milli
// units wherever the range's bounds are exact in them.
type rangeArithmetic int

const (
	// wholeUnits computes every range in whole units, as the API
	// documents without fractional ranges.
	wholeUnits rangeArithmetic = iota
	// milliUnitsWhereExact computes a range in milli units when its min,
	// max and step are exact there (and the step is at least 1m), else in
	// whole units.
	milliUnitsWhereExact
)

// rangeArithmetic is the arithmetic this allocator's features select.
func (a *Allocator) rangeArithmetic() rangeArithmetic {
	if a.features.FractionalCapacityRange {
		return milliUnitsWhereExact
	}
	return wholeUnits
}

// maxSpareShares bounds the emptied share states a pooled call keeps.
const maxSpareShares = 64

func (c *call) inProgress(i int) map[resourceapi.QualifiedName]resource.Quantity {
	if s := c.shares[i]; s != nil {
		return s.consumed
	}
	return nil
}

func (c *call) addShare(i int, consumed map[resourceapi.QualifiedName]resource.Quantity) {
	s := c.shares[i]
	if s == nil {
		if n := len(c.spareShares); n > 0 {
			s = c.spareShares[n-1]
			c.spareShares = c.spareShares[:n-1]
		} else {
			s = &shareState{consumed: map[resourceapi.QualifiedName]resource.Quantity{}}
		}
		c.shares[i] = s
	}
	s.n++
	for name, q := range consumed {
		if have, ok := s.consumed[name]; ok {
			have.Add(q)
			s.consumed[name] = have
		} else {
			s.consumed[name] = q.DeepCopy()
		}
	}
}

func (c *call) removeShare(i int, consumed map[resourceapi.QualifiedName]resource.Quantity) {
	s := c.shares[i]
	s.n--
	for name, q := range consumed {
		if have, ok := s.consumed[name]; ok {
			have.Sub(q)
			s.consumed[name] = have
		}
	}
	if s.n == 0 {
		delete(c.shares, i)
		c.spareShare(s)
	}
}

// spareShare keeps an emptied share state for reuse.
func (c *call) spareShare(s *shareState) {
	if len(c.spareShares) < maxSpareShares {
		s.n = 0
		clear(s.consumed)
		c.spareShares = append(c.spareShares, s)
	}
}

// capacityInUse reports persisted or in-progress shares of a device.
func (c *call) capacityInUse(i int) bool {
	return c.a.state.shared.Has(i) || c.shares[i] != nil
}

// capacityFits reports whether request r fits on device d next to base
// (persisted) and inProgress consumption; errors are fatal. It allocates
// nothing: the consumption it computes stays on its stack.
func (c *call) capacityFits(r *request, d *inventory.Device, base structured.ConsumedCapacity, inProgress map[resourceapi.QualifiedName]resource.Quantity) (bool, error) {
	dev := d.Spec
	if r.capacity == nil && d.PlainCapacity && len(base) == 0 && len(inProgress) == 0 {
		// Each capacity is consumed whole, exactly filling the device.
		return true, nil
	}
	if r.capacity != nil {
		for name := range r.capacity.Requests {
			if _, ok := dev.Capacity[name]; !ok {
				return false, nil
			}
		}
	}
	arith := c.a.rangeArithmetic()
	consumed := make(map[resourceapi.QualifiedName]resource.Quantity, len(dev.Capacity))
	for name, capacity := range dev.Capacity {
		q, err := consumedOne(requested(r.capacity, name), capacity, arith)
		if err != nil {
			return false, fmt.Errorf("capacity %q: %w", name, err)
		}
		if q.Sign() < 0 {
			return false, fmt.Errorf("capacity %q: %w", name, errNegative)
		}
		consumed[name] = q
	}
	for name, capacity := range dev.Capacity {
		q := consumed[name]
		if violatesPolicy(q, capacity.RequestPolicy, arith) {
			return false, nil
		}
		total := q.DeepCopy()
		if b, ok := base[name]; ok && b != nil {
			total.Add(*b)
		}
		if p, ok := inProgress[name]; ok {
			total.Add(p)
		}
		if total.Cmp(capacity.Value) > 0 {
			return false, nil
		}
	}
	return true, nil
}

// consumedCapacity is what one share of the device consumes, for every
// capacity of the device.
func consumedCapacity(req *resourceapi.CapacityRequirements, capacities map[resourceapi.QualifiedName]resourceapi.DeviceCapacity, arith rangeArithmetic) (map[resourceapi.QualifiedName]resource.Quantity, error) {
	out := make(map[resourceapi.QualifiedName]resource.Quantity, len(capacities))
	for name, capacity := range capacities {
		q, err := consumedOne(requested(req, name), capacity, arith)
		if err != nil {
			return nil, fmt.Errorf("capacity %q: %w", name, err)
		}
		out[name] = q
	}
	return out, nil
}

func requested(req *resourceapi.CapacityRequirements, name resourceapi.QualifiedName) *resource.Quantity {
	if req == nil || req.Requests == nil {
		return nil
	}
	if q, ok := req.Requests[name]; ok {
		return &q
	}
	return nil
}

// consumedOne is the consumption of one capacity: the default (or the whole
// capacity) when not requested, else the request rounded up by the policy.
func consumedOne(req *resource.Quantity, capacity resourceapi.DeviceCapacity, arith rangeArithmetic) (resource.Quantity, error) {
	policy := capacity.RequestPolicy
	if req == nil {
		if policy != nil && policy.Default != nil {
			return policy.Default.DeepCopy(), nil
		}
		return capacity.Value.DeepCopy(), nil
	}
	if policy == nil {
		return req.DeepCopy(), nil
	}
	switch {
	case policy.ValidRange != nil && policy.ValidRange.Min != nil:
		return roundUpToRange(req, policy.ValidRange, arith)
	case policy.ValidValues != nil:
		for _, v := range policy.ValidValues {
			if req.Cmp(v) <= 0 {
				return v.DeepCopy(), nil
			}
		}
		return *req, nil
	}
	return *req, nil
}

// roundUpToRange rounds a request up to min + n*step.
func roundUpToRange(req *resource.Quantity, r *resourceapi.CapacityRequestPolicyRange, arith rangeArithmetic) (resource.Quantity, error) {
	if req.Cmp(*r.Min) < 0 {
		return r.Min.DeepCopy(), nil
	}
	if r.Step == nil {
		return *req, nil
	}
	format := r.Step.Format
	if arith.inMilli(r) {
		reqMilli, err := exactMilli(*req)
		if err != nil {
			return resource.Quantity{}, fmt.Errorf("%w: request %s is not a representable milli value", errNotRepresentable, req.String())
		}
		step, lo := r.Step.MilliValue(), r.Min.MilliValue()
		n := ceilDiv(reqMilli-lo, step)
		if n > (math.MaxInt64-lo)/step {
			return resource.Quantity{}, fmt.Errorf("%w: rounding request %s up to the next step passes the milli-value range", errNotRepresentable, req.String())
		}
		v := lo + step*n
		if v%1000 == 0 {
			return *resource.NewQuantity(v/1000, format), nil
		}
		return *resource.NewMilliQuantity(v, format), nil
	}
	if req.CmpInt64(math.MaxInt64) > 0 {
		return resource.Quantity{}, fmt.Errorf("%w: request %s exceeds MaxInt64", errNotRepresentable, req.String())
	}
	reqInt, step, lo := req.Value(), r.Step.Value(), r.Min.Value()
	n := ceilDiv(reqInt-lo, step)
	if lo >= 0 && n > (math.MaxInt64-lo)/step {
		return resource.Quantity{}, fmt.Errorf("%w: rounding request %s up to the next step passes MaxInt64", errNotRepresentable, req.String())
	}
	return *resource.NewQuantity(lo+step*n, format), nil
}

// ceilDiv divides rounding towards positive infinity for a non-negative
// dividend, truncating like Go for a negative one.
func ceilDiv(a, b int64) int64 {
	n := a / b
	if a%b != 0 {
		n++
	}
	return n
}

// violatesPolicy reports a consumption the device's policy forbids. The
// unchanged default is always allowed.
func violatesPolicy(q resource.Quantity, policy *resourceapi.CapacityRequestPolicy, arith rangeArithmetic) bool {
	if policy == nil {
		return false
	}
	if policy.Default != nil && q == *policy.Default {
		return false
	}
	switch {
	case policy.ValidRange != nil:
		r := policy.ValidRange
		if r.Max != nil && q.Cmp(*r.Max) > 0 {
			return true
		}
		if r.Step == nil {
			return false
		}
		var v, step, lo int64
		if arith.inMilli(r) {
			var err error
			if v, err = exactMilli(q); err != nil {
				return true
			}
			step, lo = r.Step.MilliValue(), r.Min.MilliValue()
		} else {
			v, step, lo = q.Value(), r.Step.Value(), r.Min.Value()
		}
		return (v-lo)%step != 0
	case len(policy.ValidValues) > 0:
		for _, valid := range policy.ValidValues {
			if q.Cmp(valid) == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// inMilli reports whether a range is computed in milli units: with
// milliUnitsWhereExact and every bound exactly representable in milli
// units, with a step of at least 1m.
func (arith rangeArithmetic) inMilli(r *resourceapi.CapacityRequestPolicyRange) bool {
	if arith != milliUnitsWhereExact {
		return false
	}
	for i, q := range []*resource.Quantity{r.Min, r.Max, r.Step} {
		if q == nil {
			continue
		}
		m, err := exactMilli(*q)
		if err != nil {
			return false
		}
		if i == 2 && m < 1 {
			return false
		}
	}
	return true
}

// exactMilli returns q in milli units if that is exact.
func exactMilli(q resource.Quantity) (int64, error) {
	m := q.MilliValue()
	if q.Cmp(*resource.NewMilliQuantity(m, q.Format)) != 0 {
		return 0, errors.New("value must be representable in milli units")
	}
	return m, nil
}
