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
