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
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestDRAAllocator exercises the DRAAllocator plugin end to end, with the
// in-tree DynamicResources plugin disabled. Each case publishes devices of
// its own driver, so the cases share nodes but never devices.
func TestDRAAllocator(t *testing.T) {
	e := startCluster(t, draConfig)
	nodes := []string{"node-1", "node-2", "node-3", "node-4"}
	for _, n := range nodes {
		e.create(objects.MakeNode(n).Obj())
	}

	t.Run("a shared claim is allocated once and reserved for every pod using it, all on its node", func(t *testing.T) {
		e.t = t
		const driver = "shared.example.com"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("shared-node-3", driver, "node-3").Device("dev-0", nil).Obj(),
			objects.Claim("shared", e.ns, objects.ClaimSpec("dev", driver, 1)))
		created := e.claim("shared").ManagedFields
		e.create(objects.MakePod("sharer-1", e.ns).Scheduler(schedulerapp.Name).Claim("dev", "shared").Obj(),
			objects.MakePod("sharer-2", e.ns).Scheduler(schedulerapp.Name).Claim("dev", "shared").Obj())
		for _, name := range []string{"sharer-1", "sharer-2"} {
			if pod := e.waitScheduled(name); pod.Spec.NodeName != "node-3" {
				t.Errorf("pod %s landed on %s, want node-3 (the only node with the device)", name, pod.Spec.NodeName)
			}
		}
		claim := e.claim("shared")
		if claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 ||
			claim.Status.Allocation.Devices.Results[0].Device != "dev-0" {
			t.Fatalf("claim allocation %+v, want exactly dev-0", claim.Status.Allocation)
		}
		var reserved []string
		for _, r := range claim.Status.ReservedFor {
			reserved = append(reserved, r.Name)
		}
		if strings.Join(reserved, ",") != "sharer-1,sharer-2" && strings.Join(reserved, ",") != "sharer-2,sharer-1" {
			t.Errorf("reservedFor %v, want both pods", reserved)
		}
		if !hasFinalizer(claim) {
			t.Errorf("allocated claim lacks the %s finalizer: %v", resourceapi.Finalizer, claim.Finalizers)
		}
		// The scheduler's informer drops managedFields; its writes of the
		// finalizer and the status leave the stored ones, and add its own.
		if len(created) == 0 {
			t.Fatal("the created claim has no managedFields")
		}
		for _, m := range created {
			if !slices.ContainsFunc(claim.ManagedFields, func(got metav1.ManagedFieldsEntry) bool {
				return got.Manager == m.Manager && got.Operation == m.Operation && got.Subresource == m.Subresource
			}) {
				t.Errorf("the creator's managedFields entry %s/%s is gone after the scheduler's writes: %+v", m.Manager, m.Operation, claim.ManagedFields)
			}
		}
		if !slices.ContainsFunc(claim.ManagedFields, func(m metav1.ManagedFieldsEntry) bool { return m.Subresource == "status" }) {
			t.Errorf("no managedFields entry for the scheduler's status write: %+v", claim.ManagedFields)
		}
	})

	t.Run("a claim already reserved for 256 consumers takes no more: the API server refuses the 257th, the pod stays unbound", func(t *testing.T) {
		e.t = t
		const driver = "full.example.com"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("full-node-4", driver, "node-4").Device("dev-0", nil).Obj(),
			objects.Claim("crowded", e.ns, objects.ClaimSpec("dev", driver, 1)))
		claim := e.claim("crowded")
		claim.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
			Results: []resourceapi.DeviceRequestAllocationResult{{Request: "dev", Driver: driver, Pool: "node-4", Device: "dev-0"}},
		}, AllocationTimestamp: ptr.To(metav1.Now())}
		// The consumers are not pods: the resourceclaim controller removes
		// reservations for pods that do not exist, which would make room
		// for the latecomer, but keeps those of other resources.
		for i := range resourceapi.ResourceClaimReservedForMaxSize {
			claim.Status.ReservedFor = append(claim.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{
				APIGroup: "batch.example.com", Resource: "jobs", Name: fmt.Sprintf("other-%d", i), UID: types.UID(fmt.Sprintf("other-%d", i))})
		}
		if _, err := e.client.ResourceV1().ResourceClaims(e.ns).UpdateStatus(e.ctx, claim, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("reserve the claim for %d consumers: %v", resourceapi.ResourceClaimReservedForMaxSize, err)
		}
		e.create(objects.MakePod("latecomer", e.ns).Scheduler(schedulerapp.Name).Claim("dev", "crowded").Obj())
		// Like the in-tree plugin (resourceclaim.CanBeReserved allows any
		// number), the limit is the API server's: PreBind's write fails.
		e.waitForEvent("latecomer", "FailedScheduling", "must have at most 256 items")
		if pod := e.pod("latecomer"); pod.Spec.NodeName != "" {
			t.Errorf("pod bound to %s although its claim has no room for another consumer", pod.Spec.NodeName)
		}
	})

	t.Run("a missing DeviceClass keeps the pod pending with a message naming it until the class appears", func(t *testing.T) {
		e.t = t
		const driver = "late.example.com"
		e.create(objects.MakeSlice("late-node-1", driver, "node-1").Device("dev-0", nil).Obj(),
			objects.ClaimTemplate("late", e.ns, "dev", "late-class", 1))
		e.create(objects.MakePod("waiter", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "late").Obj())
		e.waitForEvent("waiter", "FailedScheduling", "device class late-class does not exist")
		e.create(objects.DeviceClass("late-class", driver))
		if pod := e.waitScheduled("waiter"); pod.Spec.NodeName != "node-1" {
			t.Errorf("pod landed on %s, want node-1", pod.Spec.NodeName)
		}
	})

	t.Run("a CEL runtime error fails the pod with an event naming the claim, the device and the selector", func(t *testing.T) {
		e.t = t
		const driver = "broken.example.com"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("broken-node-2", driver, "node-2").Device("dev-0", nil).Obj(),
			objects.ClaimTemplate("broken", e.ns, "dev", driver, 1, `device.attributes["broken.example.com"].missing == "x"`))
		e.create(objects.MakePod("victim", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "broken").Obj())
		e.waitForEvent("victim", "FailedScheduling", "CEL runtime error")
		note := e.lastEvent("victim", "FailedScheduling")
		for _, want := range []string{"selector #0", "broken.example.com/node-2/dev-0", "missing"} {
			if !strings.Contains(note, want) {
				t.Errorf("event %q does not mention %q", note, want)
			}
		}
		if pod := e.pod("victim"); pod.Spec.NodeName != "" {
			t.Errorf("pod with a broken selector was bound to %s", pod.Spec.NodeName)
		}
	})

	t.Run("firstAvailable falls back to the second alternative and names the result request/sub", func(t *testing.T) {
		e.t = t
		const driver = "fallback.example.com"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("fallback-node-4", driver, "node-4").Device("small", map[string]string{"memory": "8Gi"}).Obj())
		spec := resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
			Name: "gpu",
			FirstAvailable: []resourceapi.DeviceSubRequest{
				{Name: "big", DeviceClassName: driver, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1,
					Selectors: celSelectors(`device.capacity["fallback.example.com"].memory.compareTo(quantity("40Gi")) >= 0`)},
				{Name: "small", DeviceClassName: driver, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1},
			},
		}}}}
		e.create(&resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "fallback", Namespace: e.ns},
			Spec: resourceapi.ResourceClaimTemplateSpec{Spec: spec}})
		e.create(objects.MakePod("modest", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "fallback").Obj())
		e.waitScheduled("modest")
		got := results(e.generatedClaim("modest", "gpu"))
		if want := "gpu/small=fallback.example.com/node-4/small"; got != want {
			t.Errorf("results %s, want %s", got, want)
		}
	})

	t.Run("All mode takes every matching device of the node", func(t *testing.T) {
		e.t = t
		const driver = "all.example.com"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("all-node-2", driver, "node-2").Device("a", nil).Device("b", nil).Device("c", nil).Obj())
		spec := objects.ClaimSpec("devs", driver, 0)
		spec.Devices.Requests[0].Exactly.AllocationMode = resourceapi.DeviceAllocationModeAll
		e.create(&resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "all", Namespace: e.ns},
			Spec: resourceapi.ResourceClaimTemplateSpec{Spec: spec}})
		e.create(objects.MakePod("greedy", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("devs", "all").Obj())
		e.waitScheduled("greedy")
		got := results(e.generatedClaim("greedy", "devs"))
		if want := "devs=all.example.com/node-2/a devs=all.example.com/node-2/b devs=all.example.com/node-2/c"; got != want {
			t.Errorf("results %s, want %s", got, want)
		}
	})

	t.Run("matchAttribute across two requests picks devices that share the attribute", func(t *testing.T) {
		e.t = t
		const driver = "nic.example.com"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("nic-node-1", driver, "node-1").
				Device("gpu-0", nil).Attribute("kind", "gpu").Attribute("root", "pci-0").
				Device("nic-0", nil).Attribute("kind", "nic").Attribute("root", "pci-1").
				Device("gpu-1", nil).Attribute("kind", "gpu").Attribute("root", "pci-1").Obj())
		spec := resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{
				{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: driver, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1,
					Selectors: celSelectors(`device.attributes["nic.example.com"].kind == "gpu"`)}},
				{Name: "nic", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: driver, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1,
					Selectors: celSelectors(`device.attributes["nic.example.com"].kind == "nic"`)}},
			},
			Constraints: []resourceapi.DeviceConstraint{{MatchAttribute: ptr.To[resourceapi.FullyQualifiedName]("nic.example.com/root")}},
		}}
		e.create(&resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "aligned", Namespace: e.ns},
			Spec: resourceapi.ResourceClaimTemplateSpec{Spec: spec}})
		e.create(objects.MakePod("aligned", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("pair", "aligned").Obj())
		e.waitScheduled("aligned")
		got := results(e.generatedClaim("aligned", "pair"))
		if want := "gpu=nic.example.com/node-1/gpu-1 nic=nic.example.com/node-1/nic-0"; got != want {
			t.Errorf("results %s, want %s (the GPU on the NIC's PCIe root)", got, want)
		}
	})

	t.Run("MostAllocated packs pods onto one node and LeastAllocated spreads them", func(t *testing.T) {
		e.t = t
		for _, c := range []struct {
			scheduler, driver string
			// wantMost is the most pods one node may get.
			wantMost int
		}{{"dra-pack", "pack.example.com", 4}, {"dra-spread", "spread.example.com", 2}} {
			e.create(objects.DeviceClass(c.driver, c.driver))
			for _, n := range []string{"node-1", "node-2"} {
				e.create(objects.MakeSlice(c.driver+"-"+n, c.driver, n).Device("d0", nil).Device("d1", nil).Device("d2", nil).Device("d3", nil).Obj())
			}
			e.create(objects.ClaimTemplate(c.driver, e.ns, "dev", c.driver, 1))
			used := map[string]int{}
			for i := range 4 {
				name := fmt.Sprintf("%s-%d", c.scheduler, i)
				e.create(objects.MakePod(name, e.ns).Scheduler(c.scheduler).ClaimFromTemplate("dev", c.driver).Obj())
				used[e.waitScheduled(name).Spec.NodeName]++
			}
			most := 0
			for _, n := range used {
				most = max(most, n)
			}
			if most != c.wantMost {
				t.Errorf("%s placed 4 pods as %v, want at most %d and at least %d on one node", c.scheduler, used, c.wantMost, c.wantMost)
			}
		}
	})

	t.Run("a DRA-backed extended resource gets a claim written by the scheduler and recorded in the pod's status", func(t *testing.T) {
		e.t = t
		const driver = "ext.example.com"
		class := objects.DeviceClass(driver, driver)
		class.Spec.ExtendedResourceName = ptr.To("example.com/accelerator")
		e.create(class, objects.MakeSlice("ext-node-1", driver, "node-1").Device("dev-0", nil).Device("dev-1", nil).Obj())
		pod := objects.MakePod("extended", e.ns).Scheduler(schedulerapp.Name).Obj()
		two := v1.ResourceList{"example.com/accelerator": resource.MustParse("2")}
		pod.Spec.Containers[0].Resources = v1.ResourceRequirements{Requests: two, Limits: two}
		e.create(pod)
		if pod := e.waitScheduled("extended"); pod.Spec.NodeName != "node-1" {
			t.Fatalf("pod bound to %s, want node-1 (the only node with %s devices)", pod.Spec.NodeName, driver)
		}
		var status *v1.PodExtendedResourceClaimStatus
		e.waitFor("the pod's extended resource claim status", func() (bool, string) {
			status = e.pod("extended").Status.ExtendedResourceClaimStatus
			return status != nil, "none yet"
		})
		want := v1.ContainerExtendedResourceRequest{ContainerName: "main", ResourceName: "example.com/accelerator", RequestName: "container-0-request-0"}
		if len(status.RequestMappings) != 1 || status.RequestMappings[0] != want {
			t.Errorf("request mappings %+v, want exactly %+v", status.RequestMappings, want)
		}
		claim := e.claim(status.ResourceClaimName)
		if got := results(claim); got != "container-0-request-0=ext.example.com/node-1/dev-0 container-0-request-0=ext.example.com/node-1/dev-1" {
			t.Errorf("claim %s allocation %s, want both devices of node-1", claim.Name, got)
		}
		if claim.Annotations[resourceapi.ExtendedResourceClaimAnnotation] != "true" {
			t.Errorf("claim %s lacks the %s annotation: %v", claim.Name, resourceapi.ExtendedResourceClaimAnnotation, claim.Annotations)
		}
		if owners := claim.OwnerReferences; len(owners) != 1 || owners[0].Name != "extended" || !ptr.Deref(owners[0].Controller, false) {
			t.Errorf("claim %s owners %+v, want the pod as controller", claim.Name, owners)
		}
		if r := claim.Status.ReservedFor; len(r) != 1 || r[0].Name != "extended" {
			t.Errorf("claim %s reservedFor %+v, want the pod", claim.Name, r)
		}
		// Its devices are taken: a second such pod has none left.
		second := objects.MakePod("extended-2", e.ns).Scheduler(schedulerapp.Name).Obj()
		second.Spec.Containers[0].Resources = v1.ResourceRequirements{Requests: two, Limits: two}
		e.create(second)
		e.waitForEvent("extended-2", "FailedScheduling", "are allocated")
	})

	t.Run("a device allocated to two claims by someone else raises a warning event on both claims", func(t *testing.T) {
		e.t = t
		for _, name := range []string{"dup-a", "dup-b"} {
			e.create(objects.Claim(name, e.ns, objects.ClaimSpec("dev", "dup.example.com", 1)))
			claim := e.claim(name)
			claim.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
				Results: []resourceapi.DeviceRequestAllocationResult{{Request: "dev", Driver: "dup.example.com", Pool: "node-2", Device: "dev-0"}},
			}}
			if _, err := e.client.ResourceV1().ResourceClaims(e.ns).UpdateStatus(e.ctx, claim, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("allocate %s: %v", name, err)
			}
		}
		for _, name := range []string{"dup-a", "dup-b"} {
			e.waitFor("a DeviceAllocatedTwice event on claim "+name, func() (bool, string) {
				list, err := e.client.EventsV1().Events(e.ns).List(e.ctx, metav1.ListOptions{})
				if err != nil {
					return false, err.Error()
				}
				for _, ev := range list.Items {
					if ev.Regarding.Kind == "ResourceClaim" && ev.Regarding.Name == name && ev.Reason == "DeviceAllocatedTwice" &&
						ev.Type == v1.EventTypeWarning && strings.Contains(ev.Note, "dup.example.com/node-2/dev-0") {
						return true, ""
					}
				}
				return false, fmt.Sprintf("%d events, none about %s", len(list.Items), name)
			})
		}
	})

	t.Run("200 pods competing for 100 devices: each device allocated once, the rest pending with the reason", func(t *testing.T) {
		e.t = t
		const driver, pods = "burst.example.com", 200
		e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("burst", e.ns, "dev", driver, 1))
		for _, n := range nodes {
			slice := objects.MakeSlice(driver+"-"+n, driver, n)
			for i := range 25 {
				slice.Device(fmt.Sprintf("dev-%d", i), nil)
			}
			e.create(slice.Obj())
		}
		var wg sync.WaitGroup
		errs := make(chan error, pods)
		for w := range 4 {
			wg.Go(func() {
				for i := w; i < pods; i += 4 {
					pod := objects.MakePod(fmt.Sprintf("burst-%03d", i), e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "burst").Obj()
					if err := objects.Create(e.ctx, e.client, pod); err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		start := time.Now()
		e.waitFor("100 burst pods bound", func() (bool, string) {
			bound, _ := e.burstPods()
			return len(bound) == 100, fmt.Sprintf("%d bound", len(bound))
		})
		t.Logf("100 of 200 pods bound %v after the last pod was created", time.Since(start).Round(time.Millisecond))
		time.Sleep(3 * time.Second) // a double allocation would bind more
		bound, pending := e.burstPods()
		if len(bound) != 100 || len(pending) != 100 {
			t.Fatalf("%d pods bound and %d pending, want 100 and 100", len(bound), len(pending))
		}
		owner := map[string]string{}
		for _, pod := range bound {
			claim := e.generatedClaim(pod.Name, "dev")
			if claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 {
				t.Fatalf("bound pod %s has claim allocation %+v, want one device", pod.Name, claim.Status.Allocation)
			}
			r := claim.Status.Allocation.Devices.Results[0]
			if r.Pool != pod.Spec.NodeName {
				t.Errorf("pod %s runs on %s but its device is %s/%s", pod.Name, pod.Spec.NodeName, r.Pool, r.Device)
			}
			key := r.Pool + "/" + r.Device
			if other, taken := owner[key]; taken {
				t.Errorf("device %s allocated to both %s and %s", key, other, pod.Name)
			}
			owner[key] = pod.Name
		}
		want := `0/4 nodes are available: 4 all devices matching request "dev" are allocated`
		for _, pod := range pending {
			var msg string
			for _, c := range pod.Status.Conditions {
				if c.Type == v1.PodScheduled {
					msg = c.Message
				}
			}
			if !strings.Contains(msg, want) {
				t.Errorf("pending pod %s says %q, want it to contain %q", pod.Name, msg, want)
				break
			}
		}
	})
}

// burstPods lists the burst test's pods, bound and not.
func (e *env) burstPods() (bound, pending []v1.Pod) {
	e.t.Helper()
	list, err := e.client.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatalf("list pods: %v", err)
	}
	for _, pod := range list.Items {
		if !strings.HasPrefix(pod.Name, "burst-") {
			continue
		}
		if pod.Spec.NodeName != "" {
			bound = append(bound, pod)
		} else {
			pending = append(pending, pod)
		}
	}
	return bound, pending
}

// claim fetches a ResourceClaim of the test namespace.
func (e *env) claim(name string) *resourceapi.ResourceClaim {
	e.t.Helper()
	c, err := e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("get claim %s: %v", name, err)
	}
	return c
}

// waitForEvent waits for a dra-scheduler event about the pod with the
// reason whose note contains text.
func (e *env) waitForEvent(pod, reason, text string) {
	e.t.Helper()
	e.waitFor(fmt.Sprintf("a %s event for pod %s saying %q", reason, pod, text), func() (bool, string) {
		events := e.schedulerEvents(pod)
		for _, ev := range events {
			if ev.Reason == reason && strings.Contains(ev.Note, text) {
				return true, ""
			}
		}
		return false, describeEvents(events)
	})
}

// lastEvent returns the note of the pod's last dra-scheduler event with
// the reason.
func (e *env) lastEvent(pod, reason string) string {
	var note string
	for _, ev := range e.schedulerEvents(pod) {
		if ev.Reason == reason {
			note = ev.Note
		}
	}
	return note
}

// results renders a claim's allocation as "request=driver/pool/device ...".
func results(claim *resourceapi.ResourceClaim) string {
	if claim.Status.Allocation == nil {
		return "<unallocated>"
	}
	var parts []string
	for _, r := range claim.Status.Allocation.Devices.Results {
		parts = append(parts, fmt.Sprintf("%s=%s/%s/%s", r.Request, r.Driver, r.Pool, r.Device))
	}
	return strings.Join(parts, " ")
}

func hasFinalizer(claim *resourceapi.ResourceClaim) bool {
	for _, f := range claim.Finalizers {
		if f == resourceapi.Finalizer {
			return true
		}
	}
	return false
}

func celSelectors(exprs ...string) []resourceapi.DeviceSelector {
	var out []resourceapi.DeviceSelector
	for _, expr := range exprs {
		out = append(out, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: expr}})
	}
	return out
}
