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

package config

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DRAAllocatorArgs holds the arguments used to configure the DRAAllocator
// plugin. Values of this type are always fully defaulted.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type DRAAllocatorArgs struct {
	metav1.TypeMeta

	// FilterTimeout limits the time Filter may spend on one node; 0 disables the limit.
	FilterTimeout metav1.Duration
	// BindingTimeout limits how long PreBind waits for device binding conditions.
	BindingTimeout metav1.Duration
	// ScoringStrategy chooses how nodes are ranked.
	ScoringStrategy ScoringStrategy
	// DeviceSelectionPolicy chooses which devices are picked on a node.
	DeviceSelectionPolicy DeviceSelectionPolicy
	// Preemption says whether the plugin takes part in kube-scheduler's
	// preemption, so that a pod may get devices that lower-priority pods
	// hold.
	Preemption PreemptionMode
	// PlacementScoring chooses how the plugin ranks the placements
	// (topology domains) a pod group may go to, by their devices.
	PlacementScoring PlacementScoringType
	// MaxPlacements bounds the placements the plugin generates for a pod
	// group with a topology constraint on its first attempt: the domains
	// that may fit which PlacementScoring ranks first by the devices in
	// use. After a failed attempt, or when 0, every domain that may fit.
	MaxPlacements int32
	// GroupPlanTimeout limits the time one pod-group cycle may spend
	// planning the group's devices, over all its placements; 0 uses
	// FilterTimeout.
	GroupPlanTimeout metav1.Duration
	// ConsistencyCheckInterval is how often the plugin compares its
	// long-lived state (inventory, tracker of allocated and in-flight
	// devices) with the API's objects; 0 checks only on SIGUSR2.
	ConsistencyCheckInterval metav1.Duration
}

// ScoringStrategy selects how the plugin scores nodes.
type ScoringStrategy struct {
	// Type is the scoring strategy to use.
	Type ScoringStrategyType
}

// ScoringStrategyType names a node scoring strategy.
type ScoringStrategyType string

const (
	// FirstAvailable ranks nodes by the firstAvailable alternatives
	// chosen there (earlier alternatives score higher), as the in-tree
	// DynamicResources plugin does; nodes are otherwise equal.
	FirstAvailable ScoringStrategyType = "FirstAvailable"
	// MostAllocated favours nodes whose devices are already heavily used
	// (bin packing).
	MostAllocated ScoringStrategyType = "MostAllocated"
	// LeastAllocated favours nodes whose devices are least used (spreading).
	LeastAllocated ScoringStrategyType = "LeastAllocated"
)

// ScoringStrategyTypes lists every supported ScoringStrategyType, sorted.
func ScoringStrategyTypes() []ScoringStrategyType {
	return []ScoringStrategyType{FirstAvailable, LeastAllocated, MostAllocated}
}

// DeviceSelectionPolicy names how devices are chosen on a node.
type DeviceSelectionPolicy string

const (
	// FirstFit picks the first devices that satisfy a request.
	FirstFit DeviceSelectionPolicy = "FirstFit"
	// Packing prefers devices that leave the fewest fragmented leftovers.
	Packing DeviceSelectionPolicy = "Packing"
)

// DeviceSelectionPolicies lists every supported DeviceSelectionPolicy, sorted.
func DeviceSelectionPolicies() []DeviceSelectionPolicy {
	return []DeviceSelectionPolicy{FirstFit, Packing}
}

// PreemptionMode says whether the plugin takes part in preemption.
type PreemptionMode string

const (
	// PreemptionEnabled: preemption dry runs see the devices victims'
	// claims free, Filter tells nodes where preemption may help from
	// hopeless ones, and a nominated pod keeps the devices it freed.
	PreemptionEnabled PreemptionMode = "Enabled"
	// PreemptionDisabled: devices are invisible to preemption, as with
	// the in-tree DynamicResources plugin of Kubernetes 1.37.
	PreemptionDisabled PreemptionMode = "Disabled"
)

// PlacementScoringType names how placements are ranked by their devices.
type PlacementScoringType string

const (
	// PlacementMostAllocated favours the placement whose devices are most
	// used once the group has its devices, as MostAllocated does nodes:
	// partly used domains fill first and whole domains stay free for
	// bigger groups.
	PlacementMostAllocated PlacementScoringType = "MostAllocated"
	// PlacementLeastAllocated favours the placement whose devices are
	// least used once the group has its devices, as LeastAllocated does
	// nodes.
	PlacementLeastAllocated PlacementScoringType = "LeastAllocated"
)

// PlacementScoringTypes lists every supported PlacementScoringType, sorted.
func PlacementScoringTypes() []PlacementScoringType {
	return []PlacementScoringType{PlacementLeastAllocated, PlacementMostAllocated}
}

// PreemptionModes lists every supported PreemptionMode, sorted.
func PreemptionModes() []PreemptionMode {
	return []PreemptionMode{PreemptionDisabled, PreemptionEnabled}
}
