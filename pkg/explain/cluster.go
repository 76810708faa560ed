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

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodecheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/simulate"
)

// Scoring strategies, as DRAAllocatorArgs names them.
const (
	ScoreFirstAvailable = simulate.ScoreFirstAvailable
	ScoreMostAllocated  = simulate.ScoreMostAllocated
	ScoreLeastAllocated = simulate.ScoreLeastAllocated
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
	// NodeChecks are the scheduler's feature gates of the node checks
	// (tolerations that compare taint values).
	NodeChecks nodecheck.Features
}

// Cluster is the cluster state the scheduler would see, ready to be asked
// about pods.
type Cluster struct {
	objs     *clusterstate.Objects
	settings Settings
	// snap is the cluster as the scheduler sees it (pkg/simulate, which
	// answers "how many fit" over the same state).
	// Its BoundPods are what a preemption on each node may evict.
	snap *simulate.Snapshot
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
	simObjs, notes := SimulationObjects(objs)
	c := &Cluster{objs: objs, settings: settings, Notes: append(slices.Clone(objs.Notes), notes...)}
	c.snap = simulate.NewSnapshot(simObjs, simulate.Settings{
		Features: settings.Features, Policy: settings.Policy, Scoring: settings.Scoring,
		PodGroupClaims: settings.PodGroupClaims, NodeAllocatable: settings.NodeAllocatable,
		NodeChecks: settings.NodeChecks,
		// explain checks devices and the node checks, not node resources.
		IgnoreNodeResources: true,
	})
	return c
}

// SimulationObjects are the objects read as pkg/simulate takes them;
// without Node objects, nodes are made up from the slices' nodeName, and
// notes say so.
func SimulationObjects(objs *clusterstate.Objects) (_ simulate.Objects, notes []string) {
	nodes := objs.Nodes
	if len(nodes) == 0 {
		nodes = clusterstate.NodesNamedBySlices(objs.Slices, nil)
		if len(nodes) > 0 {
			notes = append(notes, "no Node objects given: nodes are made up from the slices' nodeName, with no labels but their hostname")
		}
	}
	return simulate.Objects{
		Nodes: nodes, Pods: objs.Pods, Slices: objs.Slices, Classes: objs.Classes, Claims: objs.Claims,
		Templates: objs.Templates, TaintRules: objs.TaintRules, PodGroups: objs.PodGroups,
	}, notes
}

// Nodes returns the cluster's nodes, sorted by name.
func (c *Cluster) Nodes() []*v1.Node { return c.snap.Nodes() }

// allocator returns an allocator over the cluster's inventory with state
// as the allocated devices.
func (c *Cluster) allocator(state structured.AllocatedState) *allocator.Allocator {
	return c.snap.Allocator(state)
}

// podGroup returns the PodGroup namespace/name, or nil.
func (c *Cluster) podGroup(namespace, name string) *schedulingapi.PodGroup {
	return c.snap.PodGroup(namespace, name)
}

// node returns the node name, or nil.
func (c *Cluster) node(name string) *v1.Node { return c.snap.Node(name) }

// claim returns the claim namespace/name, or nil.
func (c *Cluster) claim(namespace, name string) *resourceapi.ResourceClaim {
	return c.snap.Claim(namespace, name)
}

// template returns the template namespace/name, or nil.
func (c *Cluster) template(namespace, name string) *resourceapi.ResourceClaimTemplate {
	return c.snap.Template(namespace, name)
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
