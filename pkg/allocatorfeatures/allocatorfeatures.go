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

// Package allocatorfeatures maps feature gates to the allocator's
// features (structured.Features) exactly as kube-scheduler's in-tree
// DynamicResources plugin does, so that the scheduler plugin and the tools
// that explain its decisions (kubectl-dra) allocate under the same rules,
// and names the gates of in-tree features DRAAllocator does not implement
// yet (Unsupported), which both refuse rather than silently differ.
package allocatorfeatures

import (
	"k8s.io/component-base/featuregate"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// FromScheduler maps the scheduler's features to the allocator's.
func FromScheduler(fts feature.Features) structured.Features {
	return structured.Features{
		AdminAccess:             fts.EnableDRAAdminAccess,
		PrioritizedList:         fts.EnableDRAPrioritizedList,
		PartitionableDevices:    fts.EnableDRAPartitionableDevices,
		DeviceTaints:            fts.EnableDRADeviceTaints,
		DeviceBindingAndStatus:  fts.EnableDRADeviceBindingConditions && fts.EnableDRAResourceClaimDeviceStatus,
		ConsumableCapacity:      fts.EnableDRAConsumableCapacity,
		FractionalCapacityRange: fts.EnableDRAFractionalCapacityRange,
		ListTypeAttributes:      fts.EnableDRAListTypeAttributes,
		OptionalNodeOperations:  fts.EnableDRAOptionalNodeOperations,
		DerivedAttributes:       fts.EnableDRADerivedAttributes,
		CompatibilityGroups:     fts.EnableDRADeviceCompatibilityGroups,
	}
}

// FromGates maps feature gates (kube-scheduler's --feature-gates) to the
// allocator's features.
func FromGates(gates featuregate.FeatureGate) structured.Features {
	return FromScheduler(feature.NewSchedulerFeaturesFromGates(gates))
}
