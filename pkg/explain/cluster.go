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

package explain

import (
	"fmt"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
	"github.com/dra-scheduler/dra-scheduler/pkg/taintrules"
)

// Scoring strategies, as DRAAllocatorArgs names them.
const (
	ScoreFirstAvailable = "FirstAvailable"
	ScoreMostAllocated  = "MostAllocated"
	ScoreLeastAllocated = "LeastAllocated"
)

// Settings are the scheduler's: its feature gates, its plugin's device
// selection policy and scoring strategy.
type Settings struct {
	Features structured.Features
	Policy   allocator.Policy
	// Scoring is one of the Score* strategies; empty is FirstAvailable.
	Scoring string
	// PodGroupClaims accepts claims owned by the pod's PodGroup (the
	// DRAWorkloadResourceClaims feature).
	PodGroupClaims bool
	// NodeAllocatable lists what candidates' devices take of node
	// resources and refuses to share claims whose devices are node
	// resources (the DRANodeAllocatableResources feature).
	NodeAllocatable bool
	// Candidates is how many fitting nodes a report lists with their
	// devices; 0 is 5.
	Candidates int
	// PreemptionDisabled is the plugin's "preemption: Disabled": a pod
	// that fits nowhere is not asked about evictions.
	PreemptionDisabled bool
}

// Cluster is the cluster state the scheduler would see, ready to be asked
// about pods.
type Cluster struct {
	objs     *clusterstate.Objects
	settings Settings
	nodes    []*v1.Node
	byName   map[string]*v1.Node
	// bound are the pods bound to each node that are not done: what a
	// preemption there may evict.
	bound map[string][]*v1.Pod
	inv   *inventory.Inventory
	// slices are the ResourceSlices by node, for node-allocatable
	// resources.
	slices  *nodeallocatable.Slices
	classes inventorygen.ClassLister
	matcher *allocator.Matcher
	state   structured.AllocatedState
	// Notes are what a reader should know about the input.
	Notes []string
}

// NewCluster builds the cluster state from objs.
func NewCluster(objs *clusterstate.Objects, settings Settings) *Cluster {
	if settings.Candidates <= 0 {
		settings.Candidates = 5
	}
	if settings.Scoring == "" {
		settings.Scoring = ScoreFirstAvailable
	}
	c := &Cluster{objs: objs, settings: settings, inv: inventory.New(), classes: inventorygen.NewClassLister(objs.Classes...), Notes: objs.Notes}
	c.matcher = allocator.NewMatcher(cel.NewCache(1000, cel.Features{EnableConsumableCapacity: settings.Features.ConsumableCapacity}))
	var rules []*resourceapi.DeviceTaintRule
	if settings.Features.DeviceTaints {
		rules = objs.TaintRules
	}
	for _, s := range objs.Slices {
		c.inv.Set(taintrules.Apply(s, rules))
	}
	c.slices = nodeallocatable.IndexSlices(objs.Slices)
	c.state = allocatedState(settings.Features, objs.Claims)
	c.nodes = nodesOf(objs)
	c.byName = make(map[string]*v1.Node, len(c.nodes))
	for _, n := range c.nodes {
		c.byName[n.Name] = n
	}
	c.bound = boundPods(objs.Pods)
	if len(objs.Nodes) == 0 && len(c.nodes) > 0 {
		c.Notes = append(c.Notes, "no Node objects given: nodes are made up from the slices' nodeName, with no labels but their hostname")
	}
	return c
}

// Nodes returns the cluster's nodes, sorted by name.
func (c *Cluster) Nodes() []*v1.Node { return c.nodes }

// allocator returns an allocator over the cluster's inventory with state
// as the allocated devices.
func (c *Cluster) allocator(state structured.AllocatedState) *allocator.Allocator {
	return allocator.New(c.settings.Features, allocator.NewState(c.inv, state), c.classes, c.inv, c.matcher, c.settings.Policy)
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

// nodesOf returns the Node objects, or, without any, a node per slice
// nodeName; sorted by name.
func nodesOf(objs *clusterstate.Objects) []*v1.Node {
	nodes := objs.Nodes
	if len(nodes) == 0 {
		nodes = clusterstate.NodesNamedBySlices(objs.Slices, nil)
	}
	nodes = slices.Clone(nodes)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	return nodes
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

// podGroup returns the PodGroup namespace/name, or nil.
func (c *Cluster) podGroup(namespace, name string) *schedulingapi.PodGroup {
	for _, g := range c.objs.PodGroups {
		if g.Namespace == namespace && g.Name == name {
			return g
		}
	}
	return nil
}

// node returns the node name, or nil.
func (c *Cluster) node(name string) *v1.Node { return c.byName[name] }

// claim returns the claim namespace/name, or nil.
func (c *Cluster) claim(namespace, name string) *resourceapi.ResourceClaim {
	for _, claim := range c.objs.Claims {
		if claim.Namespace == namespace && claim.Name == name {
			return claim
		}
	}
	return nil
}

// template returns the template namespace/name, or nil.
func (c *Cluster) template(namespace, name string) *resourceapi.ResourceClaimTemplate {
	for _, t := range c.objs.Templates {
		if t.Namespace == namespace && t.Name == name {
			return t
		}
	}
	return nil
}

// FindPod returns the pod namespace/name from the objects read.
func (c *Cluster) FindPod(namespace, name string) (*v1.Pod, error) {
	for _, p := range c.objs.Pods {
		if p.Namespace == namespace && p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("pod %s/%s is not in the input", namespace, name)
}
