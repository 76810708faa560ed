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

package v1

import (
	"time"

	"k8s.io/utils/ptr"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// DefaultFilterTimeout is the default filterTimeout, the same as the
	// in-tree DynamicResources plugin
	// (k8s.io/kube-scheduler/config/v1.DynamicResourcesFilterTimeoutDefault).
	DefaultFilterTimeout = 10 * time.Second
	// DefaultBindingTimeout is the default bindingTimeout, the same as the
	// in-tree DynamicResources plugin
	// (k8s.io/kube-scheduler/config/v1.DynamicResourcesBindingTimeoutDefault).
	DefaultBindingTimeout = 600 * time.Second
	// DefaultScoringStrategyType is the default scoringStrategy.type.
	DefaultScoringStrategyType = FirstAvailable
	// DefaultDeviceSelectionPolicy is the default deviceSelectionPolicy.
	DefaultDeviceSelectionPolicy = FirstFit
	// DefaultPreemption is the default preemption.
	DefaultPreemption = PreemptionEnabled
	// DefaultPlacementScoring is the default placementScoring.
	DefaultPlacementScoring = PlacementMostAllocated
	// DefaultMaxPlacements is the default maxPlacements.
	DefaultMaxPlacements int32 = 10
	// DefaultConsistencyCheckInterval is the default
	// consistencyCheckInterval.
	DefaultConsistencyCheckInterval = time.Minute
)

// renamedPlacementScoring returns the name now of a placementScoring
// value before 0.1.0, the node scoring strategies' word: defaulting
// renames them, so configurations written for them keep working and every
// defaulted object holds a current name. ok is false for any other value.
func renamedPlacementScoring(old PlacementScoringType) (_ PlacementScoringType, ok bool) {
	switch old {
	case placementPacking:
		return PlacementMostAllocated, true
	case placementSpreading:
		return PlacementLeastAllocated, true
	}
	return old, false
}

// SetDefaults_DRAAllocatorArgs fills every nil field of obj with its
// default. Fields that are set, including explicit zero values, are kept,
// except a placementScoring of an old name, which is renamed.
func SetDefaults_DRAAllocatorArgs(obj *DRAAllocatorArgs) {
	if obj.FilterTimeout == nil {
		obj.FilterTimeout = &metav1.Duration{Duration: DefaultFilterTimeout}
	}
	if obj.BindingTimeout == nil {
		obj.BindingTimeout = &metav1.Duration{Duration: DefaultBindingTimeout}
	}
	if obj.ScoringStrategy == nil {
		obj.ScoringStrategy = &ScoringStrategy{}
	}
	if obj.ScoringStrategy.Type == nil {
		t := DefaultScoringStrategyType
		obj.ScoringStrategy.Type = &t
	}
	if obj.DeviceSelectionPolicy == nil {
		p := DefaultDeviceSelectionPolicy
		obj.DeviceSelectionPolicy = &p
	}
	if obj.Preemption == nil {
		p := DefaultPreemption
		obj.Preemption = &p
	}
	if obj.PlacementScoring == nil {
		p := DefaultPlacementScoring
		obj.PlacementScoring = &p
	}
	if renamed, ok := renamedPlacementScoring(*obj.PlacementScoring); ok {
		obj.PlacementScoring = &renamed
	}
	if obj.MaxPlacements == nil {
		obj.MaxPlacements = ptr.To(DefaultMaxPlacements)
	}
	if obj.GroupPlanTimeout == nil {
		obj.GroupPlanTimeout = &metav1.Duration{}
	}
	if obj.ConsistencyCheckInterval == nil {
		obj.ConsistencyCheckInterval = &metav1.Duration{Duration: DefaultConsistencyCheckInterval}
	}
}
