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

package allocationcheck

import (
	"fmt"

	"gopkg.in/inf.v0"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// This file implements a capacity's requestPolicy as the API documents it
// (k8s.io/api/resource/v1 CapacityRequestPolicy and
// CapacityRequestPolicyRange):
//
//   - validValues: a consumed amount must be one of the values; a request
//     is served by the smallest value at least as large.
//   - validRange: a consumed amount lies in [min, max] and, with a step, is
//     min + n*step; a request below min is raised to min, one between steps
//     to the next step.
//   - The default is always allowed.
//
// Step arithmetic: with FractionalCapacityRange it is exact decimal
// arithmetic (the API's milli-unit arithmetic, for values it can represent);
// without it, as the API says, Quantity.Value() integers (each value rounded
// up to a whole number).

// policyViolation returns why a consumed amount is not allowed by the
// policy, or "".
func (c *checker) policyViolation(v resource.Quantity, p *resourceapi.CapacityRequestPolicy) string {
	if p == nil || (p.Default != nil && v.Cmp(*p.Default) == 0) {
		return ""
	}
	switch {
	case p.ValidRange != nil:
		r := p.ValidRange
		if r.Min != nil && v.Cmp(*r.Min) < 0 {
			return fmt.Sprintf("below the valid range's min %s", r.Min)
		}
		if r.Max != nil && v.Cmp(*r.Max) > 0 {
			return fmt.Sprintf("above the valid range's max %s", r.Max)
		}
		if r.Step != nil && r.Min != nil && !c.onStep(v, *r.Min, *r.Step) {
			return fmt.Sprintf("not min %s plus a multiple of step %s", r.Min, r.Step)
		}
	case len(p.ValidValues) > 0:
		for _, valid := range p.ValidValues {
			if v.Cmp(valid) == 0 {
				return ""
			}
		}
		return fmt.Sprintf("not one of the valid values %v", p.ValidValues)
	}
	return ""
}

// smallestConsumption returns the smallest amount that the capacity's policy
// lets a request for want consume, or why there is none (including: it does
// not fit the capacity's value).
func (c *checker) smallestConsumption(want resource.Quantity, capacity resourceapi.DeviceCapacity) (resource.Quantity, string) {
	v := want
	if p := capacity.RequestPolicy; p != nil {
		switch {
		case p.ValidRange != nil && p.ValidRange.Min != nil:
			r := p.ValidRange
			switch {
			case v.Cmp(*r.Min) < 0:
				v = r.Min.DeepCopy()
			case r.Step != nil:
				v = c.upToStep(v, *r.Min, *r.Step)
			}
			if r.Max != nil && v.Cmp(*r.Max) > 0 {
				return v, fmt.Sprintf("%s exceeds the valid range's max %s", &v, r.Max)
			}
		case len(p.ValidValues) > 0:
			found := false
			for _, valid := range p.ValidValues {
				if valid.Cmp(want) >= 0 && (!found || valid.Cmp(v) < 0) {
					v, found = valid.DeepCopy(), true
				}
			}
			if !found {
				return v, fmt.Sprintf("it exceeds all valid values %v", p.ValidValues)
			}
		}
	}
	if v.Cmp(capacity.Value) > 0 {
		return v, fmt.Sprintf("%s exceeds the capacity's value %s", &v, &capacity.Value)
	}
	return v, ""
}

// onStep reports whether v is min plus a whole multiple of step.
func (c *checker) onStep(v, minimum, step resource.Quantity) bool {
	if !c.features.FractionalCapacityRange {
		s := step.Value()
		return s == 0 || (v.Value()-minimum.Value())%s == 0
	}
	if step.Sign() == 0 {
		return true
	}
	diff := new(inf.Dec).Sub(dec(v), dec(minimum))
	n := new(inf.Dec).QuoRound(diff, dec(step), 0, inf.RoundDown)
	return new(inf.Dec).Mul(n, dec(step)).Cmp(diff) == 0
}

// upToStep rounds v (>= min) up to the next min + n*step.
func (c *checker) upToStep(v, minimum, step resource.Quantity) resource.Quantity {
	if !c.features.FractionalCapacityRange {
		s, m := step.Value(), minimum.Value()
		if s == 0 {
			return v
		}
		n := (v.Value() - m + s - 1) / s
		return *resource.NewQuantity(m+n*s, step.Format)
	}
	if step.Sign() == 0 {
		return v
	}
	diff := new(inf.Dec).Sub(dec(v), dec(minimum))
	n := new(inf.Dec).QuoRound(diff, dec(step), 0, inf.RoundCeil)
	sum := new(inf.Dec).Add(dec(minimum), new(inf.Dec).Mul(n, dec(step)))
	return *resource.NewDecimalQuantity(*sum, step.Format)
}

// dec returns q as a decimal without touching q (AsDec converts in place).
func dec(q resource.Quantity) *inf.Dec {
	c := q.DeepCopy()
	return new(inf.Dec).Set(c.AsDec())
}
