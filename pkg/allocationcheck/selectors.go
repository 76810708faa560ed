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
	"context"
	"errors"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
)

// selectorEvaluator compiles each CEL expression once per Check call and
// evaluates it against devices.
type selectorEvaluator struct {
	ctx      context.Context
	compiled map[string]cel.CompilationResult
}

func newSelectorEvaluator(ctx context.Context) *selectorEvaluator {
	return &selectorEvaluator{ctx: ctx, compiled: make(map[string]cel.CompilationResult)}
}

// matches evaluates one selector expression against a device.
func (s *selectorEvaluator) matches(expression string, d *device) (bool, error) {
	compiled, ok := s.compiled[expression]
	if !ok {
		compiled = cel.GetCompiler(cel.Features{EnableConsumableCapacity: true}).CompileCELExpression(expression, cel.Options{})
		s.compiled[expression] = compiled
	}
	if compiled.Error != nil {
		return false, fmt.Errorf("CEL compile error: %w", compiled.Error)
	}
	ok, _, err := compiled.DeviceMatches(s.ctx, cel.Device{
		Driver:                   d.id.driver,
		AllowMultipleAllocations: d.spec.AllowMultipleAllocations,
		Attributes:               d.spec.Attributes,
		Capacity:                 d.spec.Capacity,
	})
	if err != nil {
		return false, fmt.Errorf("CEL runtime error: %w", err)
	}
	return ok, nil
}

// errNoMatch tells that a device does not satisfy a selector.
var errNoMatch = errors.New("device does not match")

// matchSelectors checks the device against the class selectors and then the
// request's selectors, stopping at the first one that is not satisfied (so an
// expression that could not be evaluated on a device the class already rules
// out is not evaluated, as in upstream). It returns nil if all match, an error
// wrapping errNoMatch that names the failing selector, or an error that
// explains why a selector could not be evaluated.
func (c *checker) matchSelectors(r *request, d *device) error {
	class, err := c.class(r.className)
	if err != nil {
		return fmt.Errorf("class %q: %w", r.className, err)
	}
	for i, sel := range class.Spec.Selectors {
		if err := c.matchSelector(sel.CEL, d); err != nil {
			return fmt.Errorf("class %s, selector #%d: %w", class.Name, i, err)
		}
	}
	for i, sel := range r.selectors {
		if err := c.matchSelector(sel.CEL, d); err != nil {
			return fmt.Errorf("request selector #%d: %w", i, err)
		}
	}
	return nil
}

func (c *checker) matchSelector(sel *resourceapi.CELDeviceSelector, d *device) error {
	if sel == nil {
		return errors.New("not a CEL selector")
	}
	ok, err := c.cel.matches(sel.Expression, d)
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("%w: %q is false", errNoMatch, sel.Expression)
	}
	return nil
}
