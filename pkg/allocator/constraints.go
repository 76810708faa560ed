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
	"slices"
	"strings"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// constraint is a claim constraint tracked while devices are added and
// removed, last in first out (§5.3).
type constraint interface {
	// add reports whether device d, taken by request r, may join; it is
	// recorded if so. attrs looks up the attribute compared; its error
	// (a derived attribute's) fails the claims.
	add(attrs attributeSource, r *request, d *inventory.Device) (bool, error)
	// remove forgets the device added last.
	remove(r *request, d *inventory.Device)
	// covers reports whether a device taken by r is subject to it.
	covers(r *request) bool
}

// subjects is the request list of a constraint; empty means all requests.
type subjects []string

// covers reports whether a device for request base (subrequest sub) is
// subject to the constraint.
func (s subjects) covers(base, sub string) bool {
	if len(s) == 0 {
		return true
	}
	if slices.Contains(s, base) {
		return true
	}
	return sub != "" && slices.Contains(s, base+"/"+sub)
}

// compared is what every constraint has: the requests it covers and the
// attribute it compares. A claim's constraint names requests of its
// claim; one across claims (crossclaim.go) has across instead.
type compared struct {
	requests subjects
	across   *crossSubjects
	name     resourceapi.FullyQualifiedName
}

// covers reports whether a device taken by request r is subject to the
// constraint.
func (c *compared) covers(r *request) bool {
	if c.across != nil {
		return c.across.covers(r)
	}
	return c.requests.covers(r.base, r.sub)
}

// attribute is the compared attribute of device d taken by request r.
// found is false when the device lacks it (it may not join); err is a
// derived attribute's failure.
func (c *compared) attribute(attrs attributeSource, r *request, d *inventory.Device) (_ resourceapi.DeviceAttribute, found bool, err error) {
	return attrs.attribute(r, d, c.name)
}

// lookupAttribute finds a fully qualified attribute on a device: by the
// full name, or by the short name when the domain is the device's driver.
func lookupAttribute(d *inventory.Device, name resourceapi.FullyQualifiedName) (resourceapi.DeviceAttribute, bool) {
	if a, ok := d.Spec.Attributes[resourceapi.QualifiedName(name)]; ok {
		return a, true
	}
	domain, id, found := strings.Cut(string(name), "/")
	if !found || domain != d.Driver {
		return resourceapi.DeviceAttribute{}, false
	}
	a, ok := d.Spec.Attributes[resourceapi.QualifiedName(id)]
	return a, ok
}

// sameScalar reports whether a and b hold the same kind of scalar with the
// same value. ok is false when a holds no scalar this allocator knows.
func sameScalar(a, b *resourceapi.DeviceAttribute) (same, ok bool) {
	switch {
	case a.StringValue != nil:
		return b.StringValue != nil && *a.StringValue == *b.StringValue, true
	case a.IntValue != nil:
		return b.IntValue != nil && *a.IntValue == *b.IntValue, true
	case a.BoolValue != nil:
		return b.BoolValue != nil && *a.BoolValue == *b.BoolValue, true
	case a.VersionValue != nil:
		return b.VersionValue != nil && *a.VersionValue == *b.VersionValue, true
	}
	return false, false
}

// matchConstraint: all subject devices share one attribute value. The
// first device's value is remembered until the count drops to zero.
type matchConstraint struct {
	compared
	value resourceapi.DeviceAttribute
	n     int
}

func (m *matchConstraint) add(attrs attributeSource, r *request, d *inventory.Device) (bool, error) {
	if !m.covers(r) {
		return true, nil
	}
	attr, found, err := m.attribute(attrs, r, d)
	if err != nil || !found {
		return false, err
	}
	if m.n == 0 {
		m.value, m.n = attr, 1
		return true, nil
	}
	if same, _ := sameScalar(&attr, &m.value); !same {
		return false, nil
	}
	m.n++
	return true, nil
}

func (m *matchConstraint) remove(r *request, _ *inventory.Device) {
	if m.covers(r) {
		m.n--
	}
}

// distinctConstraint: no two subject devices share the attribute's value.
type distinctConstraint struct {
	compared
	values []resourceapi.DeviceAttribute
}

func (m *distinctConstraint) add(attrs attributeSource, r *request, d *inventory.Device) (bool, error) {
	if !m.covers(r) {
		return true, nil
	}
	attr, found, err := m.attribute(attrs, r, d)
	if err != nil || !found {
		return false, err
	}
	for i := range m.values {
		same, ok := sameScalar(&attr, &m.values[i])
		if !ok || same {
			return false, nil
		}
	}
	m.values = append(m.values, attr)
	return true, nil
}

func (m *distinctConstraint) remove(r *request, _ *inventory.Device) {
	if m.covers(r) {
		m.values = m.values[:len(m.values)-1]
	}
}
