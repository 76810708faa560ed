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
	"strings"
)

// Random CEL selectors for classes and requests, written against a driver
// schema: valid ones, ones that may fail at run time, and ones that do not
// compile.

// validSelector returns a selector that compiles and never fails at runtime
// on schema-conforming devices (attribute access is guarded).
func (g *generator) validSelector(s *driverSchema) string {
	switch g.r.IntN(10) {
	case 0:
		return fmt.Sprintf("device.driver == %q", pick(g, g.drivers).name)
	case 1:
		return pick(g, []string{"device.allowMultipleAllocations", "!device.allowMultipleAllocations"})
	case 2, 3:
		if len(s.caps) > 0 {
			c := pick(g, s.caps)
			path := celCapacity(s.name, c.name)
			q := c.quantity(pick(g, c.values) / pick(g, []int64{1, 2, 4}))
			qs := q.String()
			cmp := pick(g, []string{
				"%[1]s.compareTo(quantity(%[2]q)) >= 0",
				"%[1]s.isLessThan(quantity(%[2]q))",
				"%[1]s.isGreaterThan(quantity(%[2]q))",
			})
			return fmt.Sprintf("has(%s) && "+cmp, path, qs)
		}
	}
	a := pick(g, s.attrs)
	path := celAttribute(s.name, a.name)
	cmp := g.attributeComparison(a)
	switch g.r.IntN(4) {
	case 0:
		return fmt.Sprintf("!has(%s) || %s", path, fmt.Sprintf(cmp, path))
	case 1:
		domain, id := domainAndID(s.name, a.name)
		return fmt.Sprintf("cel.bind(attrs, device.attributes[%q], has(attrs.%s) && %s)", domain, id, fmt.Sprintf(cmp, "attrs."+id))
	default:
		return fmt.Sprintf("has(%s) && %s", path, fmt.Sprintf(cmp, path))
	}
}

// attributeComparison is a comparison with %[1]s standing for the attribute.
func (g *generator) attributeComparison(a attrSpec) string {
	switch a.kind {
	case kindInt:
		n := pick(g, a.ints)
		return pick(g, []string{"%[1]s >= " + fmt.Sprint(n), "%[1]s < " + fmt.Sprint(n), "%[1]s %% 2 == 0"})
	case kindBool:
		return pick(g, []string{"%[1]s", "!%[1]s", "%[1]s == true"})
	case kindVersion:
		v := pick(g, a.strings)
		return pick(g, []string{
			"%[1]s.compareTo(semver(" + fmt.Sprintf("%q", v) + ")) >= 0",
			"%[1]s.isLessThan(semver(" + fmt.Sprintf("%q", v) + "))",
		})
	default:
		v, w := pick(g, a.strings), pick(g, a.strings)
		return pick(g, []string{
			"%[1]s == " + fmt.Sprintf("%q", v),
			"%[1]s != " + fmt.Sprintf("%q", v),
			"%[1]s in [" + fmt.Sprintf("%q, %q", v, w) + "]",
			"%[1]s.startsWith(" + fmt.Sprintf("%q", v[:1]) + ")",
		})
	}
}

// runtimeErrorSelector accesses an attribute without has(): one that no
// device has (always fails when evaluated) or a schema attribute (fails on
// devices where MissingAttribute dropped it).
func (g *generator) runtimeErrorSelector(s *driverSchema) string {
	if g.chance(0.5) {
		return fmt.Sprintf("%s == %q", celAttribute(s.name, "nosuch"), "x")
	}
	a := pick(g, s.attrs)
	return fmt.Sprintf(g.attributeComparison(a), celAttribute(s.name, a.name))
}

// compileErrorSelector returns an expression that does not compile.
func (g *generator) compileErrorSelector(s *driverSchema) string {
	attr := celAttribute(s.name, pick(g, s.attrs).name)
	return pick(g, []string{
		attr + " ==",                    // syntax error
		"noSuchVariable == 1",           // undeclared reference
		"device.driver",                 // not a bool
		"device.noSuchField == " + `""`, // undefined field
		strings.Replace(attr, "device.", "devices.", 1) + " == 1",
	})
}
