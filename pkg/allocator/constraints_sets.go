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
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// List-typed attributes (DRAListTypeAttributes, alpha): with the
// ListTypeAttributes feature an attribute may hold a list (ints, bools,
// strings, versions), and constraints compare values as sets — a scalar is
// a set of one. matchAttribute needs a common element across all devices
// (a running intersection, restored on backtracking), distinctAttribute
// pairwise disjoint sets. Values of different kinds never intersect
// (strings and versions included); an attribute without a value (an empty
// list, no field) never joins. This is upstream's experimental allocator's
// rule; without the feature the scalar constraints of constraints.go apply.

// valueSet is an attribute's values as a set of one kind; nil is an
// attribute without a usable value.
type valueSet struct {
	kind valueKind
	// ints holds int values, bools bool values, strs string or version
	// values (kind tells which).
	ints  sets.Set[int64]
	bools sets.Set[bool]
	strs  sets.Set[string]
}

// valueKind is the kind of a valueSet's elements.
type valueKind uint8

const (
	intKind valueKind = iota + 1
	boolKind
	stringKind
	versionKind
)

// attributeSet returns the attribute's values as a set: a non-empty list
// first, in upstream's order of kinds, then a scalar; nil for neither.
func attributeSet(a *resourceapi.DeviceAttribute) *valueSet {
	switch {
	case len(a.IntValues) > 0:
		return &valueSet{kind: intKind, ints: sets.New(a.IntValues...)}
	case len(a.BoolValues) > 0:
		return &valueSet{kind: boolKind, bools: sets.New(a.BoolValues...)}
	case len(a.StringValues) > 0:
		return &valueSet{kind: stringKind, strs: sets.New(a.StringValues...)}
	case len(a.VersionValues) > 0:
		return &valueSet{kind: versionKind, strs: sets.New(a.VersionValues...)}
	case a.IntValue != nil:
		return &valueSet{kind: intKind, ints: sets.New(*a.IntValue)}
	case a.BoolValue != nil:
		return &valueSet{kind: boolKind, bools: sets.New(*a.BoolValue)}
	case a.StringValue != nil:
		return &valueSet{kind: stringKind, strs: sets.New(*a.StringValue)}
	case a.VersionValue != nil:
		return &valueSet{kind: versionKind, strs: sets.New(*a.VersionValue)}
	}
	return nil
}

// attributeSet is the compared attribute of device d taken by request r as
// a set; nil when the device lacks it or it has no value (it may not join).
func (c *compared) attributeSet(attrs attributeSource, r *request, d *inventory.Device) (*valueSet, error) {
	attr, found, err := c.attribute(attrs, r, d)
	if err != nil || !found {
		return nil, err
	}
	return attributeSet(&attr), nil
}

// intersect returns the common elements of s and o, or nil when there are
// none or their kinds differ.
func (s *valueSet) intersect(o *valueSet) *valueSet {
	if s.kind != o.kind {
		return nil
	}
	out := &valueSet{kind: s.kind}
	var n int
	switch s.kind {
	case intKind:
		out.ints = s.ints.Intersection(o.ints)
		n = out.ints.Len()
	case boolKind:
		out.bools = s.bools.Intersection(o.bools)
		n = out.bools.Len()
	default:
		out.strs = s.strs.Intersection(o.strs)
		n = out.strs.Len()
	}
	if n == 0 {
		return nil
	}
	return out
}

// matchSetConstraint is matchAttribute with set semantics: the devices'
// values have a common element. common[k] is the intersection of the
// first k+1 devices' values.
type matchSetConstraint struct {
	compared
	common []*valueSet
}

func (m *matchSetConstraint) add(attrs attributeSource, r *request, d *inventory.Device) (bool, error) {
	if !m.covers(r) {
		return true, nil
	}
	values, err := m.attributeSet(attrs, r, d)
	if values == nil {
		return false, err
	}
	if len(m.common) > 0 {
		if values = m.common[len(m.common)-1].intersect(values); values == nil {
			return false, nil
		}
	}
	m.common = append(m.common, values)
	return true, nil
}

func (m *matchSetConstraint) remove(r *request, _ *inventory.Device) {
	if m.covers(r) {
		m.common = m.common[:len(m.common)-1]
	}
}

// distinctSetConstraint is distinctAttribute with set semantics: no two
// devices' values have an element in common.
type distinctSetConstraint struct {
	compared
	// values are the members' sets; nil for a member without one (only
	// possible for none: such a device never joins).
	values []*valueSet
}

func (m *distinctSetConstraint) add(attrs attributeSource, r *request, d *inventory.Device) (bool, error) {
	if !m.covers(r) {
		return true, nil
	}
	values, err := m.attributeSet(attrs, r, d)
	if values == nil {
		return false, err
	}
	for _, other := range m.values {
		if values.intersect(other) != nil {
			return false, nil
		}
	}
	m.values = append(m.values, values)
	return true, nil
}

func (m *distinctSetConstraint) remove(r *request, _ *inventory.Device) {
	if m.covers(r) {
		m.values = m.values[:len(m.values)-1]
	}
}
