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
	"testing"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

func TestGangPreemptionOptions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		change    func(*Options)
		wantErr   string
		wantSizes []int
	}{
		{"the defaults are two gangs each of 16, 36 and 72 in NVL72 racks", func(o *Options) { o.Sizes = []int{72} },
			"", []int{16, 36, 72, 16, 36, 72}},
		{"gangs and sizes are dealt out in turn", func(o *Options) { o.Sizes, o.Gangs, o.GangSizes = []int{72}, 4, []int{8, 24} },
			"", []int{8, 24, 8, 24}},
		{"device-plugin runs beside ours and in-tree", func(o *Options) {
			o.Sizes, o.Configs = []int{72}, []Config{ConfigOurs, ConfigDevicePlugin, ConfigInTree}
		}, "", []int{16, 36, 72, 16, 36, 72}},
		{"a gang larger than a rack is refused", func(o *Options) { o.Sizes, o.GangSizes = []int{72}, []int{73} },
			"a rack has at most 72 devices", nil},
		{"a gang larger than a cluster smaller than a rack is refused", func(o *Options) { o.Sizes = []int{10} },
			"a rack has at most 40 devices", nil},
		{"a gang of one pod is refused", func(o *Options) { o.Sizes, o.GangSizes = []int{72}, []int{1} },
			"want at least 2 pods", nil},
		{"no-claims has no devices to preempt for", func(o *Options) { o.Sizes, o.Configs = []int{72}, []Config{ConfigNoClaims} },
			"configuration \"no-claims\" has none", nil},
		{"pre-created claims are refused", func(o *Options) { o.Sizes, o.Claims = []int{72}, ClaimsPerPod },
			"claims from templates", nil},
		{"gangs that may go anywhere are refused", func(o *Options) { o.Sizes, o.GangPlacement = []int{72}, GangAnyNode },
			"one rack each", nil},
		{"pod counts are refused", func(o *Options) { o.Sizes, o.Pods = []int{72}, 10 },
			"sets its own pods", nil},
		{"an existing cluster is refused", func(o *Options) { o.Sizes, o.Kubeconfig = []int{72}, "kubeconfig" },
			"in-process control plane only", nil},
		{"negative gangs are refused", func(o *Options) { o.Sizes, o.Gangs = []int{72}, -1 },
			"want at least 1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := completeWorkload(t, WorkloadGangPreemption, mustShape(t, "h100x4"), tc.change, tc.wantErr)
			if tc.wantErr != "" {
				return
			}
			if got := o.gangPreemptionSizes(); !slices.Equal(got, tc.wantSizes) {
				t.Errorf("gang sizes %v, want %v", got, tc.wantSizes)
			}
			if o.RackSize != DefaultRackSize || o.GangPlacement != GangRack {
				t.Errorf("racks of %d, placement %s; want %d, %s", o.RackSize, o.GangPlacement, DefaultRackSize, GangRack)
			}
			gates := o.SchedulerFeatureGates(ConfigDevicePlugin)
			if !gates["GenericWorkload"] || !gates["TopologyAwareWorkloadScheduling"] {
				t.Errorf("the schedulers run without GenericWorkload and TopologyAwareWorkloadScheduling: %s", gates)
			}
			if len(o.workloadAPIServerFlags()) == 0 || len(o.workloadSchedulerFlags()) == 0 {
				t.Errorf("API server flags %v, scheduler flags %v: want PodGroups served and /metrics readable", o.workloadAPIServerFlags(), o.workloadSchedulerFlags())
			}
		})
	}
}

func TestLowPodNodesFollowTheLayout(t *testing.T) {
	o := DefaultOptions()
	o.Shape = mustShape(t, "h100x4")
	// Two racks of 3 nodes (12 devices), the last of 1 node (4 devices).
	cluster := o.Shape.Cluster(7)
	racks := InitialRackLayout(7, 3, 4)
	nodes := lowPodNodes(cluster, racks, 3)
	perNode := map[string]int{}
	for _, n := range nodes {
		perNode[n]++
	}
	var got []int
	for _, node := range cluster.Nodes {
		got = append(got, perNode[node.Name])
	}
	// 100% of 12, 95% of 12 (11), 90% of 4 (4).
	if want := []int{4, 4, 4, 4, 4, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("low-priority pods per node %v, want %v", got, want)
	}
}

func TestRackLowPodsArePreemptibleAndStayOnTheirNode(t *testing.T) {
	pod := makeRackLowPod("rack-low-0", "ns", ConfigOurs, "node-3")
	if pod.Spec.PriorityClassName != lowPriorityClass || pod.Spec.NodeSelector[v1.LabelHostname] != "node-3" ||
		pod.Spec.TerminationGracePeriodSeconds == nil || *pod.Spec.TerminationGracePeriodSeconds != victimGracePeriod {
		t.Errorf("priority class %q, node selector %v, grace period %v; want %s, node-3, %d",
			pod.Spec.PriorityClassName, pod.Spec.NodeSelector, pod.Spec.TerminationGracePeriodSeconds, lowPriorityClass, victimGracePeriod)
	}
	if dp := makeRackLowPod("rack-low-0", "ns", ConfigDevicePlugin, "node-3"); len(dp.Spec.ResourceClaims) != 0 || deviceUnits(dp) != 1 {
		t.Errorf("device-plugin's low pod has %d claims and %d units, want none and 1", len(dp.Spec.ResourceClaims), deviceUnits(dp))
	}
}

func TestRackOfGang(t *testing.T) {
	rackOf := map[string]int{"a": 0, "b": 0, "c": 1}
	for _, tc := range []struct {
		name   string
		nodeOf map[string]string
		want   string
	}{
		{"a gang on nodes of one rack is in that rack", map[string]string{"p0": "a", "p1": "b"}, "rack-000"},
		{"a gang on nodes of two racks is split", map[string]string{"p0": "a", "p1": "c"}, "split"},
		{"a gang without a bound pod is nowhere", map[string]string{}, "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rackOfGang([]string{"p0", "p1"}, tc.nodeOf, rackOf); got != tc.want {
				t.Errorf("rack %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGangVictimsAreAttributedByThePreemptedEventsNamingTheirPodGroup(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset(
		&schedulingapi.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "gang-0", Namespace: "ns", UID: "uid-0"}},
		&schedulingapi.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "gang-1", Namespace: "ns", UID: "uid-1"}},
	)
	preempted := func(name, victim, note string) {
		t.Helper()
		ev := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Reason: "Preempted", Note: note,
			Regarding: v1.ObjectReference{Kind: "Pod", Name: victim, UID: types.UID(victim)}}
		if _, err := client.EventsV1().Events("ns").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	preempted("e0", "low-0", "Preempted by podgroup uid-0 on node cluster")
	preempted("e1", "low-1", "Preempted by podgroup uid-0 on node cluster")
	preempted("e2", "low-1", "Preempted by podgroup uid-0 on node cluster") // the same victim twice
	preempted("e3", "low-2", "Preempted by podgroup uid-1 on node cluster")
	preempted("e4", "low-3", "Preempted by podgroup uid-other on node cluster")
	gp := &GangPreemptionResult{Gangs: []PreemptingGang{{Name: "gang-0"}, {Name: "gang-1"}}, Victims: 3}
	if err := attributeGangVictims(ctx, client, "ns", gp); err != nil {
		t.Fatal(err)
	}
	if a, b := gp.Gangs[0].VictimsByEvents, gp.Gangs[1].VictimsByEvents; a != 2 || b != 1 {
		t.Errorf("victims by events %d and %d, want 2 and 1", a, b)
	}
}
