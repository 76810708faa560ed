package allocationcheck

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
)

// checkConstraints verifies rule 5 for every constraint of every claim. The
// devices subject to a constraint are those of the requests it names (by
// request name or by "<request>/<subrequest>"), or all devices of the claim
// if it names none.
//
//   - matchAttribute: every subject device has the attribute, all with the
//     same type and value.
//   - distinctAttribute: every subject device has the attribute, no two with
//     the same type and value. A multi-allocatable device that is allocated
//     twice collides with itself.
//
// Values compare by type and value; versions compare as strings, as upstream
// does. Without ListTypeAttributes list-typed attributes compare as whole
// lists. With it (DRAListTypeAttributes, alpha) values are sets — a scalar
// a set of one, an empty list no value at all — of one kind (int, bool,
// string, version): matchAttribute needs an element every subject device
// has, distinctAttribute devices with no element in common (values of
// different kinds have none).
func checkConstraints(c *checker) []error {
	var errs []error
	for _, cv := range c.claims {
		for i, con := range cv.claim.Spec.Devices.Constraints {
			subjects := constraintSubjects(cv, con.Requests)
			switch {
			case con.MatchAttribute != nil && c.features.ListTypeAttributes:
				errs = append(errs, c.checkMatchAttributeSets(cv, i, *con.MatchAttribute, subjects)...)
			case con.MatchAttribute != nil:
				errs = append(errs, c.checkMatchAttribute(cv, i, *con.MatchAttribute, subjects)...)
			case con.DistinctAttribute != nil && c.features.ListTypeAttributes:
				errs = append(errs, c.checkDistinctAttributeSets(cv, i, *con.DistinctAttribute, subjects)...)
			case con.DistinctAttribute != nil:
				errs = append(errs, c.checkDistinctAttribute(cv, i, *con.DistinctAttribute, subjects)...)
			default:
				errs = append(errs, cv.violation(CheckConstraints, "", "", "constraint #%d is empty (unsupported constraint type?)", i))
			}
		}
	}
	return errs
}

func constraintSubjects(cv *claimView, requests []string) []*entry {
	var out []*entry
	for _, e := range cv.usable() {
		if len(requests) == 0 || slices.Contains(requests, e.req.base) || slices.Contains(requests, e.req.name) {
			out = append(out, e)
		}
	}
	return out
}

func (c *checker) checkMatchAttribute(cv *claimView, index int, name resourceapi.FullyQualifiedName, subjects []*entry) []error {
	var errs []error
	var first *entry
	var firstValue attrValue
	for _, e := range subjects {
		a, ok, err := c.constraintAttribute(e, name)
		if err != nil {
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (matchAttribute %s): %v", index, name, err))
			continue
		}
		v := valueOf(a)
		if !ok {
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (matchAttribute %s): device has no such attribute", index, name))
			continue
		}
		if first == nil {
			first, firstValue = e, v
			continue
		}
		if !v.equal(firstValue) {
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (matchAttribute %s): value %s differs from %s of device %s",
				index, name, v, firstValue, first.id))
		}
	}
	return errs
}

func (c *checker) checkDistinctAttribute(cv *claimView, index int, name resourceapi.FullyQualifiedName, subjects []*entry) []error {
	var errs []error
	var seen []*entry
	var values []attrValue
	for _, e := range subjects {
		a, ok, err := c.constraintAttribute(e, name)
		if err != nil {
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (distinctAttribute %s): %v", index, name, err))
			continue
		}
		v := valueOf(a)
		if !ok {
			errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (distinctAttribute %s): device has no such attribute", index, name))
			continue
		}
		for j, other := range values {
			if v.equal(other) {
				errs = append(errs, cv.entryViolation(CheckConstraints, e, "constraint #%d (distinctAttribute %s): value %s is also the value of device %s (result #%d)",
					index, name, v, seen[j].id, seen[j].index))
				break
			}
		}
		seen, values = append(seen, e), append(values, v)
	}
	return errs
}

// lookupAttribute finds a fully qualified attribute on a device: under the
// exact name, or — when the domain is the device's driver — under the name
// without the domain.
func lookupAttribute(d *device, name resourceapi.FullyQualifiedName) (resourceapi.DeviceAttribute, bool) {
	if a, ok := d.spec.Attributes[resourceapi.QualifiedName(name)]; ok {
		return a, true
	}
	domain, id, found := strings.Cut(string(name), "/")
	if found && domain == d.id.driver {
		if a, ok := d.spec.Attributes[resourceapi.QualifiedName(id)]; ok {
			return a, true
		}
	}
	return resourceapi.DeviceAttribute{}, false
}

// attrValue is an attribute value with its type.
type attrValue struct {
	kind  string
	value any
}

func valueOf(a resourceapi.DeviceAttribute) attrValue {
	switch {
	case a.IntValue != nil:
		return attrValue{"int", *a.IntValue}
	case a.BoolValue != nil:
		return attrValue{"bool", *a.BoolValue}
	case a.StringValue != nil:
		return attrValue{"string", *a.StringValue}
	case a.VersionValue != nil:
		return attrValue{"version", *a.VersionValue}
	case a.IntValues != nil:
		return attrValue{"ints", a.IntValues}
	case a.BoolValues != nil:
		return attrValue{"bools", a.BoolValues}
	case a.StringValues != nil:
		return attrValue{"strings", a.StringValues}
	case a.VersionValues != nil:
		return attrValue{"versions", a.VersionValues}
	}
	return attrValue{kind: "none"}
}

func (v attrValue) equal(o attrValue) bool {
	return v.kind != "none" && v.kind == o.kind && reflect.DeepEqual(v.value, o.value)
}

func (v attrValue) String() string { return fmt.Sprintf("%s %v", v.kind, v.value) }
