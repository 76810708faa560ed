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
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestPreemptorMix(t *testing.T) {
	for _, tc := range []struct {
		name           string
		count, perNode int
		want           []int
	}{
		{"four preemptors get one of each size", 4, 8, []int{1, 2, 4, 8}},
		{"more preemptors deal the sizes out again in turn", 6, 8, []int{1, 2, 4, 8, 1, 2}},
		{"one preemptor needs one device", 1, 8, []int{1}},
		{"sizes larger than a node are left out", 5, 4, []int{1, 2, 4, 1, 2}},
		{"a node of ten devices takes every size", 4, 10, []int{1, 2, 4, 8}},
		{"no preemptors make an empty mix", 0, 8, []int{}},
		{"nodes with no device take no preemptor", 3, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PreemptorMix(tc.count, tc.perNode); !slices.Equal(got, tc.want) {
				t.Errorf("PreemptorMix(%d, %d) = %v, want %v", tc.count, tc.perNode, got, tc.want)
			}
		})
	}
}

func TestMinVictims(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
		want  int
	}{
		{"each device a preemptor needs is one low-priority pod's", []int{1, 2, 4, 8}, 15},
		{"a single preemptor of eight devices needs eight victims", []int{8}, 8},
		{"no preemptors need no victims", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MinVictims(tc.sizes); got != tc.want {
				t.Errorf("MinVictims(%v) = %d, want %d", tc.sizes, got, tc.want)
			}
		})
	}
}

func TestDefaultPreemptors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, wantP int
	}{
		{"one preemptor per four nodes", 20, 5},
		{"at least one preemptor on a small cluster", 3, 1},
		{"seven nodes get one preemptor", 7, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DefaultPreemptors(tc.n); got != tc.wantP {
				t.Errorf("DefaultPreemptors(%d) = %d, want %d", tc.n, got, tc.wantP)
			}
		})
	}
}

func TestPreemptorUID(t *testing.T) {
	for _, tc := range []struct {
		name, note, want string
	}{
		{"kube-scheduler's note names the preemptor's UID", "Preempted by pod 181710c0-65d9 on node h100-1", "181710c0-65d9"},
		{"another note names none", "Successfully assigned dra-bench/low-0 to h100-3", ""},
		{"an empty note names none", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := preemptorUID(tc.note); got != tc.want {
				t.Errorf("preemptorUID(%q) = %q, want %q", tc.note, got, tc.want)
			}
		})
	}
}

func TestPreemptionOptions(t *testing.T) {
	h100, _ := ShapeByName("h100")
	for _, tc := range []struct {
		name    string
		change  func(*Options)
		wantErr string
	}{
		{"the defaults are accepted", func(*Options) {}, ""},
		{"no-claims has no devices to preempt for", func(o *Options) { o.Configs = AllConfigs() }, `configuration "no-claims" has none`},
		{"more preemptors than nodes are refused", func(o *Options) { o.Preemptors = 21 }, "21 preemptors on 20 nodes"},
		{"one preemptor per node is accepted", func(o *Options) { o.Preemptors = 20 }, ""},
		{"an existing cluster is refused", func(o *Options) { o.Kubeconfig = "/nonexistent" }, "in-process control plane only"},
		{"measured pods are refused", func(o *Options) { o.Pods = 5 }, "sets its own pods"},
		{"pre-created claims are accepted", func(o *Options) { o.Claims = ClaimsPerPod }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			completeWorkload(t, WorkloadPreemption, h100, tc.change, tc.wantErr)
		})
	}
}

// samplePreemptionReport has ours preempting for every preemptor with the
// fewest victims and in-tree preempting for none.
func samplePreemptionReport() *Report {
	sizes := func(bound bool, victims bool) []PreemptorSize {
		var out []PreemptorSize
		for _, d := range []int{1, 2, 4, 8} {
			s := PreemptorSize{Devices: d, Preemptors: 2, MinVictims: 2 * d}
			if bound {
				s.Bound = 2
				s.Latency = Latency{P50Ns: int64(time.Duration(d) * 100 * time.Millisecond), P99Ns: int64(time.Duration(d) * 200 * time.Millisecond), MaxNs: int64(time.Duration(d) * 200 * time.Millisecond)}
			}
			if victims {
				s.Victims = 2 * d
			}
			out = append(out, s)
		}
		return out
	}
	return &Report{Tool: "dra-bench scheduler", SchemaVersion: ReportSchemaVersion,
		Settings: Settings{Workload: WorkloadPreemption, PreemptionTimeoutNs: int64(time.Minute), Shape: "h100", Claims: "template", Target: "in-process control plane"},
		Results: []Result{
			{Nodes: 32, Devices: 256, Config: ConfigOurs, Pods: 8, Bound: 8, SpanNs: int64(1600 * time.Millisecond),
				Latency:             Latency{P50Ns: int64(300 * time.Millisecond), P99Ns: int64(1600 * time.Millisecond), MaxNs: int64(1600 * time.Millisecond)},
				SchedulerCPUSeconds: 0.4, ResourceClaimWorkers: 50,
				Preemption: &PreemptionResult{LowPods: 256, Victims: 30, MinVictims: 30, Sizes: sizes(true, true)}},
			{Nodes: 32, Devices: 256, Config: ConfigInTree, Pods: 8, SchedulerCPUSeconds: 0.2, ResourceClaimWorkers: 50,
				Preemption: &PreemptionResult{LowPods: 256, MinVictims: 30, Sizes: sizes(false, false)}},
		}}
}

func TestPreemptionObjectsGiveEachPodTheClaimItsDevicesNeed(t *testing.T) {
	pods := preemptionPods{lows: []string{"low-0", "low-1"}, preemptors: []string{"preemptor-0", "preemptor-1"}, sizes: []int{2, 8}}
	for _, tc := range []struct {
		name string
		mode ClaimMode
		// templates and claims are the device counts created, by name.
		templates, claims map[string]int64
	}{
		{"templates come one per device count, the low pods' one included", ClaimsTemplate,
			map[string]int64{preemptionTemplate(1): 1, preemptionTemplate(2): 2, preemptionTemplate(8): 8}, map[string]int64{}},
		{"pre-created claims come one per pod, of its devices", ClaimsPerPod,
			map[string]int64{}, map[string]int64{"low-0": 1, "low-1": 1, "preemptor-0": 2, "preemptor-1": 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			client := fake.NewClientset()
			if err := createPreemptionObjects(ctx, client, "ns", mustShape(t, "h100"), ConfigOurs, tc.mode, pods, 2); err != nil {
				t.Fatal(err)
			}
			templates, err := client.ResourceV1().ResourceClaimTemplates("ns").List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gotTemplates := map[string]int64{}
			for _, tmpl := range templates.Items {
				gotTemplates[tmpl.Name] = tmpl.Spec.Spec.Devices.Requests[0].Exactly.Count
			}
			claims, err := client.ResourceV1().ResourceClaims("ns").List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gotClaims := map[string]int64{}
			for _, claim := range claims.Items {
				gotClaims[claim.Name] = claim.Spec.Devices.Requests[0].Exactly.Count
			}
			if !maps.Equal(gotTemplates, tc.templates) || !maps.Equal(gotClaims, tc.claims) {
				t.Errorf("templates %v and claims %v, want %v and %v", gotTemplates, gotClaims, tc.templates, tc.claims)
			}
			// Each pod references what was made for it.
			for i := range len(pods.lows) + len(pods.preemptors) {
				name, devices := pods.devices(i)
				pod := makePriorityPod(name, "ns", ConfigOurs, tc.mode, highPriorityClass, devices)
				if i < len(pods.lows) {
					pod = makeLowPod(name, "ns", ConfigOurs, tc.mode)
				}
				ref := pod.Spec.ResourceClaims[0]
				switch {
				case ref.ResourceClaimTemplateName != nil:
					if _, ok := gotTemplates[*ref.ResourceClaimTemplateName]; !ok || *ref.ResourceClaimTemplateName != preemptionTemplate(devices) {
						t.Errorf("pod %s of %d devices references template %s", name, devices, *ref.ResourceClaimTemplateName)
					}
				case ref.ResourceClaimName != nil:
					if gotClaims[*ref.ResourceClaimName] != int64(devices) {
						t.Errorf("pod %s of %d devices references claim %s of %d", name, devices, *ref.ResourceClaimName, gotClaims[*ref.ResourceClaimName])
					}
				default:
					t.Errorf("pod %s references neither a claim nor a template", name)
				}
			}
		})
	}
}

func TestPreemptionTable(t *testing.T) {
	out := collapsedTable(t, samplePreemptionReport())
	wantRows(t, out, []tableRow{
		{"the header names the workload", "dra-bench scheduler: workload preemption: shape h100"},
		{"the main table has victims beside their minimum and CPU per preemptor", "nodes config preemptors bound victims minimum time p50 p99 max sched CPU s CPU ms/preemptor"},
		{"ours bound every preemptor with the fewest victims", "32 ours 8 8 30 30 1.6s 300ms 1.6s 1.6s 0.40 50.0"},
		{"in-tree bound none and evicted none", "32 in-tree 8 0 0 30 - - - - 0.20 25.0"},
		{"the sizes table gives the victims per preemptor", "32 ours 8 2 2 16 16 8.00 800ms 1.6s 1.6s"},
		{"in-tree's pending preemptors are explained, not failed", "32 nodes, in-tree: 8 of 8 preemptors still pending after 1m0s (Kubernetes 1.37's DynamicResources cannot preempt for devices)"},
	})
}

func TestPreemptionProblems(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Result)
		config Config
		want   string
	}{
		{"ours binding every preemptor with the fewest victims is no problem", func(*Result) {}, ConfigOurs, ""},
		{"in-tree binding none is the recorded difference, not a problem", func(r *Result) { r.Bound, r.Preemption.Victims = 0, 0 }, ConfigInTree, ""},
		{"ours leaving a preemptor pending fails", func(r *Result) { r.Bound = 7 }, ConfigOurs, "only 7 of 8 preemptors bound"},
		{"more victims than the minimum fail any configuration", func(r *Result) { r.Preemption.Victims = 31 }, ConfigInTree, "31 low-priority pods evicted, more than the 30"},
		{"every preemptor bound with fewer victims than devices fails", func(r *Result) { r.Preemption.Victims = 29 }, ConfigOurs, "every preemptor bound after 29 evictions"},
		{"a device held twice fails", func(r *Result) { r.DuplicateDevices = 1 }, ConfigOurs, "1 device(s) allocated twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Result{Config: tc.config, Pods: 8, Bound: 8, Preemption: &PreemptionResult{Victims: 30, MinVictims: 30}}
			tc.change(&r)
			if got := r.problem(); !strings.Contains(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("problem() = %q, want %q", got, tc.want)
			}
		})
	}
}
