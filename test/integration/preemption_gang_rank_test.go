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

package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// rackFill is low-priority pods a case puts on one node before the gang
// comes.
type rackFill struct {
	node, class, template string
	n                     int
	// labels go on the pods; startedAgo, when set, is how long ago their
	// status says they started.
	labels     map[string]string
	startedAgo time.Duration
	// group, when set, is a PodGroup of the class whose disruptionMode
	// is All, made on first use, that the pods join; without template
	// they have no claim.
	group string
}

// TestAHighPriorityGangPreemptsInTheRackWhoseVictimsCostLeast: with a rack
// constraint, a gang of four one-GPU pods can go to rack-1 (r1-a, r1-b) or
// rack-2 (r2-a, r2-b), two GPUs per node, and must preempt in either. In
// every case rack-1 is the rack the gang's devices alone would choose (its
// name comes first, or its victims hold fewer devices), and rack-2 the
// one whose victims are cheaper by DefaultPreemption's order of
// candidates (issue 55, point 2): the gang goes to rack-2, evicts all of
// its pods, and rack-1's stay. A pod group whose disruptionMode is All
// costs all its pods, those without claims included, as DefaultPreemption
// evicts it whole.
func TestAHighPriorityGangPreemptsInTheRackWhoseVictimsCostLeast(t *testing.T) {
	e := startTopologyCluster(t, topologyConfig)
	e.createPreemptionPriorities()
	e.startKubeletStandIn()
	const driver = "rackpreempt.example.com"
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("gpu-1", e.ns, "gpu", driver, 1),
		objects.ClaimTemplate("gpu-2", e.ns, "gpu", driver, 2))
	for _, n := range []struct{ name, rack string }{{"r1-a", "rack-1"}, {"r1-b", "rack-1"}, {"r2-a", "rack-2"}, {"r2-b", "rack-2"}} {
		e.create(rackNode(n.name, n.rack, driver, 2)...)
	}
	guarded := map[string]string{"app": "guarded"}
	none := intstr.FromInt32(0)
	// No disruption controller runs here: the budget's status stays at
	// zero disruptions allowed.
	if _, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Create(e.ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "guarded", Namespace: e.ns},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: guarded}, MaxUnavailable: &none},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PodDisruptionBudget: %v", err)
	}
	root := e.t
	for i, tc := range []struct {
		name         string
		rack1, rack2 []rackFill
	}{
		{
			name:  "two victims win over four",
			rack1: []rackFill{{node: "r1-a", class: "low", template: "gpu-1", n: 2}, {node: "r1-b", class: "low", template: "gpu-1", n: 2}},
			rack2: []rackFill{{node: "r2-a", class: "low", template: "gpu-1", n: 2}},
		},
		{
			name:  "two victims of low priority win over one of mid priority",
			rack1: []rackFill{{node: "r1-a", class: "mid", template: "gpu-2", n: 1}},
			rack2: []rackFill{{node: "r2-a", class: "low", template: "gpu-1", n: 1}, {node: "r2-b", class: "low", template: "gpu-1", n: 1}},
		},
		{
			name:  "three victims no PodDisruptionBudget protects win over two that one does",
			rack1: []rackFill{{node: "r1-a", class: "low", template: "gpu-1", n: 2, labels: guarded}},
			rack2: []rackFill{{node: "r2-a", class: "low", template: "gpu-1", n: 2}, {node: "r2-b", class: "low", template: "gpu-1", n: 1}},
		},
		{
			name: "four victims alone win over two whose pod group of five goes whole",
			rack1: []rackFill{{node: "r1-a", class: "low", template: "gpu-1", n: 2, group: "whole"},
				{node: "r1-b", class: "low", n: 3, group: "whole"}},
			rack2: []rackFill{{node: "r2-a", class: "low", template: "gpu-1", n: 2}, {node: "r2-b", class: "low", template: "gpu-1", n: 2}},
		},
		{
			name:  "two victims started a minute ago win over two started an hour ago",
			rack1: []rackFill{{node: "r1-a", class: "low", template: "gpu-1", n: 2, startedAgo: time.Hour}},
			rack2: []rackFill{{node: "r2-a", class: "low", template: "gpu-1", n: 2, startedAgo: time.Minute}},
		},
	} {
		root.Run(tc.name, func(t *testing.T) {
			e.preemptionCase(t)
			rack1, rack2 := e.fillRack("rack1", tc.rack1), e.fillRack("rack2", tc.rack2)
			e.explainGangPreemption(fmt.Sprintf("probe-%d", i), 4, "rack", "rack=rack-2", rack2)
			gang := e.highGang(fmt.Sprintf("train-%d", i), 4, "rack")
			for _, name := range gang {
				if pod := e.waitScheduled(name); !strings.HasPrefix(pod.Spec.NodeName, "r2-") {
					t.Errorf("gang pod %s is on %s, want a node of rack-2", name, pod.Spec.NodeName)
				}
			}
			if victims := e.evicted(append(slices.Clone(rack1), rack2...)); !slices.Equal(victims, rack2) {
				t.Fatalf("pods %v were evicted for the gang, want rack-2's %v; events of %s: %s", victims, rack2, gang[0], describeEvents(e.schedulerEvents(gang[0])))
			}
			e.waitFor("a PreemptionDomain event naming rack-2 the cheapest", func() (bool, string) {
				for _, ev := range e.schedulerEvents(gang[0]) {
					if ev.Reason == "PreemptionDomain" && strings.Contains(ev.Note, "rack=rack-2 (cheapest): ") && strings.Contains(ev.Note, rack2[0]) {
						return true, ""
					}
				}
				return false, describeEvents(e.schedulerEvents(gang[0]))
			})
			e.holdsFor(2*time.Second, "rack-1's pods to stay", func() string { return e.intact(rack1...) })
			e.checkNoDeviceTwice()
		})
	}
}

// fillRack creates the fills' pods, prefix-<node>-<i>, waits until they
// are bound and gives them the start time their fill asks for.
func (e *env) fillRack(prefix string, fills []rackFill) []string {
	e.t.Helper()
	var names []string
	for _, f := range fills {
		var pods []string
		if f.group != "" {
			e.wholeGroup(f.group, f.class)
		}
		for i := range f.n {
			pod := pinned(preemptionPod(fmt.Sprintf("%s-%s-%d", prefix, f.node, i), e.ns, f.class, f.template), f.node)
			pod.Labels = f.labels
			if f.template == "" {
				pod.Spec.ResourceClaims, pod.Spec.Containers[0].Resources.Claims = nil, nil
			}
			if f.group != "" {
				pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(f.group)}
			}
			e.create(pod)
			pods = append(pods, pod.Name)
		}
		e.waitBoundOn(f.node, pods...)
		if f.startedAgo > 0 {
			for _, name := range pods {
				e.setStarted(name, time.Now().Add(-f.startedAgo))
			}
		}
		names = append(names, pods...)
	}
	return names
}

// wholeGroup creates PodGroup name of priority class, without a gang
// policy, whose disruptionMode is All, unless it exists.
func (e *env) wholeGroup(name, class string) {
	e.t.Helper()
	if _, err := e.client.SchedulingV1beta1().PodGroups(e.ns).Get(e.ctx, name, metav1.GetOptions{}); err == nil {
		return
	}
	e.createPodGroup(&schedulingapi.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns},
		Spec: schedulingapi.PodGroupSpec{
			SchedulingPolicy:  schedulingapi.PodGroupSchedulingPolicy{Basic: &schedulingapi.BasicSchedulingPolicy{}},
			PriorityClassName: class,
			DisruptionMode:    &schedulingapi.DisruptionMode{All: &schedulingapi.AllDisruptionMode{}},
		},
	})
}

// setStarted writes the pod's status as a kubelet would once it started
// the pod at start: phase Running, startTime.
func (e *env) setStarted(name string, start time.Time) {
	e.t.Helper()
	pod := e.pod(name)
	pod.Status.Phase = v1.PodRunning
	pod.Status.StartTime = &metav1.Time{Time: start}
	if _, err := e.client.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, pod, metav1.UpdateOptions{}); err != nil {
		e.t.Fatalf("set the start time of pod %s: %v", name, err)
	}
}

// explainGangPreemption creates a high-priority gang of size gated pods
// in one domain of key and checks that kubectl dra explain, for its first
// pod, says its preemption goes to domain and evicts victims there; then
// it deletes the gang's pods.
func (e *env) explainGangPreemption(name string, size int, key, domain string, victims []string) {
	e.t.Helper()
	pods := e.priorityGang(name, "high", size, key, "gpu", "gpu-1", func(pod *v1.Pod) {
		pod.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "dra-scheduler.io/explain-test"}}
	})
	defer e.deletePods(pods)
	objs, err := clusterstate.Get(e.ctx, e.client, clusterstate.Query{Namespace: e.ns, Pod: pods[0], Preemption: true})
	if err != nil {
		e.t.Fatalf("read the cluster for explain: %v", err)
	}
	c := explain.NewCluster(objs, explain.Settings{Policy: allocator.FirstFit})
	pod, err := c.FindPod(e.ns, pods[0])
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := c.Pod(e.ctx, pod)
	if err != nil {
		e.t.Fatalf("explain pod %s: %v", pods[0], err)
	}
	var got []string
	if r.Gang != nil && r.Gang.Preemption != nil {
		for _, v := range r.Gang.Preemption.Victims {
			got = append(got, strings.TrimPrefix(v.Pod, e.ns+"/"))
		}
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(victims))
	if r.Gang == nil || r.Gang.Preemption == nil || r.Gang.Preemption.Domain != domain || !slices.Equal(got, want) {
		e.t.Errorf("explain pod %s says %q, group preemption %+v; want %v evicted in %s", pods[0], r.Verdict, r.Gang, want, domain)
	}
}

// TestAHighPriorityGangTakesTheFreeDevicesOfEveryNodeBeforeVictims: one
// rack of four nodes of four GPUs, each node with three held by low pods
// and one free. A gang of six needs two victims: the four free GPUs and
// two of the low pods'. A plan over the devices the victims free packs
// the gang on the first two nodes (four pods and two) and evicts four
// (the benchmark's 12 victims for 5).
func TestAHighPriorityGangTakesTheFreeDevicesOfEveryNodeBeforeVictims(t *testing.T) {
	e := startTopologyCluster(t, topologyConfig)
	e.createPreemptionPriorities()
	e.startKubeletStandIn()
	const driver = "spread.example.com"
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("gpu-1", e.ns, "gpu", driver, 1))
	var lows []string
	for _, n := range []string{"s-a", "s-b", "s-c", "s-d"} {
		e.create(rackNode(n, "rack-1", driver, 4)...)
		lows = append(lows, e.fill("low-"+n, "low", "gpu-1", n, 3)...)
	}
	gang := e.highGang("train", 6, "rack")
	for _, name := range gang {
		e.waitScheduled(name)
	}
	if victims := e.evicted(lows); len(victims) != 2 {
		t.Fatalf("pods %v were evicted for the gang of 6, want 2 of %v; events of %s: %s", victims, lows, gang[0], describeEvents(e.schedulerEvents(gang[0])))
	}
	e.checkNoDeviceTwice()
}
