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
	"math"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestDevicePluginNodes checks the nodes device-plugin sees, for every
// shape: as many units of DevicePluginResource in capacity and
// allocatable as the shape has devices per node, and otherwise the
// nodes every other configuration sees.
func TestDevicePluginNodes(t *testing.T) {
	for _, s := range Shapes() {
		t.Run("shape "+s.Name, func(t *testing.T) {
			o := Options{Shape: s}
			shared := s.Cluster(3)
			dp := o.forConfig(shared, ConfigDevicePlugin)
			if len(dp.Nodes) != len(shared.Nodes) || len(dp.Slices) != len(shared.Slices) || len(dp.Classes) != len(shared.Classes) {
				t.Fatalf("device-plugin sees %d nodes, %d slices, %d classes; the others %d, %d, %d",
					len(dp.Nodes), len(dp.Slices), len(dp.Classes), len(shared.Nodes), len(shared.Slices), len(shared.Classes))
			}
			for i, node := range dp.Nodes {
				orig := shared.Nodes[i]
				for field, list := range map[string]v1.ResourceList{"capacity": node.Status.Capacity, "allocatable": node.Status.Allocatable} {
					if q, ok := list[DevicePluginResource]; !ok || q.Value() != int64(s.DevicesPerNode) {
						t.Errorf("node %s: %s %s = %v, want %d", node.Name, field, DevicePluginResource, q.String(), s.DevicesPerNode)
					}
				}
				if _, ok := orig.Status.Capacity[DevicePluginResource]; ok {
					t.Errorf("node %s of the shared cluster was changed: %v", orig.Name, orig.Status.Capacity)
				}
				// Apart from that field, the node is the others' node with
				// its allocatable as the API server defaults it.
				want := orig.DeepCopy()
				if want.Status.Allocatable == nil {
					want.Status.Allocatable = want.Status.Capacity.DeepCopy()
				}
				got := node.DeepCopy()
				delete(got.Status.Capacity, DevicePluginResource)
				delete(got.Status.Allocatable, DevicePluginResource)
				if !apiequality.Semantic.DeepEqual(got, want) {
					t.Errorf("node %s differs beyond %s:\n got %+v\nwant %+v", node.Name, DevicePluginResource, got, want)
				}
			}
			for _, c := range []Config{ConfigOurs, ConfigInTree, ConfigNoClaims} {
				if other := o.forConfig(shared, c); &other.Nodes[0] != &shared.Nodes[0] {
					t.Errorf("%s does not see the shape's own nodes", c)
				}
			}
		})
	}
}

// TestNoDeviceClassMapsTheDevicePluginResource guards the choice of
// DevicePluginResource: a DeviceClass that maps it (extendedResourceName)
// would make kube-scheduler allocate it through DRA.
func TestNoDeviceClassMapsTheDevicePluginResource(t *testing.T) {
	for _, s := range Shapes() {
		for _, class := range s.Cluster(1).Classes {
			if name := class.Spec.ExtendedResourceName; name != nil && *name == string(DevicePluginResource) {
				t.Errorf("shape %s: DeviceClass %s maps %s", s.Name, class.Name, *name)
			}
		}
	}
}

// units returns the limit and request of DevicePluginResource of pod's
// container, -1 when absent.
func units(pod *v1.Pod) (limit, request int64) {
	limit, request = -1, -1
	r := pod.Spec.Containers[0].Resources
	if q, ok := r.Limits[DevicePluginResource]; ok {
		limit = q.Value()
	}
	if q, ok := r.Requests[DevicePluginResource]; ok {
		request = q.Value()
	}
	return limit, request
}

func TestDevicePluginPods(t *testing.T) {
	h100 := mustShape(t, "h100")
	for _, tc := range []struct {
		name        string
		pod         *v1.Pod
		wantUnits   int64 // -1: none
		wantClaims  int
		wantChecked func(*v1.Pod) string
	}{
		{"a device-plugin pod asks for one unit in limits and requests and has no claim",
			makePod("p", "ns", ConfigDevicePlugin, ClaimsTemplate), 1, 0, nil},
		{"a device-plugin pod in claims mode claim has no claim either",
			makePod("p", "ns", ConfigDevicePlugin, ClaimsPerPod), 1, 0, nil},
		{"ours' pod asks for its device through a claim, not the extended resource",
			makePod("p", "ns", ConfigOurs, ClaimsTemplate), -1, 1, nil},
		{"a no-claims pod asks for nothing",
			makePod("p", "ns", ConfigNoClaims, ClaimsTemplate), -1, 0, nil},
		{"a device-plugin backlog pod asks for one unit more than a node has, on any node",
			makePendingPod("pending-0", "ns", h100, ConfigDevicePlugin), 9, 0, func(p *v1.Pod) string {
				if len(p.Spec.NodeSelector) != 0 || p.Labels[pendingLabel] != "true" {
					return "it selects a node label, or lacks the pending label"
				}
				return ""
			}},
		{"a device-plugin preemptor asks for its devices as units",
			makePriorityPod("preemptor-0", "ns", ConfigDevicePlugin, ClaimsTemplate, highPriorityClass, 4), 4, 0, func(p *v1.Pod) string {
				if p.Spec.PriorityClassName != highPriorityClass || p.Labels[devicesLabel] != "4" {
					return "wrong priority class or devices label"
				}
				return ""
			}},
		{"a device-plugin victim asks for one unit and terminates gracefully",
			makeLowPod("low-0", "ns", ConfigDevicePlugin, ClaimsTemplate), 1, 0, func(p *v1.Pod) string {
				if p.Spec.PriorityClassName != lowPriorityClass || *p.Spec.TerminationGracePeriodSeconds != victimGracePeriod {
					return "wrong priority class or grace period"
				}
				return ""
			}},
		{"ours' preemptor keeps its claim of four devices",
			makePriorityPod("preemptor-0", "ns", ConfigOurs, ClaimsTemplate, highPriorityClass, 4), -1, 1, func(p *v1.Pod) string {
				if *p.Spec.ResourceClaims[0].ResourceClaimTemplateName != preemptionTemplate(4) {
					return "wrong template"
				}
				return ""
			}},
		{"a device-plugin gang pod asks for one unit in its pod group",
			makeGangPod("gang-0-0", "ns", ConfigDevicePlugin, "gang-0", templateName, ""), 1, 0, func(p *v1.Pod) string {
				if g := p.Spec.SchedulingGroup; g == nil || *g.PodGroupName != "gang-0" {
					return "not in its pod group"
				}
				return ""
			}},
		{"a device-plugin rack filler asks for one unit on its node",
			makeRackFiller("rack-filler-0", "ns", ConfigDevicePlugin, "node-3"), 1, 0, func(p *v1.Pod) string {
				if p.Spec.NodeSelector[v1.LabelHostname] != "node-3" {
					return "not on its node"
				}
				return ""
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limit, request := units(tc.pod)
			if limit != tc.wantUnits || request != tc.wantUnits {
				t.Errorf("%s limit %d, request %d; want %d (-1: none)", DevicePluginResource, limit, request, tc.wantUnits)
			}
			if got := deviceUnits(tc.pod); got != max(0, tc.wantUnits) {
				t.Errorf("deviceUnits = %d, want %d", got, max(0, tc.wantUnits))
			}
			if n, c := len(tc.pod.Spec.ResourceClaims), len(tc.pod.Spec.Containers[0].Resources.Claims); n != tc.wantClaims || c != tc.wantClaims {
				t.Errorf("%d pod claims, %d container claims; want %d", n, c, tc.wantClaims)
			}
			if tc.wantChecked != nil {
				if msg := tc.wantChecked(tc.pod); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

func TestDevicePluginOptions(t *testing.T) {
	withDP := func(o *Options) { o.Configs = []Config{ConfigOurs, ConfigDevicePlugin} }
	for _, tc := range []struct {
		name     string
		workload Workload
		shape    string
		change   func(*Options)
		wantErr  string
	}{
		{"device-plugin runs the burst workload", WorkloadBurst, "schedperf", withDP, ""},
		{"device-plugin runs the backlog of pending pods", WorkloadBurst, "schedperf", func(o *Options) { withDP(o); o.Pending = 5 }, ""},
		{"device-plugin runs the preemption workload", WorkloadPreemption, "h100", withDP, ""},
		{"device-plugin runs gangs of whole devices in racks", WorkloadGang, "h100x4", func(o *Options) {
			withDP(o)
			o.GangPlacement, o.RackSize, o.GangSize, o.Sizes = GangRack, 4, 8, []int{20}
		}, ""},
		{"device-plugin runs gangs of whole devices in racks that go anywhere", WorkloadGang, "h100x4", func(o *Options) {
			withDP(o)
			o.GangPlacement, o.RackSize, o.GangSize, o.Sizes = GangAnyNode, 4, 8, []int{20}
		}, ""},
		{"device-plugin is refused for gangs that fall back to parts on nodes of their own", WorkloadGang, "h100-mig", withDP,
			`configuration "device-plugin" runs gangs of whole devices only, in racks`},
		{"device-plugin is refused for gangs that fall back to parts anywhere", WorkloadGang, "h100-mig", func(o *Options) {
			withDP(o)
			o.GangPlacement = GangAnyNode
		}, `configuration "device-plugin" runs gangs of whole devices only`},
		{"device-plugin is refused on an existing cluster's own nodes", WorkloadBurst, "schedperf", func(o *Options) {
			withDP(o)
			o.Kubeconfig, o.Pods = "/nonexistent", 2
		}, "needs nodes that advertise dra-bench.example.com/device in their status"},
		{"device-plugin runs on an existing cluster with the created inventory", WorkloadBurst, "schedperf", func(o *Options) {
			withDP(o)
			o.Kubeconfig, o.CreateInventory = "/nonexistent", true
		}, ""},
		{"no-claims is still refused for preemption", WorkloadPreemption, "h100", func(o *Options) {
			o.Configs = []Config{ConfigDevicePlugin, ConfigNoClaims}
		}, `configuration "no-claims" has none`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			completeWorkload(t, tc.workload, mustShape(t, tc.shape), tc.change, tc.wantErr)
		})
	}
}

func TestParseConfigsKnowsDevicePlugin(t *testing.T) {
	got, err := ParseConfigs("device-plugin,ours")
	if err != nil || len(got) != 2 || got[0] != ConfigDevicePlugin {
		t.Errorf("ParseConfigs(device-plugin,ours) = %v, %v", got, err)
	}
	if _, err := ParseConfigs("dp"); err == nil || !strings.Contains(err.Error(), "device-plugin") {
		t.Errorf("the error of an unknown configuration does not name device-plugin: %v", err)
	}
	if ConfigDevicePlugin.HasClaims() || !ConfigDevicePlugin.NeedsDevices() || ConfigNoClaims.NeedsDevices() {
		t.Error("device-plugin has claims, or one of device-plugin and no-claims is wrong about needing devices")
	}
}

func TestPreemptionObjectsOfDevicePluginAreNoTemplates(t *testing.T) {
	client := fake.NewClientset()
	if err := createPreemptionObjects(context.Background(), client, "ns", mustShape(t, "h100"), ConfigDevicePlugin, ClaimsPerPod, preemptionPods{lows: []string{"low-0"}, preemptors: []string{"preemptor-0"}, sizes: []int{4}}, 2); err != nil {
		t.Fatal(err)
	}
	templates, err := client.ResourceV1().ResourceClaimTemplates("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(templates.Items) != 0 {
		t.Errorf("device-plugin's preemption made %d claim templates (%v), want none", len(templates.Items), err)
	}
	claims, err := client.ResourceV1().ResourceClaims("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(claims.Items) != 0 {
		t.Errorf("device-plugin's preemption made %d claims (%v), want none", len(claims.Items), err)
	}
	classes, err := client.SchedulingV1().PriorityClasses().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(classes.Items) != 2 {
		t.Errorf("%d PriorityClasses (%v), want the low and the high one", len(classes.Items), err)
	}
}

func TestCheckUnits(t *testing.T) {
	pod := func(name, node string, units int) *v1.Pod {
		p := makePod(name, "ns", ConfigDevicePlugin, ClaimsTemplate)
		setDeviceUnits(p, units)
		p.Spec.NodeName = node
		return p
	}
	for _, tc := range []struct {
		name        string
		pods        []*v1.Pod
		wantOver    int
		wantExample string
	}{
		{"pods filling every node's units exactly are fine", []*v1.Pod{pod("a", "n1", 4), pod("b", "n2", 2), pod("c", "n2", 2)}, 0, ""},
		{"pods not bound hold no units", []*v1.Pod{pod("a", "n1", 4), pod("b", "", 4)}, 0, ""},
		{"units beyond a node's count as devices held twice", []*v1.Pod{pod("a", "n1", 4), pod("b", "n1", 1), pod("c", "n2", 8)}, 5,
			"node n1 has pods bound asking for 5 of its 4 dra-bench.example.com/device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			for _, p := range tc.pods {
				if _, err := client.CoreV1().Pods("ns").Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			over, example, err := checkUnits(context.Background(), client, "ns", 4)
			if err != nil || over != tc.wantOver || example != tc.wantExample {
				t.Errorf("checkUnits = %d, %q, %v; want %d, %q", over, example, err, tc.wantOver, tc.wantExample)
			}
		})
	}
}

// TestCPUVsDevicePlugin checks the ratio of each result's scheduler CPU
// per pod to device-plugin's at the same size.
func TestCPUVsDevicePlugin(t *testing.T) {
	res := func(nodes int, c Config, pods int, cpu float64) Result {
		return Result{Nodes: nodes, Config: c, Pods: pods, Bound: pods, PodsPerSecond: 10, SchedulerCPUSeconds: cpu}
	}
	for _, tc := range []struct {
		name    string
		results []Result
		want    []float64 // per result; 0: absent
	}{
		{"ours is compared per pod with device-plugin at its size",
			[]Result{res(10, ConfigOurs, 100, 3), res(10, ConfigDevicePlugin, 50, 0.5)}, []float64{3, 1}},
		{"each size is compared with its own device-plugin result",
			[]Result{res(10, ConfigInTree, 10, 2), res(10, ConfigDevicePlugin, 10, 1), res(20, ConfigInTree, 20, 2), res(20, ConfigDevicePlugin, 20, 4)},
			[]float64{2, 1, 0.5, 1}},
		{"without a device-plugin result there is no ratio",
			[]Result{res(10, ConfigOurs, 10, 1), res(10, ConfigNoClaims, 10, 1)}, []float64{0, 0}},
		{"a device-plugin result at another size is no comparison",
			[]Result{res(10, ConfigOurs, 10, 1), res(20, ConfigDevicePlugin, 10, 1)}, []float64{0, 1}},
		{"device-plugin's CPU reading 0 gives no ratio, not an infinity",
			[]Result{res(10, ConfigOurs, 10, 1), res(10, ConfigDevicePlugin, 10, 0)}, []float64{0, 0}},
		{"a CPU reading 0 gives no ratio, not a zero",
			[]Result{res(10, ConfigOurs, 10, 0), res(10, ConfigDevicePlugin, 10, 1)}, []float64{0, 1}},
		{"preemption results are compared per preemptor",
			[]Result{{Nodes: 4, Config: ConfigOurs, Pods: 4, SchedulerCPUSeconds: 0.8, Preemption: &PreemptionResult{}},
				{Nodes: 4, Config: ConfigDevicePlugin, Pods: 4, SchedulerCPUSeconds: 0.2, Preemption: &PreemptionResult{}}}, []float64{4, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &Report{Results: tc.results}
			rep.fillComparisons()
			for i, r := range rep.Results {
				switch {
				case tc.want[i] == 0 && r.CPUVsDevicePlugin != nil:
					t.Errorf("%d nodes %s: CPU vs device-plugin %v, want none", r.Nodes, r.Config, *r.CPUVsDevicePlugin)
				case tc.want[i] != 0 && (r.CPUVsDevicePlugin == nil || *r.CPUVsDevicePlugin != tc.want[i]):
					t.Errorf("%d nodes %s: CPU vs device-plugin %v, want %v", r.Nodes, r.Config, deref(r.CPUVsDevicePlugin), tc.want[i])
				}
			}
		})
	}
}

// TestP99FloorVsDevicePlugin checks the p99 ratio against device-plugin's
// and the floor the control plane's CPU sets under it.
func TestP99FloorVsDevicePlugin(t *testing.T) {
	res := func(c Config, pods int, p99 time.Duration, sched, cp float64) Result {
		return Result{Nodes: 10, Config: c, Pods: pods, Bound: pods, Latency: Latency{P99Ns: int64(p99)},
			SchedulerCPUSeconds: sched, ControlPlaneCPUSeconds: cp, Preemption: &PreemptionResult{}}
	}
	type ratios struct{ p99, controlPlane, floor float64 } // 0: absent
	for _, tc := range []struct {
		name    string
		results []Result
		want    []ratios // per result
	}{
		{"a scheduler as cheap as device-plugin's beside ours' control plane sets the floor",
			[]Result{res(ConfigOurs, 10, 15*time.Second, 14, 16), res(ConfigDevicePlugin, 10, 10*time.Second, 10, 10)},
			[]ratios{{1.5, 1.6, 1.3}, {1, 1, 1}}},
		{"the control plane's CPU is compared per measured pod",
			[]Result{res(ConfigOurs, 20, 2*time.Second, 4, 12), res(ConfigDevicePlugin, 10, time.Second, 1, 3)},
			[]ratios{{2, 2, 1.75}, {1, 1, 1}}},
		{"a control plane whose CPU reads 0 (another cluster's) gives no control-plane ratio and no floor",
			[]Result{res(ConfigOurs, 10, 2*time.Second, 2, 0), res(ConfigDevicePlugin, 10, time.Second, 1, 0)},
			[]ratios{{2, 0, 0}, {1, 0, 0}}},
		{"a run that bound nothing gives no p99 ratio",
			[]Result{{Nodes: 10, Config: ConfigOurs, Pods: 10, SchedulerCPUSeconds: 1, ControlPlaneCPUSeconds: 2},
				res(ConfigDevicePlugin, 10, time.Second, 1, 1)},
			[]ratios{{0, 2, 1.5}, {1, 1, 1}}},
		{"device-plugin's scheduler CPU reading 0 leaves the p99 and control plane ratios but no floor",
			[]Result{res(ConfigOurs, 10, 3*time.Second, 1, 2), res(ConfigDevicePlugin, 10, time.Second, 0, 1)},
			[]ratios{{3, 2, 0}, {1, 1, 0}}},
		{"without a device-plugin result there is nothing to compare",
			[]Result{res(ConfigOurs, 10, time.Second, 1, 1), res(ConfigInTree, 10, time.Second, 1, 1)},
			[]ratios{{}, {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &Report{Results: tc.results}
			rep.fillComparisons()
			for i, r := range rep.Results {
				for _, f := range []struct {
					name string
					got  *float64
					want float64
				}{
					{"p99", r.P99VsDevicePlugin, tc.want[i].p99},
					{"control plane CPU", r.ControlPlaneCPUVsDevicePlugin, tc.want[i].controlPlane},
					{"p99 floor", r.P99FloorVsDevicePlugin, tc.want[i].floor},
				} {
					switch {
					case f.want == 0 && f.got != nil:
						t.Errorf("%s: %s vs device-plugin %v, want none", r.Config, f.name, *f.got)
					case f.want != 0 && (f.got == nil || math.Abs(*f.got-f.want) > 1e-9):
						t.Errorf("%s: %s vs device-plugin %v, want %v", r.Config, f.name, deref(f.got), f.want)
					}
				}
			}
		})
	}
}

func TestTablesShowTheDevicePluginComparison(t *testing.T) {
	burst := sampleReport()
	dp := burst.Results[5]
	dp.Config, dp.SchedulerCPUSeconds, dp.APIWrites = ConfigDevicePlugin, 0.5, 300
	burst.Results = append(burst.Results, dp)
	burst.fillComparisons()
	preemption := samplePreemptionReport()
	pdp := preemption.Results[0]
	pdp.Config, pdp.SchedulerCPUSeconds, pdp.ControlPlaneCPUSeconds, pdp.APIWrites = ConfigDevicePlugin, 0.1, 0.4, 100
	preemption.Results[0].APIWrites, preemption.Results[0].ControlPlaneCPUSeconds = 200, 0.8
	preemption.Results = append(preemption.Results, pdp)
	preemption.fillComparisons()
	out := collapsedTable(t, burst) + "\n" + collapsedTable(t, preemption)
	wantRows(t, out, []tableRow{
		{"the burst table compares ours' CPU with device-plugin's at 500 nodes", "500 ours 100 100 556ms 180 120ms 240ms 360ms 480ms 2.00× 50% 150 1.50 3.00× - -"},
		{"device-plugin's writes per pod are reported", "500 device-plugin 100 100 278ms 360 25ms 50ms 75ms 100ms 4.00× 100% 150 0.50 1.00× - 3.0"},
		{"the preemption table has the CPU ratio and writes per preemptor", "32 ours 8 8 30 30 1.6s 300ms 1.6s 1.6s 0.40 50.0 4.00× 25.0 1.00× 2.00× 1.80×"},
		{"device-plugin's preemption row", "32 device-plugin 8 8 30 30 1.6s 300ms 1.6s 1.6s 0.10 12.5 1.00× 12.5 1.00× 1.00× 1.00×"},
	})
}

func TestFigureDrawsDevicePluginInAColourOfItsOwn(t *testing.T) {
	rep := sampleReport()
	for _, n := range []int{100, 500} {
		rep.Results = append(rep.Results, Result{Nodes: n, Config: ConfigDevicePlugin, Pods: 100, Bound: 100, PodsPerSecond: 500,
			Latency: Latency{P50Ns: 1e7, P99Ns: 3e7}})
	}
	colours := map[string]string{}
	for _, p := range rep.Figure().Panels {
		for _, s := range p.Series {
			colours[s.Name] = s.Color
			if strings.HasPrefix(s.Name, "device-plugin") && len(s.Points) != 2 {
				t.Errorf("series %s has %d points, want one per size", s.Name, len(s.Points))
			}
		}
	}
	for _, name := range []string{"device-plugin", "device-plugin p50", "device-plugin p99"} {
		c, ok := colours[name]
		if !ok {
			t.Errorf("no series %q", name)
			continue
		}
		for _, other := range []string{"ours", "in-tree", "no-claims"} {
			if c == colours[other] {
				t.Errorf("series %q has %s's colour %s", name, other, c)
			}
		}
	}
}
