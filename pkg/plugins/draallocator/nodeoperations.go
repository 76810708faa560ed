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

package draallocator

import (
	resourceapi "k8s.io/api/resource/v1"
)

// Optional node operations (DRAOptionalNodeOperations): an allocation
// whose devices skip node operations (NodePrepareResources, ...) is usable
// only on a node whose status declares the feature, as the in-tree plugin
// checks for an allocated claim in Filter whatever the scheduler's gates
// (the allocator applies the same rule to the devices it picks, with the
// gate on; allocator.DeclaresOptionalNodeOperations is the node side of
// both).

// skipsNodeOperations reports an allocation with a device that skips
// node operations.
func skipsNodeOperations(alloc *resourceapi.AllocationResult) bool {
	if alloc == nil {
		return false
	}
	for i := range alloc.Devices.Results {
		if len(alloc.Devices.Results[i].SkipNodeOperations) > 0 {
			return true
		}
	}
	return false
}
