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

package simulate

import (
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodecheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/taintrules"
)

// Scoring strategies, as DRAAllocatorArgs names them.
const (
	ScoreFirstAvailable = "FirstAvailable"
	ScoreMostAllocated  = "MostAllocated"
	ScoreLeastAllocated = "LeastAllocated"
)

// Settings are the scheduler's: its feature gates and its plugin's
// device selection policy and scoring strategy.
type Settings struct {
	Features structured.Features
	Policy   allocator.Policy
	// Scoring is one of the Score* strategies; empty is FirstAvailable.
	Scoring string
	// PodGroupClaims accepts claims owned by the pod's PodGroup (the
	// DRAWorkloadResourceClaims feature).
	PodGroupClaims bool
	// NodeAllocatable refuses to share claims whose devices are node
	// resources (the DRANodeAllocatableResources feature).
	NodeAllocatable bool
	// NodeChecks are the gates of the node checks (nodecheck).
	NodeChecks nodecheck.Features
	// NodeResources are the gates NodeResourcesFit's sums depend on
	// (PodLevelResources).
	NodeResources nodeallocatable.Features
	// IgnoreNodeResources leaves out NodeResourcesFit's checks (pods per
	// node, cpu, memory, ephemeral storage, hugepages): devices only.
	IgnoreNodeResources bool
}

// Objects are what a simulation reads. Nodes are every node: a caller
// without Node objects makes them up (clusterstate.NodesNamedBySlices).
// Pods are the bound ones (their node resources and the pods preemption
// may evict) and the pods of groups.
type Objects struct {
	Nodes      []*v1.Node
	Pods       []*v1.Pod
	Slices     []*resourceapi.ResourceSlice
	Classes    []*resourceapi.DeviceClass
	Claims     []*resourceapi.ResourceClaim
	Templates  []*resourceapi.ResourceClaimTemplate
	TaintRules []*resourceapi.DeviceTaintRule
	PodGroups  []*schedulingapi.PodGroup
}

// Snapshot is the cluster as the scheduler would see it: one inventory of
// every ResourceSlice (DeviceTaintRules applied, as the scheduler's slice
// tracker applies them), the allocated state of every allocated claim,
// the nodes in name order and what their bound pods take of them. It is
// not changed after NewSnapshot: forks of it may run concurrently.
type Snapshot struct {
	settings Settings
	nodes    []*v1.Node
	byName   map[string]*v1.Node
	// bound are the pods bound to each node that are not done.
	bound map[string][]*v1.Pod
	// used is what bound pods take of each node.
	used    map[string]nodeUsage
	inv     *inventory.Inventory
	slices  *nodeallocatable.Slices
	classes inventorygen.ClassLister
	matcher *allocator.Matcher
	state   structured.AllocatedState

	claims    map[types.NamespacedName]*resourceapi.ResourceClaim
	templates map[types.NamespacedName]*resourceapi.ResourceClaimTemplate
	podGroups map[types.NamespacedName]*schedulingapi.PodGroup
	classSet  map[string]bool
}

// NewSnapshot builds the cluster state from objs, which it keeps and does
// not modify.
func NewSnapshot(objs Objects, s Settings) *Snapshot {
	if s.Scoring == "" {
		s.Scoring = ScoreFirstAvailable
	}
	snap := &Snapshot{
		settings: s, inv: inventory.New(), classes: inventorygen.NewClassLister(objs.Classes...),
		claims:    make(map[types.NamespacedName]*resourceapi.ResourceClaim, len(objs.Claims)),
		templates: make(map[types.NamespacedName]*resourceapi.ResourceClaimTemplate, len(objs.Templates)),
		podGroups: make(map[types.NamespacedName]*schedulingapi.PodGroup, len(objs.PodGroups)),
		classSet:  make(map[string]bool, len(objs.Classes)),
	}
	snap.matcher = allocator.NewMatcher(cel.NewCache(1000, cel.Features{EnableConsumableCapacity: s.Features.ConsumableCapacity}))
	var rules []*resourceapi.DeviceTaintRule
	if s.Features.DeviceTaints {
		rules = objs.TaintRules
	}
	for _, sl := range objs.Slices {
		snap.inv.Set(taintrules.Apply(sl, rules))
	}
	snap.slices = nodeallocatable.IndexSlices(objs.Slices)
	snap.state = allocatedState(s.Features, objs.Claims)
	for _, c := range objs.Claims {
		addFirst(snap.claims, c.Namespace, c.Name, c)
	}
	for _, t := range objs.Templates {
		addFirst(snap.templates, t.Namespace, t.Name, t)
	}
	for _, g := range objs.PodGroups {
		addFirst(snap.podGroups, g.Namespace, g.Name, g)
	}
	for _, c := range objs.Classes {
		snap.classSet[c.Name] = true
	}
	snap.nodes = slices.Clone(objs.Nodes)
	sort.Slice(snap.nodes, func(i, j int) bool { return snap.nodes[i].Name < snap.nodes[j].Name })
	snap.byName = make(map[string]*v1.Node, len(snap.nodes))
	for _, n := range snap.nodes {
		snap.byName[n.Name] = n
	}
	snap.bound = boundPods(objs.Pods)
	snap.used = usageOf(snap.bound, s.NodeResources)
	return snap
}

// addFirst indexes obj by namespace and name unless one is there: the
// first of a name counts, as in a dump read in order.
func addFirst[T any](m map[types.NamespacedName]T, namespace, name string, obj T) {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	if _, found := m[key]; !found {
		m[key] = obj
	}
}

// allocatedState is what the allocated claims hold, recorded by the
// scheduler plugin's own claim tracker. Claims are keyed by UID there; a
// hand-written dump's claim without one is keyed by its name instead.
func allocatedState(features structured.Features, claims []*resourceapi.ResourceClaim) structured.AllocatedState {
	tr := allocator.NewTracker(features)
	for _, claim := range claims {
		if claim.UID == "" {
			claim = claim.DeepCopy()
			claim.UID = types.UID(claim.Namespace + "/" + claim.Name)
		}
		tr.SetClaim(claim)
	}
	return tr.AllocatedState()
}

// boundPods indexes the pods bound to nodes by node, skipping those that
// are done (Succeeded or Failed).
func boundPods(pods []*v1.Pod) map[string][]*v1.Pod {
	out := map[string][]*v1.Pod{}
	for _, p := range pods {
		if p.Spec.NodeName == "" || p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p)
	}
	return out
}

// Settings returns the settings the snapshot was built with, defaults
// filled in.
func (s *Snapshot) Settings() Settings { return s.settings }

// Nodes returns the nodes, sorted by name; callers do not change the
// slice.
func (s *Snapshot) Nodes() []*v1.Node { return s.nodes }

// Node returns the node name, or nil.
func (s *Snapshot) Node(name string) *v1.Node { return s.byName[name] }

// BoundPods returns the pods bound to each node that are not done;
// callers do not change the map.
func (s *Snapshot) BoundPods() map[string][]*v1.Pod { return s.bound }

// Inventory returns the devices of every slice.
func (s *Snapshot) Inventory() *inventory.Inventory { return s.inv }

// Slices returns the ResourceSlices by node, for node-allocatable
// resources.
func (s *Snapshot) Slices() *nodeallocatable.Slices { return s.slices }

// State returns the devices the allocated claims hold.
func (s *Snapshot) State() structured.AllocatedState { return s.state }

// Allocator returns an allocator over the snapshot's inventory with state
// as the allocated devices (State(), or another for a what-if).
func (s *Snapshot) Allocator(state structured.AllocatedState) *allocator.Allocator {
	return allocator.New(s.settings.Features, allocator.NewState(s.inv, state), s.classes, s.inv, s.matcher, s.settings.Policy)
}

// Claim returns the claim namespace/name, or nil.
func (s *Snapshot) Claim(namespace, name string) *resourceapi.ResourceClaim {
	return s.claims[types.NamespacedName{Namespace: namespace, Name: name}]
}

// Template returns the template namespace/name, or nil.
func (s *Snapshot) Template(namespace, name string) *resourceapi.ResourceClaimTemplate {
	return s.templates[types.NamespacedName{Namespace: namespace, Name: name}]
}

// ClassExists reports whether the DeviceClass exists.
func (s *Snapshot) ClassExists(name string) bool { return s.classSet[name] }

// PodGroup returns the PodGroup namespace/name, or nil.
func (s *Snapshot) PodGroup(namespace, name string) *schedulingapi.PodGroup {
	return s.podGroups[types.NamespacedName{Namespace: namespace, Name: name}]
}
