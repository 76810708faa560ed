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
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestRackOptions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		change    func(*Options)
		wantErr   string
		wantGangs int
	}{
		{"gangs in racks default to racks of 18 and one gang per free whole rack", func(o *Options) {
			o.GangPlacement, o.GangSize, o.Sizes = GangRack, 36, []int{90}
		}, "", 4},
		{"the same gangs without the constraint get the same racks", func(o *Options) {
			o.GangPlacement, o.RackSize, o.GangSize, o.Sizes = GangAnyNode, 18, 36, []int{90}
		}, "", 4},
		{"racks take any shape, as their pods ask for whole devices", func(o *Options) {
			o.GangPlacement, o.Shape, o.GangSize, o.Sizes = GangRack, mustShape(t, "h100"), 144, []int{90}
		}, "", 4},
		{"a gang larger than a rack is refused", func(o *Options) {
			o.GangPlacement, o.GangSize, o.Sizes = GangRack, 73, []int{90}
		}, "a rack has only 72 devices", 0},
		{"more gangs than free racks are refused", func(o *Options) {
			o.GangPlacement, o.GangSize, o.Gangs, o.Sizes = GangRack, 16, 5, []int{90}
		}, "at most one per free whole rack", 0},
		{"nodes too few for a whole rack are refused", func(o *Options) {
			o.GangPlacement, o.Sizes = GangRack, []int{17}
		}, "no free whole rack", 0},
		{"racks of nodes of their own are refused", func(o *Options) { o.RackSize = 18 }, "not own-node", 0},
		{"a negative rack size is refused", func(o *Options) { o.GangPlacement, o.RackSize = GangAnyNode, -1 }, "want at least 1 node", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := completeWorkload(t, WorkloadGang, mustShape(t, "h100-mig"), tc.change, tc.wantErr)
			if tc.wantErr == "" {
				if got := o.gangsFor(o.Sizes[0]); got != tc.wantGangs {
					t.Errorf("%d gangs on %d nodes, want %d", got, o.Sizes[0], tc.wantGangs)
				}
				if !o.SchedulerFeatureGates(ConfigInTree)["TopologyAwareWorkloadScheduling"] {
					t.Errorf("gangs in racks run without TopologyAwareWorkloadScheduling: %s", o.SchedulerFeatureGates(ConfigInTree))
				}
			}
		})
	}
}

func TestRacksLabelNodesAndPartlyUseEveryFourthRack(t *testing.T) {
	o := DefaultOptions()
	o.Workload, o.Shape, o.RackSize = WorkloadGang, mustShape(t, "h100-mig"), 4
	// 18 nodes: racks 0-3 of 4 nodes, rack 4 of 2; rack 3 partly used.
	cluster := o.withRacks(o.Shape.Cluster(18))
	for i, node := range cluster.Nodes {
		if got, want := node.Labels[RackLabel], rackName(i/4); got != want {
			t.Errorf("node %d (%s) in rack %q, want %q", i, node.Name, got, want)
		}
		if node.Labels[v1.LabelHostname] != node.Name {
			t.Errorf("node %s lost its hostname label: %v", node.Name, node.Labels)
		}
	}
	if shared := o.Shape.Cluster(18).Nodes[0]; shared.Labels[RackLabel] != "" {
		t.Errorf("labelling changed the shape's shared node: %v", shared.Labels)
	}
	if got, want := o.rackFillerNodes(18), []int{12, 13}; !slices.Equal(got, want) {
		t.Errorf("filler nodes %v, want the first half of rack 3: %v", got, want)
	}
	if got := o.freeRacks(18); got != 3 {
		t.Errorf("%d free whole racks, want 3 (rack 3 is partly used, rack 4 is short)", got)
	}
	if got, want := o.rackFillerNodes(34), []int{12, 13, 28, 29}; !slices.Equal(got, want) {
		t.Errorf("filler nodes of 34 nodes %v, want %v", got, want)
	}
}

func TestOnlyGangsInRacksCarryATopologyConstraint(t *testing.T) {
	o := DefaultOptions()
	o.Workload, o.RackSize = WorkloadGang, 18
	for _, p := range []GangPlacement{GangOwnNode, GangAnyNode} {
		o.GangPlacement = p
		if c := o.gangConstraints(); c != nil {
			t.Errorf("gangs placed %s carry constraints %+v", p, c)
		}
	}
	o.GangPlacement = GangRack
	c := o.gangConstraints()
	if c == nil || len(c.Topology) != 1 || c.Topology[0].Key != RackLabel {
		t.Errorf("gangs in racks carry constraints %+v, want one on %s", c, RackLabel)
	}
	if o.gangTemplate() != templateName {
		t.Errorf("gangs in racks use template %s, want the whole-device one %s", o.gangTemplate(), templateName)
	}
}

func TestGangTableOfRacks(t *testing.T) {
	g := &GangResult{Placement: GangRack, GangSize: 36, Gangs: 4, Placed: 4, RackSize: 18, Racks: 5, FillerPods: 9, PartlyUsedRackGangs: 1,
		Cycles: 4, Scheduled: 4, CyclesPerGang: 1, CycleSeconds: 0.4, CPUSecondsPerGang: 0.5, WholeDevices: 144,
		Placements: 20, FeasiblePlacements: 16, PlacementsPerGang: 5}
	rep := &Report{Tool: "dra-bench scheduler", SchemaVersion: ReportSchemaVersion,
		Settings: Settings{Workload: WorkloadGang, GangTimeoutNs: int64(2 * time.Minute), Shape: "h100-mig", Claims: "template", Target: "in-process control plane"},
		Results: []Result{{Nodes: 90, Devices: 360, Config: ConfigOurs, Pods: 144, Bound: 144, Claims: 153, ClaimsAllocated: 153,
			SchedulerCPUSeconds: 2, ResourceClaimWorkers: 50, Gang: g}}}
	wantRows(t, collapsedTable(t, rep), []tableRow{
		{"the placements tried and feasible per gang are reported", "90 ours 4 4 144 0s - 4 1.00 5.00 (4.00 feasible) 100 2.00 500 - 0s 0s 144 0"},
		{"where the gangs went is said under the table", "90 nodes, ours: 5 racks of 18 nodes, every fourth partly used by 9 pods: 1 placed gangs in a partly used rack, 0 gangs in more than one rack"},
	})
	if p := rep.Results[0].gangProblem(); p != "" {
		t.Errorf("the fillers' claims are taken for a problem: %s", p)
	}
	g.SplitGangs = 1
	if p := rep.Results[0].gangProblem(); !strings.Contains(p, "1 gangs have pods in more than one rack") {
		t.Errorf("a gang split over racks is not a problem: %q", p)
	}
	g.SplitGangs, g.Placed = 0, 3
	if p := rep.Results[0].gangProblem(); p == "" {
		t.Error("a gang left pending with a free rack for it is no problem")
	}
}

func TestGangsInRacksOfAShapeWithoutPartsGetWholeDeviceClaims(t *testing.T) {
	o := DefaultOptions()
	o.Workload, o.GangPlacement, o.Shape, o.RackSize, o.Writers = WorkloadGang, GangRack, mustShape(t, "h100"), 9, 2
	client := fake.NewClientset()
	if err := o.createGangObjects(context.Background(), client, "ns", ConfigOurs, gangMembers(2, 4), ""); err != nil {
		t.Fatal(err)
	}
	tmpl, err := client.ResourceV1().ResourceClaimTemplates("ns").Get(context.Background(), templateName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the whole-device template was not created: %v", err)
	}
	if r := tmpl.Spec.Spec.Devices.Requests; len(r) != 1 || r[0].Exactly == nil || r[0].Exactly.DeviceClassName != o.Shape.Class {
		t.Errorf("template requests %+v, want one whole device of class %s", r, o.Shape.Class)
	}
	groups, err := client.SchedulingV1beta1().PodGroups("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(groups.Items) != 2 {
		t.Fatalf("PodGroups %v, %v; want 2", groups, err)
	}
	for _, pg := range groups.Items {
		if c := pg.Spec.SchedulingConstraints; c == nil || c.Topology[0].Key != RackLabel || pg.Spec.SchedulingPolicy.Gang.MinCount != 4 {
			t.Errorf("PodGroup %s: constraints %+v, policy %+v; want one rack, minCount 4", pg.Name, c, pg.Spec.SchedulingPolicy)
		}
	}
}
