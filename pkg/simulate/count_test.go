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
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const (
	gpu = "gpu.example.com"
	nic = "nic.example.com"
	ns  = "team"
)

var features = structured.Features{PrioritizedList: true, PartitionableDevices: true, DeviceTaints: true, AdminAccess: true}

// gpus is a slice of n GPUs on node.
func gpus(node string, n int) *objects.SliceWrapper {
	s := objects.MakeSlice(node+"-gpu", gpu, node)
	for i := range n {
		s.Device(fmt.Sprintf("gpu-%d", i), nil)
	}
	return s
}

// held is a claim allocated the devices of pool on node.
func held(name, node string, devices ...string) *resourceapi.ResourceClaim {
	c := objects.Claim(name, "other", objects.ClaimSpec("gpu", gpu, int64(len(devices))))
	c.UID = types.UID("uid-" + name)
	c.Status.Allocation = &resourceapi.AllocationResult{NodeSelector: objects.NodeSelectorFor(node)}
	for _, d := range devices {
		c.Status.Allocation.Devices.Results = append(c.Status.Allocation.Devices.Results,
			resourceapi.DeviceRequestAllocationResult{Request: "gpu", Driver: gpu, Pool: node, Device: d})
	}
	return c
}

// boundPod is a pod bound to node that requests cpu.
func boundPod(name, node, cpu string) *v1.Pod {
	p := objects.MakePod(name, "other").Requests(cpu, "").Obj()
	p.Spec.NodeName = node
	return p
}

type countCase struct {
	name     string
	objs     Objects
	settings Settings
	pod      *v1.Pod
	want     int
	// reasons are the reasons of Next, most nodes first.
	reasons []string
}

func countCases() []countCase {
	cordoned := objects.MakeNode("node-1").Obj()
	cordoned.Spec.Unschedulable = true
	tainted := objects.MakeNode("node-2").Obj()
	tainted.Spec.Taints = []v1.Taint{{Key: "maintenance", Effect: v1.TaintEffectNoSchedule}}
	fewPods := objects.MakeNode("node-1").Obj()
	fewPods.Status.Allocatable[v1.ResourcePods] = resource.MustParse("3")
	gpuClass := objects.DeviceClass(gpu, gpu)
	twoGPUs := objects.ClaimTemplate("two-gpus", ns, "gpu", gpu, 2)
	oneGPU := objects.ClaimTemplate("one-gpu", ns, "gpu", gpu, 1)
	return []countCase{
		{
			name: "two-GPU pods fit only where nodes and devices let them",
			objs: Objects{
				Nodes: []*v1.Node{cordoned, tainted, objects.MakeNode("node-3").Obj(), objects.MakeNode("node-4").Obj()},
				Slices: []*resourceapi.ResourceSlice{
					gpus("node-1", 4).Obj(), gpus("node-2", 4).Obj(),
					objects.MakeSlice("node-3-gpu", gpu, "node-3").Device("gpu-0", nil).Device("gpu-1", nil).
						Device("gpu-2", nil).Device("gpu-3", nil).Taint("broken", "", resourceapi.DeviceTaintEffectNoSchedule).Obj(),
					gpus("node-4", 5).Obj(),
				},
				Classes:   []*resourceapi.DeviceClass{gpuClass},
				Claims:    []*resourceapi.ResourceClaim{held("filler", "node-3", "gpu-0", "gpu-1")},
				Templates: []*resourceapi.ResourceClaimTemplate{twoGPUs},
			},
			pod:  objects.MakePod("trainer", ns).ClaimFromTemplate("gpu", "two-gpus").Obj(),
			want: 2,
			reasons: []string{
				`free devices matching request "gpu" have taints it does not tolerate`, // node-3
				"node(s) had untolerated taint {maintenance: }",
				"node(s) were unschedulable",
				`not enough free devices for request "gpu"`, // node-4 after its two copies
			},
		},
		{
			name: "pods per node bound the copies before devices do",
			objs: Objects{
				Nodes:     []*v1.Node{fewPods},
				Pods:      []*v1.Pod{boundPod("running", "node-1", "1")},
				Slices:    []*resourceapi.ResourceSlice{gpus("node-1", 8).Obj()},
				Classes:   []*resourceapi.DeviceClass{gpuClass},
				Templates: []*resourceapi.ResourceClaimTemplate{oneGPU},
			},
			pod:     objects.MakePod("worker", ns).ClaimFromTemplate("gpu", "one-gpu").Obj(),
			want:    2,
			reasons: []string{"Too many pods"},
		},
		{
			name: "cpu bounds the copies where bound pods take some",
			objs: Objects{
				Nodes:     []*v1.Node{objects.MakeNode("node-1").Obj(), objects.MakeNode("node-2").Obj()},
				Pods:      []*v1.Pod{boundPod("running", "node-1", "3")},
				Slices:    []*resourceapi.ResourceSlice{gpus("node-1", 8).Obj(), gpus("node-2", 8).Obj()},
				Classes:   []*resourceapi.DeviceClass{gpuClass},
				Templates: []*resourceapi.ResourceClaimTemplate{oneGPU},
			},
			pod:     objects.MakePod("worker", ns).ClaimFromTemplate("gpu", "one-gpu").Requests("2", "").Obj(),
			want:    2 + 4,
			reasons: []string{"Insufficient cpu"},
		},
		{
			name: "half GPUs take the shared counters of whole ones",
			objs: Objects{
				Nodes:     []*v1.Node{objects.MakeNode("node-1").Obj()},
				Slices:    objects.HalvableGPUs(gpu, "node-1", 3),
				Classes:   []*resourceapi.DeviceClass{objects.SizeClass("half", gpu, "half"), objects.SizeClass("whole", gpu, "whole")},
				Claims:    []*resourceapi.ResourceClaim{heldHalf("one-half", "node-1", "gpu-0-half-0")},
				Templates: []*resourceapi.ResourceClaimTemplate{objects.ClaimTemplate("half", ns, "gpu", "half", 1)},
			},
			pod:     objects.MakePod("small", ns).ClaimFromTemplate("gpu", "half").Obj(),
			want:    5,
			reasons: []string{`all devices matching request "gpu" are allocated`},
		},
		{
			name: "whole GPUs do not fit where a half is taken",
			objs: Objects{
				Nodes:     []*v1.Node{objects.MakeNode("node-1").Obj()},
				Slices:    objects.HalvableGPUs(gpu, "node-1", 3),
				Classes:   []*resourceapi.DeviceClass{objects.SizeClass("half", gpu, "half"), objects.SizeClass("whole", gpu, "whole")},
				Claims:    []*resourceapi.ResourceClaim{heldHalf("one-half", "node-1", "gpu-0-half-0")},
				Templates: []*resourceapi.ResourceClaimTemplate{objects.ClaimTemplate("whole", ns, "gpu", "whole", 1)},
			},
			pod:     objects.MakePod("big", ns).ClaimFromTemplate("gpu", "whole").Obj(),
			want:    2,
			reasons: []string{`free devices matching request "gpu" need shared counters that other allocations used up`},
		},
		{
			name: "a GPU and a NIC on one PCIe root fit as often as roots have both",
			objs: Objects{
				Nodes: []*v1.Node{objects.MakeNode("node-1").Obj()},
				Slices: []*resourceapi.ResourceSlice{
					objects.MakeSlice("node-1-gpu", gpu, "node-1").
						Device("gpu-0", nil).Attribute(pcieRoot, "pci-a").
						Device("gpu-1", nil).Attribute(pcieRoot, "pci-b").
						Device("gpu-2", nil).Attribute(pcieRoot, "pci-b").Obj(),
					objects.MakeSlice("node-1-nic", nic, "node-1").
						Device("nic-0", nil).Attribute(pcieRoot, "pci-b").
						Device("nic-1", nil).Attribute(pcieRoot, "pci-c").Obj(),
				},
				Classes: []*resourceapi.DeviceClass{gpuClass, objects.DeviceClass(nic, nic)},
				Templates: []*resourceapi.ResourceClaimTemplate{
					oneGPU, objects.ClaimTemplate("one-nic", ns, "net", nic, 1),
				},
			},
			pod:     aligned(objects.MakePod("rdma", ns).ClaimFromTemplate("gpu", "one-gpu").ClaimFromTemplate("nic", "one-nic").Obj()),
			want:    1,
			reasons: []string{"cannot allocate all claims"},
		},
	}
}

const pcieRoot = "resource.kubernetes.io/pcieRoot"

// aligned ties the pod's gpu and nic claims to one PCIe root.
func aligned(p *v1.Pod) *v1.Pod {
	p.Annotations = map[string]string{deviceconstraints.Annotation: `[{"requests": ["gpu", "nic"], "matchAttribute": "` + pcieRoot + `"}]`}
	return p
}

// heldHalf is a claim allocated one half of HalvableGPUs.
func heldHalf(name, node, device string) *resourceapi.ResourceClaim {
	c := held(name, node, device)
	c.Spec = objects.ClaimSpec("gpu", "half", 1)
	return c
}

func TestCountPlacesAsManyCopiesAsFit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range countCases() {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.settings
			s.Features = features
			got, err := NewSnapshot(tc.objs, s).Fork().Count(ctx, Shape{Pod: tc.pod}, CountOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Count != tc.want {
				t.Errorf("count %d, want %d", got.Count, tc.want)
			}
			if !got.Exact {
				t.Errorf("not exact: %q", got.Inexact)
			}
			var reasons []string
			for _, g := range got.Next.Groups {
				reasons = append(reasons, g.Reason)
			}
			if len(reasons) != len(tc.reasons) {
				t.Fatalf("next copy's reasons %q, want %q", reasons, tc.reasons)
			}
			for i := range reasons {
				if !strings.HasPrefix(reasons[i], tc.reasons[i]) {
					t.Errorf("next copy's reason %d is %q, want it to start with %q", i, reasons[i], tc.reasons[i])
				}
			}
		})
	}
}

// TestCountIsWhatTheSchedulerPlacesOneByOne: the oracle places copies as
// the scheduler does, each on the best-scored node of a snapshot rebuilt
// from claim objects and bound pods (the tracker's path, not a fork's),
// until one fits nowhere.
func TestCountIsWhatTheSchedulerPlacesOneByOne(t *testing.T) {
	ctx := context.Background()
	for _, tc := range countCases() {
		for _, scoring := range []string{ScoreFirstAvailable, ScoreMostAllocated, ScoreLeastAllocated} {
			t.Run(tc.name+"/"+scoring, func(t *testing.T) {
				s := tc.settings
				s.Features, s.Scoring = features, scoring
				got, err := NewSnapshot(tc.objs, s).Fork().Count(ctx, Shape{Pod: tc.pod}, CountOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if want := oneByOne(t, tc.objs, s, tc.pod); got.Count != want {
					t.Errorf("Count says %d, the scheduler's way places %d", got.Count, want)
				}
			})
		}
	}
}

func oneByOne(t *testing.T, objs Objects, s Settings, pod *v1.Pod) int {
	t.Helper()
	ctx := context.Background()
	objs.Claims, objs.Pods = slices.Clone(objs.Claims), slices.Clone(objs.Pods)
	for n := 0; n < 1000; n++ {
		p, _, err := NewSnapshot(objs, s).Fork().CanSchedule(ctx, pod)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			return n
		}
		for i, res := range p.results {
			c := objects.Claim(fmt.Sprintf("copy-%d-%d", n, i), ns, resourceapi.ResourceClaimSpec{})
			c.UID = types.UID(c.Name)
			c.Status.Allocation = res.DeepCopy()
			objs.Claims = append(objs.Claims, c)
		}
		bound := pod.DeepCopy()
		bound.Name, bound.Spec.NodeName = fmt.Sprintf("copy-%d", n), p.Node
		objs.Pods = append(objs.Pods, bound)
	}
	t.Fatal("more than 1000 copies fit")
	return 0
}

func TestRevertGivesBackWhatWasPlacedSinceItsLevel(t *testing.T) {
	ctx := context.Background()
	tc := countCases()[0]
	s := Settings{Features: features}
	f := NewSnapshot(tc.objs, s).Fork()
	first, _, err := f.Place(ctx, tc.pod)
	if err != nil || first == nil {
		t.Fatalf("the first pod does not fit: %v", err)
	}
	f.Fork()
	rest, err := f.Count(ctx, Shape{Pod: tc.pod}, CountOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rest.Count != tc.want-1 {
		t.Errorf("after one placed, %d more fit; want %d", rest.Count, tc.want-1)
	}
	f.Revert()
	again, err := f.Count(ctx, Shape{Pod: tc.pod}, CountOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Count != rest.Count || !reflect.DeepEqual(countsOf(again), countsOf(rest)) {
		t.Errorf("after Revert, %d fit on %v; before it %d on %v", again.Count, countsOf(again), rest.Count, countsOf(rest))
	}
	f.Revert() // no level open: every placement goes
	if all, err := f.Count(ctx, Shape{Pod: tc.pod}, CountOptions{}); err != nil || all.Count != tc.want {
		t.Errorf("after reverting everything, %v fit (%v); want %d", all, err, tc.want)
	}
	if len(f.Placements()) != tc.want {
		t.Errorf("the fork holds %d placements, want %d", len(f.Placements()), tc.want)
	}
}

func countsOf(c *Count) []NodeCount { return c.Nodes }

func TestCountStopsAtItsLimit(t *testing.T) {
	tc := countCases()[2]
	got, err := NewSnapshot(tc.objs, Settings{Features: features}).Fork().Count(context.Background(), Shape{Pod: tc.pod}, CountOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got.Count != 3 || !got.Limited || len(got.Placements) != 3 {
		t.Errorf("count %d (limited %v, %d placements), want 3, limited", got.Count, got.Limited, len(got.Placements))
	}
}

func TestCanScheduleSaysWhyNot(t *testing.T) {
	ctx := context.Background()
	tc := countCases()[0]
	f := NewSnapshot(tc.objs, Settings{Features: features}).Fork()
	big := objects.MakePod("huge", ns).ClaimFromTemplate("gpu", "six").Obj()
	six := objects.ClaimTemplate("six", ns, "gpu", gpu, 6)
	p, unfit, err := f.CanSchedule(ctx, big, WithObjects([]*resourceapi.ResourceClaimTemplate{six}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if p != nil || unfit == nil {
		t.Fatalf("a six-GPU pod fits on %v", p)
	}
	msg := unfit.Reason(4)
	for _, want := range []string{`0/4 nodes are available: 2 request "gpu" needs 6 matching devices, more than the node has`, "1 node(s) were unschedulable"} {
		if !strings.Contains(msg, want) {
			t.Errorf("reason %q lacks %q", msg, want)
		}
	}
	if g := unfit.Groups[0]; len(g.Examples) == 0 || len(g.Examples[0].Requests) != 1 || g.Examples[0].Requests[0].Matching == 0 {
		t.Errorf("the devices' group has no request counts: %+v", g)
	}
	if _, unfit, _ := f.CanSchedule(ctx, big); unfit == nil || len(unfit.Problems) != 1 || !strings.Contains(unfit.Problems[0], "ResourceClaimTemplate team/six does not exist") {
		t.Errorf("without the template: %+v, want its problem", unfit)
	}
	// No copy is scheduled either: the count of 0 is exact.
	c, err := f.Count(ctx, Shape{Pod: big}, CountOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Count != 0 || !c.Exact || len(c.Next.Problems) != 1 {
		t.Errorf("count without the template: %+v, want 0, exact, with its problem", c)
	}
}
