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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DRAAllocatorArgs holds the arguments used to configure the DRAAllocator
// plugin, as written in the args block of a KubeSchedulerConfiguration
// pluginConfig entry.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type DRAAllocatorArgs struct {
	metav1.TypeMeta `json:",inline"`

	// FilterTimeout limits the time Filter may spend on one node; 0 disables
	// the limit. Defaults to 10s.
	// +optional
	FilterTimeout *metav1.Duration `json:"filterTimeout,omitempty"`
	// BindingTimeout limits how long PreBind waits for device binding
	// conditions. Must be positive. Defaults to 600s.
	// +optional
	BindingTimeout *metav1.Duration `json:"bindingTimeout,omitempty"`
	// ScoringStrategy chooses how nodes are ranked.
	// +optional
	ScoringStrategy *ScoringStrategy `json:"scoringStrategy,omitempty"`
	// DeviceSelectionPolicy chooses which devices are picked on a node.
	// One of FirstFit, Packing. Defaults to FirstFit.
	// +optional
	DeviceSelectionPolicy *DeviceSelectionPolicy `json:"deviceSelectionPolicy,omitempty"`
	// Preemption says whether the plugin takes part in kube-scheduler's
	// preemption (DefaultPreemption), so that a pod may get devices that
	// lower-priority pods hold. One of Enabled, Disabled. Defaults to
	// Enabled.
	// +optional
	Preemption *PreemptionMode `json:"preemption,omitempty"`
	// PlacementScoring chooses how the plugin ranks the placements
	// (topology domains) a pod group may go to with topology-aware
	// workload scheduling, by their devices once the group has its own.
	// One of MostAllocated (partly used domains first, whole ones kept
	// free for bigger groups), LeastAllocated. Defaults to MostAllocated.
	// The names before 0.1.0, Packing and Spreading, are read as
	// MostAllocated and LeastAllocated.
	// +optional
	PlacementScoring *PlacementScoringType `json:"placementScoring,omitempty"`
	// MaxPlacements bounds the placements the plugin generates for a pod
	// group with a topology constraint, as percentageOfNodesToScore bounds
	// the nodes scored: on the group's first attempt, kube-scheduler tries
	// it in at most this many domains, those that may fit which
	// placementScoring ranks first by the devices now in use
	// (MostAllocated: the fullest). Once the group has failed an attempt (its
	// PodGroupInitiallyScheduled condition is False), every domain that
	// may fit is tried, as upstream's TopologyPlacementGenerator does.
	// 0 tries every domain always. Defaults to 10.
	// +optional
	MaxPlacements *int32 `json:"maxPlacements,omitempty"`
	// GroupPlanTimeout limits the time one pod-group cycle may spend
	// planning the group's devices jointly, over every placement it
	// tries: kube-scheduler's loop is serial, and a group of many pods on
	// many equivalent devices, or with a constraint that fails late, must
	// not hold it. A group that runs out gets a message saying so and is
	// tried again later; the other pods go on. 0 uses filterTimeout (no
	// limit if that is 0 too). Defaults to 0.
	// +optional
	GroupPlanTimeout *metav1.Duration `json:"groupPlanTimeout,omitempty"`
	// ConsistencyCheckInterval is how often the plugin compares its
	// long-lived state — the device inventory, the devices claims hold
	// and those in flight — with what the scheduler's informers say it
	// should be; each difference is logged once and counted in
	// dra_scheduler_cache_differences_total. SIGUSR2 runs the check at
	// any time, beside kube-scheduler's own cache comparer. With several
	// profiles the shortest interval set applies. 0 checks only on
	// SIGUSR2. Defaults to 1m.
	// +optional
	ConsistencyCheckInterval *metav1.Duration `json:"consistencyCheckInterval,omitempty"`
}

// ScoringStrategy selects how the plugin scores nodes.
type ScoringStrategy struct {
	// Type is the scoring strategy to use. One of FirstAvailable,
	// MostAllocated, LeastAllocated. Defaults to FirstAvailable.
	// +optional
	Type *ScoringStrategyType `json:"type,omitempty"`
}

// ScoringStrategyType names a node scoring strategy.
type ScoringStrategyType string

const (
	// FirstAvailable ranks nodes by the firstAvailable alternatives chosen
	// there (earlier ones score higher), as the in-tree plugin does.
	FirstAvailable ScoringStrategyType = "FirstAvailable"
	// MostAllocated favours nodes whose devices are already heavily used.
	MostAllocated ScoringStrategyType = "MostAllocated"
	// LeastAllocated favours nodes whose devices are least used.
	LeastAllocated ScoringStrategyType = "LeastAllocated"
)

// DeviceSelectionPolicy names how devices are chosen on a node.
type DeviceSelectionPolicy string

const (
	// FirstFit picks the first devices that satisfy a request.
	FirstFit DeviceSelectionPolicy = "FirstFit"
	// Packing prefers devices that leave the fewest fragmented leftovers.
	Packing DeviceSelectionPolicy = "Packing"
)

// PlacementScoringType names how placements are ranked by their devices.
type PlacementScoringType string

const (
	// PlacementMostAllocated favours the placement whose devices are most
	// used once the group has its devices, as MostAllocated does nodes.
	PlacementMostAllocated PlacementScoringType = "MostAllocated"
	// PlacementLeastAllocated favours the placement whose devices are
	// least used once the group has its devices, as LeastAllocated does
	// nodes.
	PlacementLeastAllocated PlacementScoringType = "LeastAllocated"

	// placementPacking and placementSpreading are MostAllocated's and
	// LeastAllocated's names before 0.1.0, which defaulting renames
	// (renamedPlacementScoring): Packing is a deviceSelectionPolicy.
	placementPacking   PlacementScoringType = "Packing"
	placementSpreading PlacementScoringType = "Spreading"
)

// PreemptionMode says whether the plugin takes part in preemption.
type PreemptionMode string

const (
	// PreemptionEnabled: a pod may get devices that lower-priority pods
	// hold, by kube-scheduler's preemption.
	PreemptionEnabled PreemptionMode = "Enabled"
	// PreemptionDisabled: devices are invisible to preemption, as with
	// the in-tree DynamicResources plugin of Kubernetes 1.37.
	PreemptionDisabled PreemptionMode = "Disabled"
)
