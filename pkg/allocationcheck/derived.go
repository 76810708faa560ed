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

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
)

// constraintAttribute is the attribute a constraint compares for an
// entry: with DerivedAttributes (DRADerivedAttributes, alpha), the entry's
// request's derived attribute of that name, evaluated by CEL on the device
// — a request's derivation shadows the device's own attribute for that
// request only; otherwise the device's attribute. An error is a derived
// attribute that cannot be computed: upstream fails the claims then, so no
// allocation may rest on it.
func (c *checker) constraintAttribute(e *entry, name resourceapi.FullyQualifiedName) (resourceapi.DeviceAttribute, bool, error) {
	if c.features.DerivedAttributes && e.req != nil {
		for _, d := range e.req.derived {
			if d.Name != name {
				continue
			}
			compiled := c.derivedCEL().GetOrCompileDerivedAttribute(d.Expression)
			if compiled.Error != nil {
				return resourceapi.DeviceAttribute{}, false, fmt.Errorf("derived attribute %s does not compile: %w", name, compiled.Error)
			}
			attr, _, err := compiled.EvaluateDerivedAttribute(c.ctx, cel.Device{
				Driver:                   e.dev.id.driver,
				AllowMultipleAllocations: e.dev.spec.AllowMultipleAllocations,
				Attributes:               e.dev.spec.Attributes,
				Capacity:                 e.dev.spec.Capacity,
			})
			if err != nil {
				return resourceapi.DeviceAttribute{}, false, fmt.Errorf("derived attribute %s cannot be evaluated on the device: %w", name, err)
			}
			if attr == nil {
				return resourceapi.DeviceAttribute{}, false, nil
			}
			return *attr, true, nil
		}
	}
	a, ok := lookupAttribute(e.dev, name)
	return a, ok, nil
}

// derivedCEL is the CEL cache for derived attributes, made on first use.
func (c *checker) derivedCEL() *cel.Cache {
	if c.derived == nil {
		c.derived = cel.NewCache(10, cel.Features{EnableConsumableCapacity: true, EnableListTypeAttributes: true})
	}
	return c.derived
}
