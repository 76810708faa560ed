package allocator

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/draoptionalnodeoperations"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// Optional node operations (DRAOptionalNodeOperations, alpha in 1.37): a
// ResourceSlice may list node-local operations (NodePrepareResources,
// NodeUnprepareResources, "*") that the kubelet skips for its devices.
// With the OptionalNodeOperations feature such a device is a candidate
// only on a node whose status declares the DRAOptionalNodeOperations
// feature (an older kubelet would call the driver regardless), and its
// result carries the slice's list; on other nodes the search passes it
// over like a device in use, as upstream's experimental allocator does:
// not an error. Without the feature the list is ignored, as by upstream's
// incubating allocator, which Kubernetes runs then (an API server with the
// gate off drops the field anyway).

// skipsNodeOperations reports a device whose slice lists node operations
// to skip.
func skipsNodeOperations(d *inventory.Device) bool {
	return len(d.Slice.Obj.Spec.SkipNodeOperations) > 0
}

// nodeOperationsBlock reports a device that skips node operations, with
// the feature on, on a node that does not declare it honours them.
func (c *call) nodeOperationsBlock(d *inventory.Device) bool {
	return c.a.features.OptionalNodeOperations && skipsNodeOperations(d) && !declaresOptionalNodeOperations(c.node)
}

// declaresOptionalNodeOperations reports whether the node's kubelet
// declares that it honours skipped node operations (nil: a node that
// declares nothing).
func declaresOptionalNodeOperations(node *v1.Node) bool {
	return node != nil && slices.Contains(node.Status.DeclaredFeatures, draoptionalnodeoperations.DRAOptionalNodeOperationsFeatureGate)
}
