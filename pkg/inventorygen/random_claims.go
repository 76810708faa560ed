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

package inventorygen

import (
	"fmt"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
)

// Random classes and claims.

type genClass struct {
	name   string
	schema *driverSchema // nil: the class does not select a driver
}

// makeClasses creates 1..MaxClasses classes "class-<k>" with 0–2 selectors and
// sometimes opaque config.
func (g *generator) makeClasses() {
	for k := range g.upTo(max(g.o.MaxClasses, 1)) {
		gc := genClass{name: fmt.Sprintf("class-%d", k)}
		var exprs []string
		if g.chance(g.o.ClassDriverSelector) {
			gc.schema = pick(g, g.drivers)
			exprs = append(exprs, fmt.Sprintf("device.driver == %q", gc.schema.name))
		}
		if g.chance(g.o.ClassExtraSelector) {
			exprs = append(exprs, g.validSelector(g.schemaFor(gc)))
		}
		class := newClass(gc.name, exprs...)
		if g.chance(g.o.ClassConfig) {
			for i := range 1 + g.r.IntN(2) {
				class.Spec.Config = append(class.Spec.Config, resourceapi.DeviceClassConfiguration{
					DeviceConfiguration: g.opaqueConfig("class", gc.name, i),
				})
			}
		}
		g.genClasses = append(g.genClasses, gc)
		g.c.Classes = append(g.c.Classes, class)
	}
}

// schemaFor is the driver schema selectors of a class are written against.
func (g *generator) schemaFor(c genClass) *driverSchema {
	if c.schema != nil {
		return c.schema
	}
	return pick(g, g.drivers)
}

func (g *generator) opaqueConfig(kind, owner string, i int) resourceapi.DeviceConfiguration {
	return resourceapi.DeviceConfiguration{Opaque: &resourceapi.OpaqueDeviceConfiguration{
		Driver:     pick(g, g.drivers).name,
		Parameters: runtime.RawExtension{Raw: fmt.Appendf(nil, `{"%s":%q,"index":%d}`, kind, owner, i)},
	}}
}

// makeClaims creates 1..MaxClaims claims "claim-<k>" in the default
// namespace. A request that would push the estimated search space beyond
// MaxSearchSpace is drawn again (up to 5 times) and otherwise ends the
// claim, or the case if the claim has no request yet.
func (g *generator) makeClaims() {
	space := 1.0
	for k := range g.upTo(max(g.o.MaxClaims, 1)) {
		if k > 0 && g.chance(g.o.TwinClaim) {
			prev := g.c.Claims[len(g.c.Claims)-1]
			s := 1.0
			for _, req := range prev.Spec.Devices.Requests {
				s *= g.requestSpace(req)
			}
			if g.o.MaxSearchSpace <= 0 || space*s <= g.o.MaxSearchSpace {
				space *= s
				twin := NewClaim(fmt.Sprintf("claim-%d", k))
				prev.Spec.DeepCopyInto(&twin.Spec)
				g.c.Claims = append(g.c.Claims, twin)
				g.note("twin claim")
				continue
			}
		}
		claim := NewClaim(fmt.Sprintf("claim-%d", k))
		var refs []string // request names usable in constraints and configs
		var schemas []*driverSchema
		for r := range g.upTo(max(g.o.MaxRequestsPerClaim, 1)) {
			var req resourceapi.DeviceRequest
			var reqSchemas []*driverSchema
			fits := false
			for range 5 {
				mark := len(g.c.Notes)
				req, reqSchemas = g.request(claim.Name, fmt.Sprintf("req-%d", r))
				s := g.requestSpace(req)
				if g.o.MaxSearchSpace <= 0 || space*s <= g.o.MaxSearchSpace || (k == 0 && r == 0) {
					space *= s
					fits = true
					break
				}
				g.c.Notes = g.c.Notes[:mark]
			}
			if !fits {
				break
			}
			claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, req)
			refs = append(refs, req.Name)
			for _, sub := range req.FirstAvailable {
				refs = append(refs, req.Name+"/"+sub.Name)
			}
			schemas = append(schemas, reqSchemas...)
		}
		if len(refs) == 0 {
			break
		}
		if g.chance(g.o.Constraint) {
			for range 1 + g.r.IntN(2) {
				con := g.constraint(refs, schemas)
				claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, con)
				if g.chance(g.o.DerivedAttribute) {
					g.deriveAttribute(claim, con)
				}
			}
		}
		if g.chance(g.o.ClaimConfig) {
			for i := range 1 + g.r.IntN(2) {
				claim.Spec.Devices.Config = append(claim.Spec.Devices.Config, resourceapi.DeviceClaimConfiguration{
					Requests:            g.subset(refs, 0.4),
					DeviceConfiguration: g.opaqueConfig("claim", claim.Name, i),
				})
			}
		}
		g.c.Claims = append(g.c.Claims, claim)
	}
}

// requestSpace estimates how many device combinations the exhaustive
// search may try for a request: C(candidates, count) for ExactCount, 1 for
// All, the sum over subrequests for firstAvailable. Candidates are all
// devices of the class's driver (all devices for a class without one).
func (g *generator) requestSpace(req resourceapi.DeviceRequest) float64 {
	one := func(class string, mode resourceapi.DeviceAllocationMode, count int64) float64 {
		if mode == resourceapi.DeviceAllocationModeAll {
			return 1
		}
		n := 0
		for _, c := range g.genClasses {
			if c.name != class {
				continue
			}
			for _, s := range g.c.Slices {
				if c.schema == nil || c.schema.name == s.Spec.Driver {
					n += len(s.Spec.Devices)
				}
			}
		}
		return max(binomial(n, int(count)), 1)
	}
	if req.Exactly != nil {
		return one(req.Exactly.DeviceClassName, req.Exactly.AllocationMode, req.Exactly.Count)
	}
	sum := 0.0
	for _, sub := range req.FirstAvailable {
		sum += one(sub.DeviceClassName, sub.AllocationMode, sub.Count)
	}
	return sum
}

func binomial(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := range k {
		r = r * float64(n-i) / float64(i+1)
	}
	return r
}

// subset returns nil with probability pNil, else a non-empty subset in order.
func (g *generator) subset(names []string, pNil float64) []string {
	if g.chance(pNil) {
		return nil
	}
	var out []string
	for _, n := range names {
		if g.chance(0.5) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = []string{pick(g, names)}
	}
	return out
}

// requestPart is what ExactDeviceRequest and DeviceSubRequest share.
type requestPart struct {
	class       string
	selectors   []resourceapi.DeviceSelector
	mode        resourceapi.DeviceAllocationMode
	count       int64
	tolerations []resourceapi.DeviceToleration
	capacity    *resourceapi.CapacityRequirements
	schema      *driverSchema
}

// request creates an exact or firstAvailable request and reports the driver
// schemas it targets.
func (g *generator) request(claim, name string) (resourceapi.DeviceRequest, []*driverSchema) {
	where := claim + "/" + name
	if g.chance(g.o.FirstAvailable) {
		req := resourceapi.DeviceRequest{Name: name}
		var schemas []*driverSchema
		for i := range 1 + g.r.IntN(3) {
			sub := fmt.Sprintf("sub-%d", i)
			p := g.requestPart(where + "/" + sub)
			req.FirstAvailable = append(req.FirstAvailable, resourceapi.DeviceSubRequest{
				Name: sub, DeviceClassName: p.class, Selectors: p.selectors, AllocationMode: p.mode,
				Count: p.count, Tolerations: p.tolerations, Capacity: p.capacity,
			})
			schemas = append(schemas, p.schema)
		}
		return req, schemas
	}
	p := g.requestPart(where)
	exact := &resourceapi.ExactDeviceRequest{
		DeviceClassName: p.class, Selectors: p.selectors, AllocationMode: p.mode,
		Count: p.count, Tolerations: p.tolerations, Capacity: p.capacity,
	}
	if g.chance(g.o.AdminAccess) {
		exact.AdminAccess = ptr(g.r.IntN(4) != 0)
	}
	return resourceapi.DeviceRequest{Name: name, Exactly: exact}, []*driverSchema{p.schema}
}

func (g *generator) requestPart(where string) requestPart {
	var p requestPart
	if g.chance(g.o.MissingClass) {
		p.class = "class-missing"
		p.schema = pick(g, g.drivers)
		g.note("%s: missing class", where)
	} else {
		c := pick(g, g.genClasses)
		p.class, p.schema = c.name, g.schemaFor(c)
	}
	for range 2 {
		switch {
		case g.chance(g.o.CompileErrorSelector):
			p.selectors = append(p.selectors, celSelectors(g.compileErrorSelector(p.schema))...)
			g.note("%s: selector with CEL compile error", where)
		case g.chance(g.o.RuntimeErrorSelector):
			p.selectors = append(p.selectors, celSelectors(g.runtimeErrorSelector(p.schema))...)
			g.note("%s: selector with possible CEL runtime error", where)
		case g.chance(g.o.RequestSelector):
			p.selectors = append(p.selectors, celSelectors(g.validSelector(p.schema))...)
		}
	}
	switch {
	case g.chance(g.o.AllMode):
		p.mode = resourceapi.DeviceAllocationModeAll
	case g.chance(g.o.ZeroCount):
		p.mode = resourceapi.DeviceAllocationModeExactCount
		g.note("%s: count 0", where)
	default:
		p.mode = resourceapi.DeviceAllocationModeExactCount
		p.count = 1
		if x := g.r.Float64(); x < 0.12 {
			p.count = 3
		} else if x < 0.4 {
			p.count = 2
		}
	}
	if g.chance(g.o.Toleration) {
		p.tolerations = g.tolerations()
	}
	if len(p.schema.caps) > 0 && g.chance(g.o.CapacityRequest) {
		c := pick(g, p.schema.caps)
		amount := c.quantity(pick(g, []int64{1, 2, 3, 5, 8, 16}))
		if c.unit == 1 && g.chance(0.2) {
			amount = *resource.NewMilliQuantity(pick(g, []int64{250, 750, 1500}), resource.DecimalSI)
		}
		p.capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{c.name: amount}}
	}
	return p
}

func (g *generator) tolerations() []resourceapi.DeviceToleration {
	var out []resourceapi.DeviceToleration
	for range 1 + g.r.IntN(2) {
		t := resourceapi.DeviceToleration{Operator: resourceapi.DeviceTolerationOpExists}
		switch g.r.IntN(4) {
		case 0: // tolerates everything
		case 1:
			t.Key = pick(g, taintKeys)
		default:
			t.Key = pick(g, taintKeys)
			t.Operator = resourceapi.DeviceTolerationOpEqual
			t.Value = pick(g, []string{"", "true"})
		}
		if g.chance(0.4) {
			t.Effect = pick(g, taintEffects)
		}
		out = append(out, t)
	}
	return out
}

// constraint creates a matchAttribute or distinctAttribute constraint on an
// attribute of the targeted drivers (rarely one no device has).
func (g *generator) constraint(refs []string, schemas []*driverSchema) resourceapi.DeviceConstraint {
	s := pick(g, schemas)
	name := fullyQualified(s.name, pick(g, s.attrs).name)
	if g.chance(0.05) {
		name = resourceapi.FullyQualifiedName(s.name + "/nosuch")
	}
	c := resourceapi.DeviceConstraint{Requests: g.subset(refs, 0.5)}
	if g.chance(0.6) {
		c.MatchAttribute = &name
	} else {
		c.DistinctAttribute = &name
	}
	return c
}

// derivedExpressions are the derived attributes' CEL expressions: a
// constant, values that differ between drivers or devices, a list, and
// (rarely) one that fails at run time or does not compile.
var derivedExpressions = []string{
	`"same"`,
	`device.driver`,
	`device.driver.size() % 3`,
	`[device.driver, "shared"]`,
	`device.allowMultipleAllocations`,
}

// deriveAttribute lets one or two requests the constraint targets derive
// the attribute it compares (the API requires a derived attribute to be
// referenced by a constraint on its request).
func (g *generator) deriveAttribute(claim *resourceapi.ResourceClaim, con resourceapi.DeviceConstraint) {
	name := con.MatchAttribute
	if name == nil {
		name = con.DistinctAttribute
	}
	expr := pick(g, derivedExpressions)
	switch {
	case g.chance(0.03):
		expr = `device.attributes["gpu.example.com"].nosuch`
	case g.chance(0.02):
		expr = `device.driver +`
	}
	attr := resourceapi.DeviceDerivedAttribute{Name: *name, Expression: expr}
	add := func(list *[]resourceapi.DeviceDerivedAttribute) {
		for _, d := range *list {
			if d.Name == *name {
				return
			}
		}
		*list = append(*list, attr)
	}
	for range 1 + g.r.IntN(2) {
		req := &claim.Spec.Devices.Requests[g.r.IntN(len(claim.Spec.Devices.Requests))]
		if len(con.Requests) > 0 && !slices.Contains(con.Requests, req.Name) {
			continue
		}
		if req.Exactly != nil {
			add(&req.Exactly.DerivedAttributes)
		} else {
			sub := &req.FirstAvailable[g.r.IntN(len(req.FirstAvailable))]
			add(&sub.DerivedAttributes)
		}
		g.note("%s/%s derives %s = %s", claim.Name, req.Name, *name, expr)
	}
}
