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

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/draoptionalnodeoperations"
	"k8s.io/dynamic-resource-allocation/structured"

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
// not an error. Without the feature it depends on the allocator
// Kubernetes runs for the features: incubating (the 1.37 defaults) ignores
// the list, experimental (another alpha feature on) never takes such a
// device. An API server with the gate off drops the field anyway.

// skipsNodeOperations reports a device whose slice lists node operations
// to skip.
func skipsNodeOperations(d *inventory.Device) bool {
	return len(d.Slice.Obj.Spec.SkipNodeOperations) > 0
}

// nodeOperationsBlock reports a device that skips node operations and may
// not be taken on the call's node.
func (c *call) nodeOperationsBlock(d *inventory.Device) bool {
	switch {
	case !skipsNodeOperations(d):
		return false
	case c.a.features.OptionalNodeOperations:
		return !DeclaresOptionalNodeOperations(c.node)
	default:
		return upstreamRunsExperimental(c.a.features)
	}
}

// upstreamRunsExperimental reports whether Kubernetes runs upstream's
// experimental allocator for the features: when one of the alpha features
// only it implements is on.
func upstreamRunsExperimental(f structured.Features) bool {
	return f.ListTypeAttributes || f.OptionalNodeOperations || f.DerivedAttributes || f.CompatibilityGroups
}

// DeclaresOptionalNodeOperations reports whether the node's kubelet
// declares that it honours skipped node operations
// (DRAOptionalNodeOperations in status.declaredFeatures; nil: a node that
// declares nothing).
func DeclaresOptionalNodeOperations(node *v1.Node) bool {
	return node != nil && slices.Contains(node.Status.DeclaredFeatures, draoptionalnodeoperations.DRAOptionalNodeOperationsFeatureGate)
}
