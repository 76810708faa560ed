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
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestHeldSplit(t *testing.T) {
	for _, tc := range []struct {
		name                string
		shape               string
		nodes, pods, warmup int
		wantFree, wantHeld  int // nodes
		wantHolders         int
	}{
		{"8 nodes of 10 devices with 6 measured and 2 warm-up pods leave the first node free and hold the other 70 devices",
			"schedperf", 8, 6, 2, 1, 7, 70},
		{"the issue's 5000 nodes with 1000 measured pods leave 100 nodes free and hold 49000 devices",
			"schedperf", 5000, 1000, 0, 100, 4900, 49000},
		{"pods that do not fill the last free node still need it: 17 pods on 8 GPUs a node need 3 nodes",
			"h100", 10, 16, 1, 3, 7, 56},
		{"one measured pod per node by default: 50 nodes of 10 devices leave 5 free",
			"schedperf", 50, 0, 0, 5, 45, 450},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Shape, o.Pods, o.Warmup, o.Pending, o.PendingReason = mustShape(t, tc.shape), tc.pods, tc.warmup, 3, PendingHeld
			if got := o.heldFreeNodes(tc.nodes); got != tc.wantFree {
				t.Errorf("%d free nodes, want %d", got, tc.wantFree)
			}
			if got := o.holdersFor(tc.nodes); got != tc.wantHolders {
				t.Errorf("%d holders, want %d", got, tc.wantHolders)
			}
			cluster := o.forPending(o.Shape.Cluster(tc.nodes))
			free, held := 0, 0
			for i, node := range cluster.Nodes {
				switch v := node.Labels[CapacityLabel]; {
				case v == CapacityFree && i < tc.wantFree:
					free++
				case v == CapacityHeld && i >= tc.wantFree:
					held++
				default:
					t.Errorf("node %d (%s) labelled %s=%q", i, node.Name, CapacityLabel, v)
				}
			}
			if free != tc.wantFree || held != tc.wantHeld {
				t.Errorf("%d nodes labelled free and %d held, want %d and %d", free, held, tc.wantFree, tc.wantHeld)
			}
			if tc.wantHolders != tc.wantHeld*o.Shape.DevicesPerNode || free*o.Shape.DevicesPerNode < o.podsFor(tc.nodes)+tc.warmup {
				t.Errorf("the holders do not take every device of the held nodes, or the free nodes cannot hold the pods")
			}
		})
	}
}

func TestHeldLabelsOnlyWithHeld(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pending int
		reason  PendingReason
		want    bool
	}{
		{"a held backlog labels the nodes", 3, PendingHeld, true},
		{"a too-big backlog leaves the nodes as they are", 3, PendingTooBig, false},
		{"no backlog leaves the nodes as they are", 0, PendingHeld, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Pods, o.Pending, o.PendingReason = 10, tc.pending, tc.reason
			cluster := o.Shape.Cluster(4)
			out := o.forPending(cluster)
			_, labelled := out.Nodes[3].Labels[CapacityLabel]
			if labelled != tc.want || (o.runSelector() != nil) != tc.want {
				t.Errorf("last node labelled %v, run pods' selector %v; want labels and selector %v", labelled, o.runSelector(), tc.want)
			}
			if _, shared := cluster.Nodes[3].Labels[CapacityLabel]; shared {
				t.Error("the shared cluster's node was labelled, not a copy")
			}
		})
	}
}

func TestHeldPods(t *testing.T) {
	o := DefaultOptions()
	o.Pods, o.Pending, o.PendingReason = 10, 3, PendingHeld
	free, held := map[string]string{CapacityLabel: CapacityFree}, map[string]string{CapacityLabel: CapacityHeld}
	type want struct {
		selector map[string]string
		template string // "": no claim
		units    int64  // of DevicePluginResource
		label    string // a label set to "true", or ""
	}
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		want want
	}{
		{"ours' holder takes one device of the measured pods' template on a held node",
			makeHolder("holder-0", "ns", ConfigOurs), want{held, templateName, 0, holderLabel}},
		{"in-tree's holder is ours'",
			makeHolder("holder-0", "ns", ConfigInTree), want{held, templateName, 0, holderLabel}},
		{"device-plugin's holder takes one unit on a held node",
			makeHolder("holder-0", "ns", ConfigDevicePlugin), want{held, "", 1, holderLabel}},
		{"ours' backlog pod asks for one device of the measured pods' template, on a held node",
			makeBacklogPod("pending-0", "ns", o.Shape, ConfigOurs, PendingHeld), want{held, templateName, 0, pendingLabel}},
		{"in-tree's backlog pod is ours'",
			makeBacklogPod("pending-0", "ns", o.Shape, ConfigInTree, PendingHeld), want{held, templateName, 0, pendingLabel}},
		{"device-plugin's backlog pod asks for one unit, on a held node",
			makeBacklogPod("pending-0", "ns", o.Shape, ConfigDevicePlugin, PendingHeld), want{held, "", 1, pendingLabel}},
		{"a too-big backlog pod still asks for the too-big template, on any node",
			makeBacklogPod("pending-0", "ns", o.Shape, ConfigOurs, PendingTooBig), want{nil, pendingTemplateName, 0, pendingLabel}},
		{"a measured pod of ours goes to a free node",
			makePodOn("pod-0", "ns", ConfigOurs, ClaimsTemplate, o.runSelector()), want{free, templateName, 0, ""}},
		{"a measured pod of device-plugin goes to a free node",
			makePodOn("pod-0", "ns", ConfigDevicePlugin, ClaimsTemplate, o.runSelector()), want{free, "", 1, ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.pod
			if len(p.Spec.NodeSelector) != len(tc.want.selector) || (tc.want.selector != nil && p.Spec.NodeSelector[CapacityLabel] != tc.want.selector[CapacityLabel]) {
				t.Errorf("node selector %v, want %v", p.Spec.NodeSelector, tc.want.selector)
			}
			template := ""
			if len(p.Spec.ResourceClaims) == 1 && p.Spec.ResourceClaims[0].ResourceClaimTemplateName != nil {
				template = *p.Spec.ResourceClaims[0].ResourceClaimTemplateName
			}
			if template != tc.want.template || len(p.Spec.ResourceClaims) > 1 {
				t.Errorf("claims %+v, want one from template %q (none if empty)", p.Spec.ResourceClaims, tc.want.template)
			}
			if got := deviceUnits(p); got != tc.want.units {
				t.Errorf("%d units of %s, want %d", got, DevicePluginResource, tc.want.units)
			}
			for _, l := range []string{holderLabel, pendingLabel} {
				if got := p.Labels[l] == "true"; got != (l == tc.want.label) {
					t.Errorf("label %s set %v, want %v", l, got, l == tc.want.label)
				}
			}
		})
	}
}

func TestPendingReasonOptions(t *testing.T) {
	held := func(change func(*Options)) func(*Options) {
		return func(o *Options) {
			o.Configs = []Config{ConfigOurs, ConfigInTree, ConfigDevicePlugin}
			o.Pending, o.PendingReason, o.Pods = 5, PendingHeld, 40
			if change != nil {
				change(o)
			}
		}
	}
	for _, tc := range []struct {
		name     string
		workload Workload
		change   func(*Options)
		wantErr  string
	}{
		{"the default reason is too-big", WorkloadBurst, func(o *Options) { o.Pending, o.PendingReason = 5, "" }, ""},
		{"held runs ours, in-tree and device-plugin with a backlog", WorkloadBurst, held(nil), ""},
		{"held runs on an existing cluster with the created inventory", WorkloadBurst, held(func(o *Options) {
			o.Kubeconfig, o.CreateInventory = "/nonexistent", true
		}), ""},
		{"an unknown reason is refused, naming both", WorkloadBurst, func(o *Options) { o.Pending, o.PendingReason = 5, "full" },
			`unknown pending reason "full" (want too-big or held)`},
		{"held without a backlog is refused", WorkloadBurst, held(func(o *Options) { o.Pending = 0 }),
			"pending reason held needs a backlog: pending pods (--pending) must be at least 1"},
		{"held with no-claims is refused: it has no devices to hold", WorkloadBurst, held(func(o *Options) { o.Configs = AllConfigs() }),
			`configuration "no-claims" has none to hold or wait for`},
		{"held on an existing cluster's own nodes is refused: they are not labelled", WorkloadBurst, held(func(o *Options) { o.Kubeconfig = "/nonexistent" }),
			"only with the created inventory (--create-inventory)"},
		{"held with the preemption workload is refused", WorkloadPreemption, held(nil),
			"pending reason held goes with the burst workload, not preemption"},
		{"held is refused when the measured pods need every node, naming the numbers", WorkloadBurst, held(func(o *Options) { o.Pods, o.Warmup = 195, 5 }),
			"pending reason held on 20 nodes of shape schedperf (10 devices each): the 195 measured and 5 warm-up pods need 20 free nodes, leaving none whose devices the 5 pending pods wait for"},
		{"held leaves one node to hold when the pods need all but one", WorkloadBurst, held(func(o *Options) { o.Pods, o.Warmup = 185, 5 }), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := completeWorkload(t, tc.workload, mustShape(t, "schedperf"), tc.change, tc.wantErr)
			if tc.wantErr == "" && o.PendingReason != PendingHeld && o.PendingReason != PendingTooBig {
				t.Errorf("pending reason %q after complete", o.PendingReason)
			}
		})
	}
}

func TestCountBacklog(t *testing.T) {
	bound := func(p *v1.Pod, node string) *v1.Pod { p.Spec.NodeName = node; return p }
	client := fake.NewClientset(
		bound(makeHolder("holder-0", "ns", ConfigOurs), "node-1"),
		bound(makeHolder("holder-1", "ns", ConfigOurs), "node-1"),
		makeHolder("holder-2", "ns", ConfigOurs),
		makeBacklogPod("pending-0", "ns", mustShape(t, "schedperf"), ConfigOurs, PendingHeld),
		bound(makeBacklogPod("pending-1", "ns", mustShape(t, "schedperf"), ConfigOurs, PendingHeld), "node-1"),
		bound(makePod("pod-0", "ns", ConfigOurs, ClaimsTemplate), "node-0"),
	)
	res := Result{Config: ConfigOurs, Pods: 1, Bound: 1, PendingPods: 2, PendingReason: PendingHeld, HolderPods: 3}
	if err := countBacklog(context.Background(), client, "ns", &res); err != nil {
		t.Fatal(err)
	}
	if res.PendingBound != 1 || res.HoldersBound != 2 {
		t.Errorf("%d pending pods bound and %d holders, want 1 and 2 (the measured pod is neither)", res.PendingBound, res.HoldersBound)
	}
	if msg := res.problem(); !strings.Contains(msg, "1 of 2 pending pods (held) bound") {
		t.Errorf("problem %q, want the bound pending pod named", msg)
	}
	res.PendingBound = 0
	if msg := res.problem(); !strings.Contains(msg, "only 2 of 3 holder pods still bound") {
		t.Errorf("problem %q, want the unbound holder named", msg)
	}
}

func TestBacklogNotes(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  Result
		want string // "": no note
	}{
		{"no backlog, no note", Result{Nodes: 8}, ""},
		{"a too-big backlog says so", Result{Nodes: 8, PendingPods: 3, PendingReason: PendingTooBig},
			"backlog of 3 pending pods (too-big) asking for more than a node has"},
		{"a held backlog says what holds the devices and where the measured pods go",
			Result{Nodes: 8, PendingPods: 3, PendingReason: PendingHeld, HolderPods: 70, FreeNodes: 1},
			"backlog of 3 pending pods (held) waiting for the devices 70 holder pods hold on the other 7 nodes; measured pods on 1 free nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(tc.res.backlogNotes(), "\n")
			if got != tc.want {
				t.Errorf("notes %q, want %q", got, tc.want)
			}
		})
	}
}
