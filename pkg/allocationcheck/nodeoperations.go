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

	"k8s.io/component-helpers/nodedeclaredfeatures/features/draoptionalnodeoperations"
)

// checkNodeOperations verifies rule 12 for every result entry.
//
// With OptionalNodeOperations (DRAOptionalNodeOperations), an entry's
// skipNodeOperations is a copy of its device's slice's (nil and empty
// alike), and a device whose slice skips operations is allocated only on a
// node whose status declares the DRAOptionalNodeOperations feature: an
// older kubelet would call the driver's NodePrepareResources anyway.
// Without the feature entries carry none, and the slices' lists do not
// matter (the API server drops them; upstream's incubating allocator
// ignores them).
func checkNodeOperations(c *checker) []error {
	var errs []error
	declared := c.node != nil && slices.Contains(c.node.Status.DeclaredFeatures, draoptionalnodeoperations.DRAOptionalNodeOperationsFeatureGate)
	for _, cv := range c.claims {
		for _, e := range cv.entries {
			if !c.features.OptionalNodeOperations {
				if len(e.res.SkipNodeOperations) > 0 {
					errs = append(errs, cv.entryViolation(CheckNodeOperations, e, "result #%d has skipNodeOperations %q, but the OptionalNodeOperations feature is disabled", e.index, e.res.SkipNodeOperations))
				}
				continue
			}
			if e.dev == nil {
				continue
			}
			skip := e.dev.slice.Spec.SkipNodeOperations
			if !slices.Equal(e.res.SkipNodeOperations, skip) {
				errs = append(errs, cv.entryViolation(CheckNodeOperations, e, "result #%d has skipNodeOperations %q, the device's slice %s has %q", e.index, e.res.SkipNodeOperations, e.dev.slice.Name, skip))
			}
			if len(skip) > 0 && !declared {
				errs = append(errs, cv.entryViolation(CheckNodeOperations, e, "the device's slice %s skips node operations %q, but node %s does not declare the %s feature", e.dev.slice.Name, skip, c.node.Name, draoptionalnodeoperations.DRAOptionalNodeOperationsFeatureGate))
			}
		}
	}
	return errs
}
