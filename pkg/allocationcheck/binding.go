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
	"slices"
)

// checkBindingConditions verifies rule 9 for every result entry.
//
// With DeviceBindingAndStatus, the entry's bindingConditions and
// bindingFailureConditions are copies of the device's (order included, nil
// and empty alike). Without it, devices with binding conditions cannot be
// allocated and entries carry no conditions.
func checkBindingConditions(c *checker) []error {
	var errs []error
	for _, cv := range c.claims {
		for _, e := range cv.entries {
			if e.dev == nil {
				continue
			}
			spec := e.dev.spec
			if !c.features.DeviceBindingAndStatus {
				if len(spec.BindingConditions) > 0 {
					errs = append(errs, cv.entryViolation(CheckBinding, e, "device has binding conditions, but the DeviceBindingAndStatus feature is disabled"))
				}
				if len(e.res.BindingConditions) > 0 || len(e.res.BindingFailureConditions) > 0 {
					errs = append(errs, cv.entryViolation(CheckBinding, e, "result #%d has binding conditions, but the DeviceBindingAndStatus feature is disabled", e.index))
				}
				continue
			}
			if !slices.Equal(e.res.BindingConditions, spec.BindingConditions) {
				errs = append(errs, cv.entryViolation(CheckBinding, e, "result #%d has bindingConditions %q, the device has %q", e.index, e.res.BindingConditions, spec.BindingConditions))
			}
			if !slices.Equal(e.res.BindingFailureConditions, spec.BindingFailureConditions) {
				errs = append(errs, cv.entryViolation(CheckBinding, e, "result #%d has bindingFailureConditions %q, the device has %q", e.index, e.res.BindingFailureConditions, spec.BindingFailureConditions))
			}
		}
	}
	return errs
}
