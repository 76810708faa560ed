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

package celmatch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// generator produces random devices and selectors from a fixed vocabulary so
// that selectors hit existing and missing attributes, wrong types, errors and
// all value kinds often enough.
type generator struct {
	r *rand.Rand
}

var (
	drivers       = []string{"dra.example.com", "gpu.example.com"}
	otherDomains  = []string{"other.example.com", "nic.example.com"}
	unqualifiedID = []string{"u0", "u1", "u2", "u3"}
	// Qualified names use their own ids, so that a qualified name never
	// collides with an unqualified one (upstream resolves that randomly).
	qualifiedID = []string{"q0", "q1", "q2"}
	strValues   = []string{"a", "b", "a100", ""}
	versions    = []string{"1.0.0", "1.2.3", "1.2.3-rc.1", "2.0.0+build.1", "0.9.10"}
	quantities  = []string{"0", "1", "-3", "1500m", "1.5", "40Gi", "80Gi", "100M", "2Ki", "1e3", "0.000001", hugeQuantity}
)

func pick[T any](g *generator, values []T) T { return values[g.r.IntN(len(values))] }

func (g *generator) chance(percent int) bool { return g.r.IntN(100) < percent }

func (g *generator) name(driver string) (resourceapi.QualifiedName, string, string) {
	switch g.r.IntN(3) {
	case 0:
		id := pick(g, unqualifiedID)
		return resourceapi.QualifiedName(id), driver, id
	case 1:
		id := pick(g, qualifiedID)
		return resourceapi.QualifiedName(driver + "/" + id), driver, id
	default:
		domain, id := pick(g, otherDomains), pick(g, qualifiedID)
		return resourceapi.QualifiedName(domain + "/" + id), domain, id
	}
}

func (g *generator) attribute(allowBad bool) resourceapi.DeviceAttribute {
	if allowBad && g.chance(3) {
		if g.chance(50) {
			return resourceapi.DeviceAttribute{}
		}
		return resourceapi.DeviceAttribute{VersionValue: ptr.To("v1.bad")}
	}
	switch g.r.IntN(8) {
	case 0:
		return resourceapi.DeviceAttribute{IntValue: ptr.To(int64(g.r.IntN(5) - 1))}
	case 1:
		return resourceapi.DeviceAttribute{BoolValue: ptr.To(g.chance(50))}
	case 2:
		return resourceapi.DeviceAttribute{StringValue: ptr.To(pick(g, strValues))}
	case 3:
		return resourceapi.DeviceAttribute{VersionValue: ptr.To(pick(g, versions))}
	case 4:
		return resourceapi.DeviceAttribute{IntValues: []int64{int64(g.r.IntN(3)), int64(g.r.IntN(3))}}
	case 5:
		return resourceapi.DeviceAttribute{BoolValues: []bool{g.chance(50)}}
	case 6:
		return resourceapi.DeviceAttribute{StringValues: []string{pick(g, strValues), pick(g, strValues)}}
	default:
		return resourceapi.DeviceAttribute{VersionValues: []string{pick(g, versions), pick(g, versions)}}
	}
}

func (g *generator) device() (string, *resourceapi.Device) {
	driver := pick(g, drivers)
	device := &resourceapi.Device{
		Name:       "dev",
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{},
		Capacity:   map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{},
	}
	if g.chance(66) {
		device.AllowMultipleAllocations = ptr.To(g.chance(50))
	}
	bad := false
	for range g.r.IntN(7) {
		name, _, _ := g.name(driver)
		attr := g.attribute(!bad)
		// At most one invalid attribute: with more, upstream reports a
		// random one of them.
		if _, err := attributeValue(attr); err != nil {
			bad = true
		}
		device.Attributes[name] = attr
	}
	for range g.r.IntN(5) {
		name, _, _ := g.name(driver)
		device.Capacity[name] = resourceapi.DeviceCapacity{Value: resource.MustParse(pick(g, quantities))}
	}
	return driver, device
}

// domainRef refers to an attribute or capacity domain which may or may not
// exist on a given device.
func (g *generator) domainRef(field string) string {
	domains := append(append([]string{}, drivers...), otherDomains...)
	return fmt.Sprintf(`device.%s[%q]`, field, pick(g, domains))
}

func (g *generator) attrRef() string {
	ids := append(append([]string{}, unqualifiedID...), qualifiedID...)
	return g.domainRef("attributes") + "." + pick(g, ids)
}

func (g *generator) capRef() string {
	ids := append(append([]string{}, unqualifiedID...), qualifiedID...)
	return g.domainRef("capacity") + "." + pick(g, ids)
}

func (g *generator) literal() string {
	switch g.r.IntN(5) {
	case 0:
		return fmt.Sprint(g.r.IntN(5) - 1)
	case 1:
		return fmt.Sprint(g.chance(50))
	case 2:
		return fmt.Sprintf("%q", pick(g, strValues))
	case 3:
		return fmt.Sprintf("semver(%q)", pick(g, versions))
	default:
		return fmt.Sprintf("[%d, %d]", g.r.IntN(3), g.r.IntN(3))
	}
}

func (g *generator) atom() string {
	cmp := pick(g, []string{"<", "<=", "==", "!=", ">=", ">"})
	switch g.r.IntN(21) {
	case 0:
		return fmt.Sprintf(`device.driver == %q`, pick(g, drivers))
	case 1:
		return `device.allowMultipleAllocations`
	case 2:
		return fmt.Sprintf(`%s == %s`, g.attrRef(), g.literal())
	case 3:
		return fmt.Sprintf(`%s %s %d`, g.attrRef(), cmp, g.r.IntN(3))
	case 4:
		return fmt.Sprintf(`%s.compareTo(semver(%q)) %s 0`, g.attrRef(), pick(g, versions), cmp)
	case 5:
		return fmt.Sprintf(`%s.%s(semver(%q))`, g.attrRef(), pick(g, []string{"isGreaterThan", "isLessThan"}), pick(g, versions))
	case 6:
		return fmt.Sprintf(`has(%s)`, g.attrRef())
	case 7:
		return fmt.Sprintf(`%q in %s`, pick(g, qualifiedID), g.domainRef(pick(g, []string{"attributes", "capacity"})))
	case 8:
		return fmt.Sprintf(`%s.compareTo(quantity(%q)) %s 0`, g.capRef(), pick(g, quantities), cmp)
	case 9:
		return fmt.Sprintf(`%s.%s()`, g.capRef(), pick(g, []string{"isInteger", "asInteger", "asApproximateFloat"}))
	case 10:
		return fmt.Sprintf(`%s.add(quantity(%q)).isGreaterThan(quantity(%q))`, g.capRef(), pick(g, quantities), pick(g, quantities))
	case 11:
		return fmt.Sprintf(`%s.asInteger() %s %d`, g.capRef(), cmp, g.r.IntN(2000))
	case 12:
		return fmt.Sprintf(`%s / %d == 1`, g.attrRef(), g.r.IntN(2))
	case 13:
		return fmt.Sprintf(`%s.exists(x, x == %s)`, g.attrRef(), g.literal())
	case 14:
		return fmt.Sprintf(`size(%s) %s %d`, pick(g, []string{g.attrRef(), g.domainRef("attributes"), g.domainRef("capacity")}), cmp, g.r.IntN(3))
	case 15:
		return fmt.Sprintf(`%s.?%s.orValue(%s) == %s`, g.domainRef("attributes"), pick(g, qualifiedID), g.literal(), g.literal())
	case 16:
		// filter visits every key, so the cost does not depend on the
		// (random) map iteration order, unlike exists.
		return fmt.Sprintf(`size(%s.filter(k, k.startsWith("q"))) > 0`, g.domainRef(pick(g, []string{"attributes", "capacity"})))
	case 17:
		// The result type is dyn; anything but a bool is a conversion error.
		return g.attrRef()
	case 18:
		d := g.domainRef("capacity")
		id := pick(g, qualifiedID)
		return fmt.Sprintf(`cel.bind(c, %s, c.%s.compareTo(quantity(%q)) %s 0 && c.%s.isInteger())`, d, id, pick(g, quantities), cmp, id)
	case 19:
		// Two separate lookups of the same capacity: a comparison can
		// convert it, which the second lookup sees within the evaluation.
		ref := g.capRef()
		return fmt.Sprintf(`%s.compareTo(quantity(%q)) < 0 && %s.%s()`, ref, hugeQuantity, ref, pick(g, []string{"isInteger", "isInteger", "asApproximateFloat"}))
	default:
		return fmt.Sprintf(`%s.includes(%s)`, g.attrRef(), g.literal())
	}
}

func (g *generator) expression(depth int) string {
	if depth == 0 || g.chance(35) {
		return g.atom()
	}
	switch g.r.IntN(4) {
	case 0:
		return fmt.Sprintf("(%s) && (%s)", g.expression(depth-1), g.expression(depth-1))
	case 1:
		return fmt.Sprintf("(%s) || (%s)", g.expression(depth-1), g.expression(depth-1))
	case 2:
		return fmt.Sprintf("!(%s)", g.expression(depth-1))
	default:
		return fmt.Sprintf("(%s) ? (%s) : (%s)", g.expression(depth-1), g.expression(depth-1), g.expression(depth-1))
	}
}

func TestSelectorsAgreeWithUpstreamOnRandomDevicesAndExpressions(t *testing.T) {
	const (
		seed        = 20260801
		numDevices  = 120
		numSelector = 250
	)
	g := &generator{r: rand.New(rand.NewPCG(seed, seed))}
	ctx := context.Background()

	var selectors []*Selector
	compileErrors := 0
	for len(selectors) < numSelector {
		expression := g.expression(3)
		selector, err := Compile(testCache, expression)
		if err != nil {
			// Type checking rejects some combinations (e.g. a
			// non-bool ternary); upstream must agree.
			if testCache.GetOrCompile(expression).Error == nil {
				t.Fatalf("we failed to compile %q, upstream did not: %v", expression, err)
			}
			compileErrors++
			continue
		}
		selectors = append(selectors, selector)
	}
	// One expression which exceeds the runtime cost limit.
	selectors = append(selectors, mustCompile(t, costlyExpression))

	stats := map[string]int{}
	for n := range numDevices {
		driver, device := g.device()
		activation := NewActivation(driver, device)
		// Two passes in different orders over the same activation: an
		// evaluation must not influence a later one.
		for pass := range 2 {
			for _, i := range g.r.Perm(len(selectors)) {
				selector := selectors[i]
				// The cost limit takes long to reach; a few devices suffice.
				if selector.Expression() == costlyExpression && (pass > 0 || n >= 3) {
					continue
				}
				got := assertSameAsUpstream(ctx, t, selector, activation, driver, device)
				switch {
				case got.Err == "" && got.Match:
					stats["match"]++
				case got.Err == "":
					stats["no match"]++
				case strings.Contains(got.Err, "attribute "):
					stats["error: invalid device"]++
				case strings.Contains(got.Err, "no such key"):
					stats["error: no such key"]++
				case strings.Contains(got.Err, "no such overload"), strings.Contains(got.Err, "no matching overload"):
					stats["error: no such overload"]++
				case strings.Contains(got.Err, "division by zero"):
					stats["error: division by zero"]++
				case strings.Contains(got.Err, "cost limit"):
					stats["error: cost limit"]++
				default:
					stats["error: other"]++
				}
			}
		}
	}
	t.Logf("compared %d selectors (%d rejected by the compiler) on %d devices: %v", len(selectors), compileErrors, numDevices, stats)
	for _, kind := range []string{"match", "no match", "error: invalid device", "error: no such key", "error: no such overload", "error: division by zero", "error: cost limit", "error: other"} {
		if stats[kind] == 0 {
			t.Errorf("the generator never produced outcome %q; the comparison is too weak", kind)
		}
	}
}
