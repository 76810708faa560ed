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

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestRestartBetweenClaimWriteAndBind stops dra-scheduler after it wrote a
// claim's allocation but before it bound the pod — while PreBind waits for
// the device's binding condition — and starts a new one. The pod must end
// up bound on the node its claim points to, with the same device, reserved
// once, and no second device allocated.
func TestRestartBetweenClaimWriteAndBind(t *testing.T) {
	e := startCluster(t, draConfig)
	const driver = "attach.example.com"
	e.create(objects.MakeNode("node-1").Obj(), objects.MakeNode("node-2").Obj(), objects.DeviceClass(driver, driver))
	for _, n := range []string{"node-1", "node-2"} {
		slice := objects.MakeSlice(driver+"-"+n, driver, n).Device("dev-0", nil).Obj()
		slice.Spec.Devices[0].BindingConditions = []string{"attached"}
		slice.Spec.Devices[0].BindingFailureConditions = []string{"attach-failed"}
		e.create(slice)
	}
	e.create(objects.ClaimTemplate("attach", e.ns, "dev", driver, 1))
	e.create(objects.MakePod("patient", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "attach").Obj())

	e.waitForEvent("patient", "BindingConditionsPending", "waiting for binding conditions")
	claim := e.generatedClaim("patient", "dev")
	if claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 {
		t.Fatalf("claim not allocated while PreBind waits: %+v", claim.Status)
	}
	first := claim.Status.Allocation.Devices.Results[0]
	if pod := e.pod("patient"); pod.Spec.NodeName != "" {
		t.Fatalf("pod bound to %s before its binding condition held", pod.Spec.NodeName)
	}

	e.sched.Stop()
	sched, err := e.cp.StartScheduler(e.ctx, e.schedulerConfig)
	if err != nil {
		t.Fatalf("restart dra-scheduler: %v", err)
	}
	e.sched = sched

	// The driver reports the device attached.
	claim = e.generatedClaim("patient", "dev")
	claim.Status.Devices = []resourceapi.AllocatedDeviceStatus{{
		Driver: first.Driver, Pool: first.Pool, Device: first.Device,
		Conditions: []metav1.Condition{{Type: "attached", Status: metav1.ConditionTrue, Reason: "Attached",
			LastTransitionTime: metav1.Now(), ObservedGeneration: claim.Generation}},
	}}
	if _, err := e.client.ResourceV1().ResourceClaims(e.ns).UpdateStatus(e.ctx, claim, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("report the device attached: %v", err)
	}

	pod := e.waitScheduled("patient")
	if pod.Spec.NodeName != first.Pool {
		t.Errorf("pod bound to %s, but its claim's device is on %s", pod.Spec.NodeName, first.Pool)
	}
	claim = e.generatedClaim("patient", "dev")
	if got := results(claim); got != "dev="+first.Driver+"/"+first.Pool+"/"+first.Device {
		t.Errorf("claim allocation changed across the restart: %s, first %s/%s", got, first.Pool, first.Device)
	}
	if r := claim.Status.ReservedFor; len(r) != 1 || r[0].UID != pod.UID {
		t.Errorf("reservedFor %+v, want exactly the pod once", r)
	}
	// The other node's device must still be free: no claim in the
	// namespace may hold it.
	claims, err := e.client.ResourceV1().ResourceClaims(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	allocated := 0
	for _, c := range claims.Items {
		if c.Status.Allocation != nil {
			allocated += len(c.Status.Allocation.Devices.Results)
		}
	}
	if allocated != 1 || len(claims.Items) != 1 {
		t.Errorf("%d claims holding %d devices after the restart, want 1 claim holding 1 device", len(claims.Items), allocated)
	}
}

// TestBindingFailureReallocates: a device whose driver reports a binding
// failure is given up — the claim is deallocated (PostFilter, as in-tree)
// and allocated anew — and the pod binds once the new allocation's binding
// condition holds.
func TestBindingFailureReallocates(t *testing.T) {
	e := startCluster(t, draConfig)
	const driver = "flaky.example.com"
	slice := objects.MakeSlice(driver+"-node-1", driver, "node-1").Device("dev-0", nil).Device("dev-1", nil).Obj()
	for i := range slice.Spec.Devices {
		slice.Spec.Devices[i].BindingConditions = []string{"attached"}
		slice.Spec.Devices[i].BindingFailureConditions = []string{"attach-failed"}
	}
	e.create(objects.MakeNode("node-1").Obj(), objects.DeviceClass(driver, driver), slice,
		objects.ClaimTemplate("flaky", e.ns, "dev", driver, 1))
	e.create(objects.MakePod("unlucky", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "flaky").Obj())

	e.waitForEvent("unlucky", "BindingConditionsPending", "waiting for binding conditions")
	claim := e.generatedClaim("unlucky", "dev")
	if claim.Status.Allocation == nil || claim.Status.Allocation.AllocationTimestamp == nil {
		t.Fatalf("claim not allocated with a timestamp while PreBind waits: %+v", claim.Status)
	}
	first := claim.Status.Allocation.DeepCopy()
	setCondition := func(claim *resourceapi.ResourceClaim, condition string) {
		t.Helper()
		r := claim.Status.Allocation.Devices.Results[0]
		claim.Status.Devices = []resourceapi.AllocatedDeviceStatus{{Driver: r.Driver, Pool: r.Pool, Device: r.Device,
			Conditions: []metav1.Condition{{Type: condition, Status: metav1.ConditionTrue, Reason: "Test", LastTransitionTime: metav1.Now()}}}}
		if _, err := e.client.ResourceV1().ResourceClaims(e.ns).UpdateStatus(e.ctx, claim, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("set %s on the claim's device: %v", condition, err)
		}
	}
	before := gatherMetrics(t, "scheduler_dra_bindingconditions_")
	setCondition(claim, "attach-failed")
	e.waitForEvent("unlucky", "FailedScheduling", fmt.Sprintf("device binding failed: claim %s/%s, device %s/node-1/%s",
		e.ns, claim.Name, driver, first.Devices.Results[0].Device))
	failedDevice := fmt.Sprintf("(devices: claim %s/%s: %s/node-1/%s failed=[attach-failed] pending=[attached])",
		e.ns, claim.Name, driver, first.Devices.Results[0].Device)
	if note := e.lastEvent("unlucky", "FailedScheduling"); !strings.Contains(note, failedDevice) {
		t.Errorf("the failure event %q does not name the failed device as %q", note, failedDevice)
	}

	e.waitFor("the claim to be allocated anew", func() (bool, string) {
		claim = e.generatedClaim("unlucky", "dev")
		a := claim.Status.Allocation
		return a != nil && a.AllocationTimestamp != nil && a.AllocationTimestamp.After(first.AllocationTimestamp.Time) && len(claim.Status.Devices) == 0,
			fmt.Sprintf("allocation %+v, devices %+v", a, claim.Status.Devices)
	})
	if pod := e.pod("unlucky"); pod.Spec.NodeName != "" {
		t.Fatalf("pod bound to %s although its device failed to attach", pod.Spec.NodeName)
	}
	setCondition(claim, "attached")
	if pod := e.waitScheduled("unlucky"); pod.Spec.NodeName != "node-1" {
		t.Errorf("pod bound to %s, want node-1", pod.Spec.NodeName)
	}
	// kube-scheduler's own metrics count both outcomes, as for the
	// in-tree plugin.
	after := gatherMetrics(t, "scheduler_dra_bindingconditions_")
	for _, status := range []string{"failure", "success"} {
		labels := "{driver=" + driver + ",profile=" + schedulerapp.Name + ",status=" + status + "}"
		if d := after["scheduler_dra_bindingconditions_allocations_total"+labels] - before["scheduler_dra_bindingconditions_allocations_total"+labels]; d != 1 {
			t.Errorf("scheduler_dra_bindingconditions_allocations_total%s grew by %v, want 1", labels, d)
		}
		if d := after["scheduler_dra_bindingconditions_wait_duration_seconds"+labels] - before["scheduler_dra_bindingconditions_wait_duration_seconds"+labels]; d != 1 {
			t.Errorf("scheduler_dra_bindingconditions_wait_duration_seconds%s observed %v more waits, want 1", labels, d)
		}
	}
}
