package draallocator

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/draoptionalnodeoperations"
)

// Optional node operations (DRAOptionalNodeOperations): an allocation
// whose devices skip node operations (NodePrepareResources, ...) is usable
// only on a node whose status declares the feature, as the in-tree plugin
// checks for an allocated claim in Filter whatever the scheduler's gates
// (the allocator applies the same rule to the devices it picks, with the
// gate on).

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

// declaresOptionalNodeOperations reports whether the node's kubelet
// declares that it honours skipped node operations.
func declaresOptionalNodeOperations(node *v1.Node) bool {
	return slices.Contains(node.Status.DeclaredFeatures, draoptionalnodeoperations.DRAOptionalNodeOperationsFeatureGate)
}
