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

package allocatorfeatures_test

import (
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocatorfeatures"
)

func TestFromSchedulerMapsEachGateAsTheInTreePluginDoes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		gates func(*feature.Features)
		want  structured.Features
	}{
		{"no gate enables nothing", func(*feature.Features) {}, structured.Features{}},
		{"DRAAdminAccess enables AdminAccess", func(f *feature.Features) { f.EnableDRAAdminAccess = true }, structured.Features{AdminAccess: true}},
		{"DRAPrioritizedList enables PrioritizedList", func(f *feature.Features) { f.EnableDRAPrioritizedList = true }, structured.Features{PrioritizedList: true}},
		{"DRAPartitionableDevices enables PartitionableDevices", func(f *feature.Features) { f.EnableDRAPartitionableDevices = true }, structured.Features{PartitionableDevices: true}},
		{"DRADeviceTaints enables DeviceTaints", func(f *feature.Features) { f.EnableDRADeviceTaints = true }, structured.Features{DeviceTaints: true}},
		{"DRAConsumableCapacity enables ConsumableCapacity", func(f *feature.Features) { f.EnableDRAConsumableCapacity = true }, structured.Features{ConsumableCapacity: true}},
		{"DRAFractionalCapacityRange enables FractionalCapacityRange", func(f *feature.Features) { f.EnableDRAFractionalCapacityRange = true }, structured.Features{FractionalCapacityRange: true}},
		{"DRAListTypeAttributes enables ListTypeAttributes", func(f *feature.Features) { f.EnableDRAListTypeAttributes = true }, structured.Features{ListTypeAttributes: true}},
		{"DRAOptionalNodeOperations enables OptionalNodeOperations", func(f *feature.Features) { f.EnableDRAOptionalNodeOperations = true }, structured.Features{OptionalNodeOperations: true}},
		{"DRADerivedAttributes enables DerivedAttributes", func(f *feature.Features) { f.EnableDRADerivedAttributes = true }, structured.Features{DerivedAttributes: true}},
		{"DRADeviceCompatibilityGroups enables CompatibilityGroups", func(f *feature.Features) { f.EnableDRADeviceCompatibilityGroups = true }, structured.Features{CompatibilityGroups: true}},
		{"DRADeviceBindingConditions alone does not enable DeviceBindingAndStatus", func(f *feature.Features) { f.EnableDRADeviceBindingConditions = true }, structured.Features{}},
		{"DRAResourceClaimDeviceStatus alone does not enable DeviceBindingAndStatus", func(f *feature.Features) { f.EnableDRAResourceClaimDeviceStatus = true }, structured.Features{}},
		{"both binding gates enable DeviceBindingAndStatus", func(f *feature.Features) {
			f.EnableDRADeviceBindingConditions, f.EnableDRAResourceClaimDeviceStatus = true, true
		}, structured.Features{DeviceBindingAndStatus: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fts feature.Features
			tc.gates(&fts)
			if got := allocatorfeatures.FromScheduler(fts); got != tc.want {
				t.Errorf("FromScheduler = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestFromGatesTakesKubernetesDefaults(t *testing.T) {
	got := allocatorfeatures.FromGates(utilfeature.DefaultFeatureGate)
	// Beta or GA in 1.37, on by default.
	if !got.PrioritizedList || !got.PartitionableDevices || !got.DeviceTaints || !got.AdminAccess {
		t.Errorf("FromGates(defaults) = %+v, want the 1.37 defaults (prioritized list, partitionable devices, device taints, admin access)", got)
	}
}
