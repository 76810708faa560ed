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
			j := &constraintJudge{c: c, cv: cv, index: i}
			var judge func(*constraintJudge, []*entry)
			switch sets := c.features.ListTypeAttributes; {
			case con.MatchAttribute != nil:
				j.kind, j.name, judge = "matchAttribute", *con.MatchAttribute, (*constraintJudge).match
				if sets {
					judge = (*constraintJudge).matchSets
				}
			case con.DistinctAttribute != nil:
				j.kind, j.name, judge = "distinctAttribute", *con.DistinctAttribute, (*constraintJudge).distinct
				if sets {
					judge = (*constraintJudge).distinctSets
				}
			default:
				errs = append(errs, cv.violation(CheckConstraints, "", "", "constraint #%d is empty (unsupported constraint type?)", i))
				continue
			}
			judge(j, constraintSubjects(cv, con.Requests))
			errs = append(errs, j.errs...)
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

// constraintJudge judges one constraint of one claim over its subject
// devices, collecting the violations it finds.
type constraintJudge struct {
	c     *checker
	cv    *claimView
	index int
	// kind is the constraint's field, as violations name it.
	kind string
	name resourceapi.FullyQualifiedName
	errs []error
}

// violation records that device entry e breaks the constraint.
func (j *constraintJudge) violation(e *entry, format string, args ...any) {
	prefix := fmt.Sprintf("constraint #%d (%s %s): ", j.index, j.kind, j.name)
	j.errs = append(j.errs, j.cv.entryViolation(CheckConstraints, e, "%s", prefix+fmt.Sprintf(format, args...)))
}

// attribute is the compared attribute of entry e; ok is false, with the
// violation recorded, when it has none or it cannot be computed.
func (j *constraintJudge) attribute(e *entry) (_ resourceapi.DeviceAttribute, ok bool) {
	a, found, err := j.c.constraintAttribute(e, j.name)
	switch {
	case err != nil:
		j.violation(e, "%v", err)
		return a, false
	case !found:
		j.violation(e, "device has no such attribute")
		return a, false
	}
	return a, true
}

// elements is the compared attribute of entry e as a set (see elements);
// nil, with the violation recorded, when it has none or holds no value.
func (j *constraintJudge) elements(e *entry) map[string]bool {
	a, ok := j.attribute(e)
	if !ok {
		return nil
	}
	set := elements(a)
	if set == nil {
		j.violation(e, "the attribute holds no value")
	}
	return set
}

// match: every subject device has the first one's value.
func (j *constraintJudge) match(subjects []*entry) {
	var first *entry
	var firstValue attrValue
	for _, e := range subjects {
		a, ok := j.attribute(e)
		if !ok {
			continue
		}
		v := valueOf(a)
		if first == nil {
			first, firstValue = e, v
			continue
		}
		if !v.equal(firstValue) {
			j.violation(e, "value %s differs from %s of device %s", v, firstValue, first.id)
		}
	}
}

// distinct: no two subject devices have the same value.
func (j *constraintJudge) distinct(subjects []*entry) {
	var seen []*entry
	var values []attrValue
	for _, e := range subjects {
		a, ok := j.attribute(e)
		if !ok {
			continue
		}
		v := valueOf(a)
		for k, other := range values {
			if v.equal(other) {
				j.violation(e, "value %s is also the value of device %s (result #%d)", v, seen[k].id, seen[k].index)
				break
			}
		}
		seen, values = append(seen, e), append(values, v)
	}
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
