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
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Derived attributes (DRADerivedAttributes, alpha): with the
// DerivedAttributes feature a request (or subrequest) may define attributes
// computed by CEL from each candidate device. Only constraints see them:
// for devices taken by that request, a constraint on the attribute's name
// reads the derived value instead of the device's own attribute of that
// name, if any; other requests under the same constraint read the device's
// own. Values are computed when a constraint first needs them — after the
// device passed the selectors, taints and counters — once per (device,
// expression) and call; a compile or evaluation error fails the claims with
// upstream's message. Without the feature such a request is an error
// (validate). This is upstream's experimental allocator's rule.

// attributeSource looks up the attribute a constraint compares.
type attributeSource interface {
	// attribute returns the attribute name of device d as seen by request
	// r; found is false when d has none.
	attribute(r *request, d *inventory.Device, name resourceapi.FullyQualifiedName) (attr resourceapi.DeviceAttribute, found bool, err error)
}

// derivedKey identifies one derived value within a call.
type derivedKey struct {
	device int
	expr   string
}

// derivedValue is an evaluated derived attribute.
type derivedValue struct {
	attr  resourceapi.DeviceAttribute
	found bool
}

func (c *call) attribute(r *request, d *inventory.Device, name resourceapi.FullyQualifiedName) (resourceapi.DeviceAttribute, bool, error) {
	expr, derived := r.derived[name]
	if !derived {
		attr, found := lookupAttribute(d, name)
		return attr, found, nil
	}
	key := derivedKey{device: d.Index, expr: expr}
	if v, ok := c.derived[key]; ok {
		return v.attr, v.found, nil
	}
	compiled := c.a.matcher.cache.GetOrCompileDerivedAttribute(expr)
	if compiled.Error != nil {
		return resourceapi.DeviceAttribute{}, false, fmt.Errorf("compile derived attribute %s failed: %w", name, compiled.Error)
	}
	attr, _, err := compiled.EvaluateDerivedAttribute(c.ctx, cel.Device{
		Driver:                   d.Driver,
		AllowMultipleAllocations: d.Spec.AllowMultipleAllocations,
		Attributes:               d.Spec.Attributes,
		Capacity:                 d.Spec.Capacity,
	})
	if err != nil {
		return resourceapi.DeviceAttribute{}, false, fmt.Errorf("evaluate derived attribute %s on device %s failed: %w", name, d.ID(), err)
	}
	v := derivedValue{found: attr != nil}
	if attr != nil {
		v.attr = *attr
	}
	if c.derived == nil {
		c.derived = map[derivedKey]derivedValue{}
	}
	c.derived[key] = v
	return v.attr, v.found, nil
}

// derivedAttributes returns a request's derived attributes by name (nil
// for none).
func derivedAttributes(list []resourceapi.DeviceDerivedAttribute) map[resourceapi.FullyQualifiedName]string {
	if len(list) == 0 {
		return nil
	}
	out := make(map[resourceapi.FullyQualifiedName]string, len(list))
	for _, d := range list {
		out[d.Name] = d.Expression
	}
	return out
}
