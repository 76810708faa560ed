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

package draallocator

import (
	"strings"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const (
	testNamespace = "test"
	testDriver    = "gpu.example.com"
)

// oneDeviceCluster is one node with one device of testDriver, its class,
// and an unallocated claim per name.
func oneDeviceCluster(claims ...string) ([]*v1.Node, []runtime.Object) {
	objs := []runtime.Object{
		objects.DeviceClass(testDriver, testDriver),
		objects.MakeSlice("node-1", testDriver, "node-1").Device("dev-0", nil).Obj(),
	}
	for _, name := range claims {
		objs = append(objs, objects.Claim(name, testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	}
	return []*v1.Node{objects.MakeNode("node-1").Obj()}, objs
}

// claimPod is a pod using the claim of its own name.
func claimPod(name string) *v1.Pod {
	pod := objects.MakePod(name, testNamespace).Claim("dev", name).Obj()
	pod.UID = types.UID("pod-" + name)
	return pod
}

// panicAt is a test hook that panics where told, for one pod.
type panicAt struct {
	pod   string
	point atomic.Value // string
}

func (p *panicAt) hooks() *Hooks {
	p.point.Store("")
	return &Hooks{Enter: func(point string, pod *v1.Pod) {
		if point == p.point.Load() && (pod == nil || pod.Name == p.pod) {
			panic("injected into " + point)
		}
	}}
}

func panics(point string) float64 {
	v, err := testutil.GetCounterMetricValue(metrics.PluginPanics.WithLabelValues(point))
	if err != nil {
		panic(err)
	}
	return v
}

func TestAPanicInAnExtensionPointFailsOnlyThatAttempt(t *testing.T) {
	victim := &panicAt{pod: "victim"}
	nodes, objs := oneDeviceCluster("victim", "bystander")
	h := newHarness(t, victim.hooks(), []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	for _, tc := range []struct {
		point string
		// reserve runs Reserve before the point.
		reserve bool
		call    func(c *cycle) *fwk.Status
	}{
		{point: "PreEnqueue", call: func(c *cycle) *fwk.Status { return pl.PreEnqueue(h.ctx, c.pod) }},
		{point: "PreFilter", call: func(c *cycle) *fwk.Status {
			_, st := pl.PreFilter(h.ctx, framework.NewCycleState(), c.pod, h.nodes)
			return st
		}},
		{point: "Filter", call: func(c *cycle) *fwk.Status { return pl.Filter(h.ctx, c.state, c.pod, h.nodes[0]) }},
		{point: "PostFilter", call: func(c *cycle) *fwk.Status {
			_, st := pl.PostFilter(h.ctx, c.state, c.pod, nil)
			return st
		}},
		{point: "PreScore", call: func(c *cycle) *fwk.Status { return pl.PreScore(h.ctx, c.state, c.pod, h.nodes) }},
		{point: "Score", call: func(c *cycle) *fwk.Status {
			_, st := pl.Score(h.ctx, c.state, c.pod, h.nodes[0])
			return st
		}},
		{point: "NormalizeScore", call: func(c *cycle) *fwk.Status {
			return pl.NormalizeScore(h.ctx, c.state, c.pod, fwk.NodeScoreList{{Name: "node-1", Score: 1}})
		}},
		{point: "GeneratePlacements", call: func(c *cycle) *fwk.Status {
			_, st := pl.GeneratePlacements(h.ctx, nil, nil, &fwk.Placement{Nodes: h.nodes})
			return st
		}},
		{point: "ScorePlacement", call: func(c *cycle) *fwk.Status {
			_, st := pl.ScorePlacement(h.ctx, nil, nil, &fwk.PodGroupAssignments{Placement: &fwk.Placement{Name: "rack-1"}})
			return st
		}},
		{point: "NormalizePlacementScore", call: func(c *cycle) *fwk.Status {
			return pl.NormalizePlacementScore(h.ctx, nil, nil, []fwk.PlacementScore{{Score: 1}})
		}},
		{point: "Reserve", call: func(c *cycle) *fwk.Status { return pl.Reserve(h.ctx, c.state, c.pod, "node-1") }},
		{point: "PreBindPreFlight", reserve: true, call: func(c *cycle) *fwk.Status {
			_, st := pl.PreBindPreFlight(h.ctx, c.state, c.pod, "node-1")
			return st
		}},
		{point: "PreBind", reserve: true, call: func(c *cycle) *fwk.Status { return pl.PreBind(h.ctx, c.state, c.pod, "node-1") }},
		{point: "SignPod", call: func(c *cycle) *fwk.Status {
			_, st := pl.SignPod(h.ctx, c.pod)
			return st
		}},
	} {
		t.Run("a panic in "+tc.point+" is an error status naming the plugin, counted, with the device released", func(t *testing.T) {
			c, st := h.filter(pl, claimPod("victim"))
			if st != nil || len(c.feasible) != 1 {
				t.Fatalf("without the panic the pod fits on %v (PreFilter: %v), want node-1", c.feasible, st)
			}
			if tc.reserve {
				if st := c.reserve(); !st.IsSuccess() {
					t.Fatalf("Reserve: %v", st)
				}
			}
			before := panics(tc.point)
			victim.point.Store(tc.point)
			st = tc.call(c)
			victim.point.Store("")
			if st.Code() != fwk.Error || !strings.Contains(st.Message(), "DRAAllocator: internal error in "+tc.point+": injected into "+tc.point) {
				t.Errorf("status %v, want an error naming the plugin, %s and the panic", st, tc.point)
			}
			if got := panics(tc.point) - before; got != 1 {
				t.Errorf("dra_scheduler_plugin_panics_total{extension_point=%q} grew by %v, want 1", tc.point, got)
			}
			// The framework calls Unreserve after a failed Reserve or
			// PreBind; it is harmless otherwise.
			c.unreserve()
			other, st := h.filter(pl, claimPod("bystander"))
			if st != nil || len(other.feasible) != 1 {
				t.Errorf("after the panic another pod fits on %v (PreFilter: %v), want node-1: the device is still taken", other.feasible, st)
			}
		})
	}
}

func TestAPanicInUnreserveStillReleasesTheDevicesInFlight(t *testing.T) {
	victim := &panicAt{pod: "victim"}
	nodes, objs := oneDeviceCluster("victim", "bystander")
	h := newHarness(t, victim.hooks(), []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	c, _ := h.filter(pl, claimPod("victim"))
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	if other, _ := h.filter(pl, claimPod("bystander")); len(other.feasible) != 0 {
		t.Fatalf("while the victim's device is in flight, another pod fits on %v", other.feasible)
	}
	before := panics("Unreserve")
	victim.point.Store("Unreserve")
	c.unreserve()
	victim.point.Store("")
	if got := panics("Unreserve") - before; got != 1 {
		t.Errorf("dra_scheduler_plugin_panics_total{extension_point=Unreserve} grew by %v, want 1", got)
	}
	if other, _ := h.filter(pl, claimPod("bystander")); len(other.feasible) != 1 {
		t.Errorf("after Unreserve panicked, another pod fits on %v, want node-1: the device stayed in flight", other.feasible)
	}
	if h.manager.ResourceClaims().GetPendingAllocation(h.claim(testNamespace, "victim").UID) != nil {
		t.Error("the framework still has the victim's claim in flight")
	}
}

func TestAPanicInAQueueingHintQueuesThePodWithAnError(t *testing.T) {
	pl := &DRAAllocator{shared: &shared{}}
	hint := pl.guardHint("ResourceClaimQueueingHint", func(klog.Logger, *v1.Pod, any, any) (fwk.QueueingHint, error) {
		panic("injected")
	})
	before := panics("ResourceClaimQueueingHint")
	got, err := hint(klog.Background(), claimPod("victim"), nil, nil)
	if got != fwk.Queue || err == nil || !strings.Contains(err.Error(), "DRAAllocator: internal error in ResourceClaimQueueingHint: injected") {
		t.Errorf("hint returned %v, %v; want Queue and an error naming the plugin and the hint", got, err)
	}
	if d := panics("ResourceClaimQueueingHint") - before; d != 1 {
		t.Errorf("panics counted %v, want 1", d)
	}
}

func TestAPanicInTheClaimHandlerLosesOnlyThatEvent(t *testing.T) {
	handler := &panicAt{}
	nodes, objs := oneDeviceCluster("mine")
	h := newHarness(t, handler.hooks(), []string{"default"}, nodes, objs...)
	before := panics(pointClaimEvent)
	handler.point.Store(pointClaimEvent)
	h.create(objects.Claim("poison", testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	h.eventually("the claim handler to panic", func() bool { return panics(pointClaimEvent) > before })
	handler.point.Store("")

	// Later events still arrive: an allocation of the only device keeps
	// the pod off the node.
	holder := objects.Claim("holder", testNamespace, objects.ClaimSpec("dev", testDriver, 1))
	h.create(holder)
	h.eventually("the assume cache to have the holder", func() bool {
		_, err := h.manager.ResourceClaims().Get(testNamespace, "holder")
		return err == nil
	})
	holder = h.claim(testNamespace, "holder").DeepCopy()
	holder.Status.Allocation = allocationOf("node-1", "dev-0")
	h.updateClaimStatus(holder)
	h.eventually("the plugin to see the device held", func() bool {
		c, _ := h.filter(h.plugins[0], claimPod("mine"))
		return len(c.feasible) == 0
	})
}

func TestProfilesShareAllocationsInFlight(t *testing.T) {
	nodes, objs := oneDeviceCluster("first", "second")
	h := newHarness(t, nil, []string{"one", "two"}, nodes, objs...)
	first, _ := h.filter(h.plugins[0], claimPod("first"))
	if st := first.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve in profile one: %v", st)
	}
	if c, _ := h.filter(h.plugins[1], claimPod("second")); len(c.feasible) != 0 {
		t.Errorf("profile two fits a pod on %v while profile one has the only device in flight", c.feasible)
	}
	first.unreserve()
	if c, _ := h.filter(h.plugins[1], claimPod("second")); len(c.feasible) != 1 {
		t.Errorf("after profile one released the device, profile two fits the pod on %v, want node-1", c.feasible)
	}
}

func TestReserveMarksNothingInFlightForAClaimAllocatedMeanwhile(t *testing.T) {
	nodes, objs := oneDeviceCluster("raced", "later")
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	c, _ := h.filter(pl, claimPod("raced"))
	if len(c.feasible) != 1 {
		t.Fatalf("pod fits on %v, want node-1", c.feasible)
	}
	// Another scheduler allocates the claim between Filter and Reserve.
	raced := h.claim(testNamespace, "raced").DeepCopy()
	raced.Status.Allocation = allocationOf("node-1", "dev-0")
	h.updateClaimStatus(raced)
	st := c.reserve()
	if st.IsSuccess() || !strings.Contains(st.Message(), "got allocated elsewhere in the meantime") {
		t.Errorf("Reserve: %v, want a failure saying the claim got allocated meanwhile", st)
	}
	c.unreserve()

	// Once it is deallocated, nothing of the attempt may keep its device.
	raced = h.claim(testNamespace, "raced").DeepCopy()
	raced.Status.Allocation = nil
	h.updateClaimStatus(raced)
	h.eventually("the device to be free for another pod", func() bool {
		c, _ := h.filter(pl, claimPod("later"))
		return len(c.feasible) == 1
	})
}

// TestExtendedResourceServedByADevicePluginNeedsNoClaim: on a node whose
// allocatable has the extended resource (a device plugin serves it), a
// pod asking for it goes through every extension point without a claim.
func TestExtendedResourceServedByADevicePluginNeedsNoClaim(t *testing.T) {
	class := objects.DeviceClass(testDriver, testDriver)
	class.Spec.ExtendedResourceName = ptr.To("example.com/gpu")
	node := objects.MakeNode("legacy").Obj()
	node.Status.Allocatable["example.com/gpu"] = resource.MustParse("2")
	h := newHarness(t, nil, []string{"default"}, []*v1.Node{node}, class)
	pl := h.plugins[0]
	h.eventually("the extended resource to map to the class", func() bool {
		return h.manager.DeviceClassResolver().GetDeviceClass("example.com/gpu") != nil
	})
	pod := objects.MakePod("legacy", testNamespace).Obj()
	pod.UID = "pod-legacy"
	one := v1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	pod.Spec.Containers[0].Resources = v1.ResourceRequirements{Requests: one, Limits: one}
	c, st := h.filter(pl, pod)
	if st != nil || len(c.feasible) != 1 {
		t.Fatalf("pod fits on %v (PreFilter: %v), want legacy", c.feasible, st)
	}
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	if _, st := pl.PreBindPreFlight(h.ctx, c.state, pod, "legacy"); st.Code() == fwk.Error {
		t.Fatalf("PreBindPreFlight: %v", st)
	}
	if st := pl.PreBind(h.ctx, c.state, pod, "legacy"); !st.IsSuccess() {
		t.Fatalf("PreBind: %v", st)
	}
	for _, a := range h.client.Actions() {
		if a.GetResource().Resource == "resourceclaims" && a.GetVerb() == "create" {
			t.Errorf("a claim was created for a pod a device plugin serves: %v", a)
		}
	}
}
