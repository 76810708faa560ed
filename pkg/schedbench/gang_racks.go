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

package schedbench

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// Racks (issue 39): with Options.RackSize set, the gang workload's nodes
// are labelled RackLabel in runs of RackSize nodes (rack-000, rack-001,
// …; the last rack may be smaller), every fourth rack is partly used
// before the gangs start (one device taken on each of its first half
// nodes, by pods of the run's own scheduler), and every gang pod asks
// for one whole device of the shape (the burst workload's claim). With
// GangRack each gang's PodGroup carries a topology constraint on
// RackLabel, so kube-scheduler (TopologyAwareWorkloadScheduling, on with
// racks) tries the gang rack by rack and commits the best; with
// GangAnyNode the same gangs on the same racks go anywhere, which is what
// a topology gang's cost is measured against. Gangs default to one per
// free whole rack, so every gang fits a free rack however the earlier
// ones were placed.
const (
	// RackLabel is the node label naming a node's rack.
	RackLabel = "dra-bench.example.com/rack"
	// DefaultRackSize is the nodes of a rack with GangRack unless
	// Options.RackSize says otherwise: an NVL72 rack of 18 nodes of 4
	// GPUs (shape h100-mig).
	DefaultRackSize = 18
	// rackFillerGroup names the pods that use part of the partly used
	// racks ("rack-filler-<i>").
	rackFillerGroup = "rack-filler"
)

// racked says whether the run's nodes are in racks.
func (o *Options) racked() bool { return o.RackSize > 0 }

// rackName is the RackLabel value of rack r.
func rackName(r int) string { return fmt.Sprintf("rack-%03d", r) }

// racks is the number of racks of n nodes.
func (o *Options) racks(n int) int { return (n + o.RackSize - 1) / o.RackSize }

// partlyUsedRack says whether rack r is partly used before the gangs.
func partlyUsedRack(r int) bool { return r%4 == 3 }

// freeRacks is the number of whole racks (RackSize nodes) of n nodes that
// are not partly used.
func (o *Options) freeRacks(n int) int {
	free := 0
	for r := range n / o.RackSize {
		if !partlyUsedRack(r) {
			free++
		}
	}
	return free
}

// rackFillerNodes are the indexes of the nodes that get a filler pod: the
// first half of the nodes of every partly used rack.
func (o *Options) rackFillerNodes(n int) []int {
	var nodes []int
	for r := range o.racks(n) {
		if !partlyUsedRack(r) {
			continue
		}
		first := r * o.RackSize
		size := min(o.RackSize, n-first)
		for i := range (size + 1) / 2 {
			nodes = append(nodes, first+i)
		}
	}
	return nodes
}

// withRacks returns cluster with its nodes labelled by rack: copies of the
// nodes, as the cluster's objects are shared.
func (o *Options) withRacks(cluster inventorygen.Cluster) inventorygen.Cluster {
	out := cluster
	out.Nodes = make([]*v1.Node, len(cluster.Nodes))
	for i, node := range cluster.Nodes {
		node = node.DeepCopy()
		if node.Labels == nil {
			node.Labels = map[string]string{}
		}
		node.Labels[RackLabel] = rackName(i / o.RackSize)
		out.Nodes[i] = node
	}
	return out
}

// gangConstraints are the scheduling constraints of a gang's PodGroup:
// one rack with GangRack, none otherwise.
func (o *Options) gangConstraints() *schedulingapi.PodGroupSchedulingConstraints {
	if o.GangPlacement != GangRack {
		return nil
	}
	return &schedulingapi.PodGroupSchedulingConstraints{Topology: []schedulingapi.TopologyConstraint{{Key: RackLabel}}}
}

// makeRackFiller returns filler pod name of configuration c on node,
// asking for one device.
func makeRackFiller(name, namespace string, c Config, node string) *v1.Pod {
	return makePodOn(name, namespace, c, ClaimsTemplate, map[string]string{v1.LabelHostname: node})
}

// fillRacks makes the partly used racks of cluster partly used: a filler
// pod on each of rackFillerNodes, placed by the run's scheduler, before
// the gangs. g records how many. c is the run's configuration.
func (o *Options) fillRacks(ctx context.Context, client kubernetes.Interface, rec *podlatency.Recorder, sched *child, ns string, c Config, cluster inventorygen.Cluster, label string, g *GangResult) error {
	if !o.racked() {
		return nil
	}
	nodes := o.rackFillerNodes(len(cluster.Nodes))
	names := make([]string, len(nodes))
	for i := range names {
		names[i] = podName(rackFillerGroup, i)
	}
	start := time.Now()
	if err := o.fillPods(ctx, client, rec, sched, ns, names, func(i int) *v1.Pod {
		return makeRackFiller(names[i], ns, c, cluster.Nodes[nodes[i]].Name)
	}, label); err != nil {
		return fmt.Errorf("use part of every fourth rack: %w", err)
	}
	g.FillerPods = len(names)
	o.progress("%s: %d pods use part of %d racks, in %v", label, len(names), o.racks(len(cluster.Nodes))/4, time.Since(start).Round(time.Millisecond))
	return nil
}

// recordRacks reads where the placed gangs of members (their pods' names,
// by gang) went, by rack: g.SplitGangs have pods in more than one rack
// (with GangRack: must be 0), g.PartlyUsedRackGangs are in one partly
// used rack (where packing puts the gangs that fit there first).
func (o *Options) recordRacks(ctx context.Context, client kubernetes.Interface, ns string, cluster inventorygen.Cluster, members [][]string, g *GangResult) error {
	if !o.racked() {
		return nil
	}
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list the gangs' pods to find their racks: %w", err)
	}
	rackOf := make(map[string]int, len(cluster.Nodes))
	for i, node := range cluster.Nodes {
		rackOf[node.Name] = i / o.RackSize
	}
	nodeOf := make(map[string]string, len(pods.Items))
	for _, pod := range pods.Items {
		nodeOf[pod.Name] = pod.Spec.NodeName
	}
	for _, gang := range members {
		racks := map[int]bool{}
		for _, pod := range gang {
			if node := nodeOf[pod]; node != "" {
				racks[rackOf[node]] = true
			}
		}
		switch len(racks) {
		case 0:
		case 1:
			for r := range racks {
				if partlyUsedRack(r) {
					g.PartlyUsedRackGangs++
				}
			}
		default:
			g.SplitGangs++
		}
	}
	return nil
}

// completeRacks checks the rack options of WorkloadGang: racks go with
// GangRack (which defaults RackSize) or GangAnyNode, hold the gang, and
// leave a free rack for every gang.
func (o *Options) completeRacks() error {
	if o.GangPlacement == GangRack && o.RackSize == 0 {
		o.RackSize = DefaultRackSize
	}
	switch {
	case o.RackSize < 0:
		return fmt.Errorf("rack size %d: want at least 1 node, or 0 for no racks", o.RackSize)
	case !o.racked():
		return nil
	case o.GangPlacement == GangOwnNode:
		return fmt.Errorf("racks of %d nodes go with gang placement %s or %s, not %s", o.RackSize, GangRack, GangAnyNode, GangOwnNode)
	case o.GangSize > o.RackSize*o.Shape.DevicesPerNode:
		return fmt.Errorf("gangs of %d in racks of %d nodes of shape %s: a rack has only %d devices", o.GangSize, o.RackSize, o.Shape.Name, o.RackSize*o.Shape.DevicesPerNode)
	}
	for _, n := range o.Sizes {
		switch free := o.freeRacks(n); {
		case n < 1:
			return fmt.Errorf("cluster size %d: want at least 1 node", n)
		case free < 1:
			return fmt.Errorf("%d nodes in racks of %d have no free whole rack for a gang", n, o.RackSize)
		case o.Gangs > free:
			return fmt.Errorf("%d gangs on %d nodes: at most one per free whole rack (%d of %d nodes each), so that every gang fits", o.Gangs, n, free, o.RackSize)
		}
	}
	return nil
}
