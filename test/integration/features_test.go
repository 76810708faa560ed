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
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestDRAAllocatorFeatures exercises the DRA features beyond plain device
// counting under DRAAllocator: device taints (in the slice and through a
// DeviceTaintRule), admin access, consumable capacity and partitionable
// devices. Each case publishes devices of its own driver, so the cases
// share nodes but never devices.
func TestDRAAllocatorFeatures(t *testing.T) {
	e := startCluster(t, draConfig)
	for _, n := range []string{"node-1", "node-2", "node-3", "node-4"} {
		e.create(objects.MakeNode(n).Obj())
	}

	t.Run("a NoSchedule device taint keeps intolerant claims off the device and a tolerating claim gets it", func(t *testing.T) {
		e.t = t
		const driver = "taint.example.com"
		const taintKey = "taint.example.com/unhealthy"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("taint-node-1", driver, "node-1").Device("tainted", nil).Taint(taintKey, "ecc", resourceapi.DeviceTaintEffectNoSchedule).Obj(),
			objects.MakeSlice("taint-node-2", driver, "node-2").Device("healthy", nil).Obj(),
			objects.ClaimTemplate("intolerant", e.ns, "dev", driver, 1))
		tolerant := objects.ClaimTemplate("tolerant", e.ns, "dev", driver, 1)
		tolerant.Spec.Spec.Devices.Requests[0].Exactly.Tolerations = []resourceapi.DeviceToleration{{
			Key: taintKey, Operator: resourceapi.DeviceTolerationOpExists, Effect: resourceapi.DeviceTaintEffectNoSchedule,
		}}
		e.create(tolerant)

		e.create(objects.MakePod("intolerant-1", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "intolerant").Obj())
		if pod := e.waitScheduled("intolerant-1"); pod.Spec.NodeName != "node-2" {
			t.Errorf("intolerant pod landed on %s, want node-2 (node-1's only device is tainted)", pod.Spec.NodeName)
		}
		if got, want := results(e.generatedClaim("intolerant-1", "dev")), "dev=taint.example.com/node-2/healthy"; got != want {
			t.Errorf("intolerant claim results %s, want %s", got, want)
		}

		// The tainted device is now the only free one: an intolerant claim
		// must wait rather than take it.
		e.create(objects.MakePod("intolerant-2", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "intolerant").Obj())
		msg := e.waitUnschedulable("intolerant-2", "0/4 nodes are available")
		t.Logf("intolerant-2: %s", msg)
		for _, want := range []string{`1 free devices matching request "dev" have taints it does not tolerate (class taint.example.com)`, `1 all devices matching request "dev" are allocated`} {
			if !strings.Contains(msg, want) {
				t.Errorf("intolerant-2 says %q, want it to contain %q (node-1: tainted device, node-2: allocated)", msg, want)
			}
		}

		e.create(objects.MakePod("tolerant", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "tolerant").Obj())
		if pod := e.waitScheduled("tolerant"); pod.Spec.NodeName != "node-1" {
			t.Errorf("tolerating pod landed on %s, want node-1", pod.Spec.NodeName)
		}
		if got, want := results(e.generatedClaim("tolerant", "dev")), "dev=taint.example.com/node-1/tainted"; got != want {
			t.Errorf("tolerating claim results %s, want %s", got, want)
		}
		if pod := e.pod("intolerant-2"); pod.Spec.NodeName != "" {
			t.Errorf("intolerant-2 was bound to %s although the only other device is tainted", pod.Spec.NodeName)
		}
	})

	t.Run("a DeviceTaintRule keeps pods off the device it taints until the rule is deleted", func(t *testing.T) {
		e.t = t
		const driver = "rule.example.com"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("rule-node-3", driver, "node-3").Device("dev-0", nil).Obj(),
			objects.MakeSlice("rule-node-4", driver, "node-4").Device("dev-0", nil).Obj(),
			objects.ClaimTemplate("rule", e.ns, "dev", driver, 1))
		rules := e.client.ResourceV1().DeviceTaintRules()
		rule := objects.DeviceTaintRule("rule-node-3-dev-0", driver, "node-3", "dev-0",
			resourceapi.DeviceTaint{Key: "rule.example.com/maintenance", Effect: resourceapi.DeviceTaintEffectNoSchedule})
		if _, err := rules.Create(e.ctx, rule, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create DeviceTaintRule: %v", err)
		}
		t.Cleanup(func() { _ = rules.Delete(e.ctx, rule.Name, metav1.DeleteOptions{}) })
		// Nothing outside the scheduler reports that its trackers have
		// applied the rule; give both watches a moment. The pending pod
		// below is the real check: it does not depend on this delay.
		time.Sleep(time.Second)

		e.create(objects.MakePod("ruled-1", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "rule").Obj())
		if pod := e.waitScheduled("ruled-1"); pod.Spec.NodeName != "node-4" {
			t.Errorf("pod landed on %s, want node-4 (node-3's device is tainted by the rule)", pod.Spec.NodeName)
		}
		e.create(objects.MakePod("ruled-2", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "rule").Obj())
		msg := e.waitUnschedulable("ruled-2", "0/4 nodes are available")
		if want := `1 free devices matching request "dev" have taints it does not tolerate (class rule.example.com)`; !strings.Contains(msg, want) {
			t.Errorf("ruled-2 says %q, want node-3 counted as %q", msg, want)
		}

		start := time.Now()
		if err := rules.Delete(e.ctx, rule.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete DeviceTaintRule: %v", err)
		}
		if pod := e.waitScheduled("ruled-2"); pod.Spec.NodeName != "node-3" {
			t.Errorf("pod landed on %s after the rule was deleted, want node-3", pod.Spec.NodeName)
		}
		t.Logf("ruled-2 bound %v after the rule was deleted", time.Since(start).Round(time.Millisecond))
		if got, want := results(e.generatedClaim("ruled-2", "dev")), "dev=rule.example.com/node-3/dev-0"; got != want {
			t.Errorf("results %s, want %s", got, want)
		}
	})

	t.Run("admin access shares an allocated device only in a namespace labelled for it", func(t *testing.T) {
		e.t = t
		const driver = "admin.example.com"
		admin := *e
		admin.ns = "dra-admin"
		e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: admin.ns, Labels: map[string]string{resourceapi.DRAAdminNamespaceLabelKey: "true"}}},
			objects.DeviceClass(driver, driver),
			objects.MakeSlice("admin-node-1", driver, "node-1").Device("dev-0", nil).Obj(),
			objects.ClaimTemplate("user", e.ns, "dev", driver, 1))
		adminSpec := objects.ClaimSpec("dev", driver, 1)
		adminSpec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(true)

		e.create(objects.MakePod("user", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "user").Obj())
		e.waitScheduled("user")
		if got, want := results(e.generatedClaim("user", "dev")), "dev=admin.example.com/node-1/dev-0"; got != want {
			t.Fatalf("user claim results %s, want %s", got, want)
		}

		admin.create(&resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "admin", Namespace: admin.ns},
			Spec: resourceapi.ResourceClaimTemplateSpec{Spec: adminSpec}})
		admin.create(objects.MakePod("admin", admin.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "admin").Obj())
		if pod := admin.waitScheduled("admin"); pod.Spec.NodeName != "node-1" {
			t.Errorf("admin pod landed on %s, want node-1", pod.Spec.NodeName)
		}
		claim := admin.generatedClaim("admin", "dev")
		if got, want := results(claim), "dev=admin.example.com/node-1/dev-0"; got != want {
			t.Errorf("admin claim results %s, want %s (the device the user pod holds)", got, want)
		} else if r := claim.Status.Allocation.Devices.Results[0]; r.AdminAccess == nil || !*r.AdminAccess {
			t.Errorf("admin claim result has adminAccess %v, want true", r.AdminAccess)
		}

		// Without the label the API server refuses the request outright,
		// as a claim and as a template, so nothing reaches the scheduler.
		for _, obj := range []any{
			objects.Claim("admin", e.ns, adminSpec),
			&resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "admin", Namespace: e.ns},
				Spec: resourceapi.ResourceClaimTemplateSpec{Spec: adminSpec}},
		} {
			err := objects.Create(e.ctx, e.client, obj)
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "admin access to devices requires the `resource.kubernetes.io/admin-access: true` label") {
				t.Errorf("creating %T with adminAccess in unlabelled namespace %s: got %v, want an Invalid error about the namespace label", obj, e.ns, err)
			}
		}
	})

	t.Run("a device with consumable capacity is shared by claims until its capacity runs out", func(t *testing.T) {
		e.t = t
		const driver = "bw.example.com"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("bw-node-2", driver, "node-2").Device("nic-0", map[string]string{"bandwidth": "10G"}).AllowMultipleAllocations().Obj())
		spec := objects.ClaimSpec("bw", driver, 1)
		spec.Devices.Requests[0].Exactly.Capacity = &resourceapi.CapacityRequirements{
			Requests: map[resourceapi.QualifiedName]resource.Quantity{"bandwidth": resource.MustParse("4G")},
		}
		e.create(&resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "bw", Namespace: e.ns},
			Spec: resourceapi.ResourceClaimTemplateSpec{Spec: spec}})

		shares := map[string]string{}
		for _, name := range []string{"bw-1", "bw-2"} {
			e.create(objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("bw", "bw").Obj())
			if pod := e.waitScheduled(name); pod.Spec.NodeName != "node-2" {
				t.Errorf("pod %s landed on %s, want node-2", name, pod.Spec.NodeName)
			}
			claim := e.generatedClaim(name, "bw")
			if got, want := results(claim), "bw=bw.example.com/node-2/nic-0"; got != want {
				t.Fatalf("pod %s: results %s, want %s", name, got, want)
			}
			r := claim.Status.Allocation.Devices.Results[0]
			if r.ShareID == nil || *r.ShareID == "" {
				t.Errorf("pod %s: result has no shareID", name)
			} else if other, dup := shares[string(*r.ShareID)]; dup {
				t.Errorf("pods %s and %s got the same shareID %s", other, name, *r.ShareID)
			} else {
				shares[string(*r.ShareID)] = name
			}
			if got := r.ConsumedCapacity["bandwidth"]; got.Cmp(resource.MustParse("4G")) != 0 {
				t.Errorf("pod %s: consumedCapacity %v, want bandwidth 4G", name, r.ConsumedCapacity)
			}
		}

		e.create(objects.MakePod("bw-3", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("bw", "bw").Obj())
		msg := e.waitUnschedulable("bw-3", "0/4 nodes are available")
		t.Logf("bw-3 (8G of 10G taken, asks 4G): %s", msg)
		want := "1 devices matching request \"bw\" have too little capacity left for it (class bw.example.com), 3 no device matches request \"bw\" (class bw.example.com, selector device.driver == \"bw.example.com\")"
		if !strings.Contains(msg, want) {
			t.Errorf("bw-3 says %q, want it to contain %q", msg, want)
		}
	})

	t.Run("partitions of one device share its counters: the whole device excludes a half until it is released", func(t *testing.T) {
		e.t = t
		const driver = "part.example.com"
		// Counter sets and devices may not share a slice (API validation):
		// the pool has two slices.
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("part-node-3-counters", driver, "node-3").SliceCount(2).CounterSet("gpu-0", map[string]string{"memory": "8Gi"}).Obj(),
			objects.MakeSlice("part-node-3-devices", driver, "node-3").SliceCount(2).
				Device("half-0", nil).Attribute("profile", "half").ConsumesCounters("gpu-0", map[string]string{"memory": "4Gi"}).
				Device("half-1", nil).Attribute("profile", "half").ConsumesCounters("gpu-0", map[string]string{"memory": "4Gi"}).
				Device("whole", nil).Attribute("profile", "whole").ConsumesCounters("gpu-0", map[string]string{"memory": "8Gi"}).Obj(),
			objects.ClaimTemplate("whole", e.ns, "gpu", driver, 1, `device.attributes["part.example.com"].profile == "whole"`),
			objects.ClaimTemplate("half", e.ns, "gpu", driver, 1, `device.attributes["part.example.com"].profile == "half"`))

		e.create(objects.MakePod("whole", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "whole").Obj())
		e.waitScheduled("whole")
		wholeClaim := e.generatedClaim("whole", "gpu")
		if got, want := results(wholeClaim), "gpu=part.example.com/node-3/whole"; got != want {
			t.Fatalf("whole: results %s, want %s", got, want)
		}

		e.create(objects.MakePod("half", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "half").Obj())
		msg := e.waitUnschedulable("half", "0/4 nodes are available")
		t.Logf("half (counters used up by whole): %s", msg)
		if want := `1 free devices matching request "gpu" need shared counters that other allocations used up (class part.example.com)`; !strings.Contains(msg, want) {
			t.Errorf("half says %q, want node-3 counted as %q", msg, want)
		}

		// Deleting the pod makes the resourceclaim controller drop its
		// reservation and, with it, the allocation.
		if err := e.client.CoreV1().Pods(e.ns).Delete(e.ctx, "whole", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			t.Fatalf("delete pod whole: %v", err)
		}
		e.waitFor("the whole device's claim to be deallocated", func() (bool, string) {
			c, err := e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, wholeClaim.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, ""
			}
			if err != nil {
				return false, err.Error()
			}
			return c.Status.Allocation == nil, results(c)
		})
		if pod := e.waitScheduled("half"); pod.Spec.NodeName != "node-3" {
			t.Errorf("half landed on %s, want node-3", pod.Spec.NodeName)
		}
		if got, want := results(e.generatedClaim("half", "gpu")), "gpu=part.example.com/node-3/half-0"; got != want {
			t.Errorf("half: results %s, want %s", got, want)
		}
	})
}

// waitUnschedulable waits until the pod's PodScheduled condition is false
// with a message containing text, and returns the message.
func (e *env) waitUnschedulable(name, text string) string {
	e.t.Helper()
	var msg string
	e.waitFor(fmt.Sprintf("pod %s to be unschedulable saying %q", name, text), func() (bool, string) {
		pod := e.pod(name)
		if pod.Spec.NodeName != "" {
			e.t.Fatalf("pod %s was bound to %s, want it pending", name, pod.Spec.NodeName)
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse {
				msg = c.Message
				return strings.Contains(c.Message, text), c.Message
			}
		}
		return false, fmt.Sprintf("conditions %v", pod.Status.Conditions)
	})
	return msg
}
