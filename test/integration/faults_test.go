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

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// panicLabel names, on a pod, the plugin's points that panic for it
// ("Filter", or several joined by dots: "PreBind.Unreserve").
const panicLabel = "test.dra-scheduler.io/panic-at"

// panicHooks make the plugin panic wherever a pod's panicLabel says.
func panicHooks() *draallocator.Hooks {
	return &draallocator.Hooks{Enter: func(point string, pod *v1.Pod) {
		if pod != nil && slices.Contains(strings.Split(pod.Labels[panicLabel], "."), point) {
			panic(fmt.Sprintf("injected by the test into %s for pod %s", point, pod.Name))
		}
	}}
}

// TestFaultsStayWithOnePod: what goes wrong for one pod — a feature the
// plugin mishandled, a panic anywhere in it — fails that pod's attempt
// only; the scheduler keeps scheduling everyone else and nothing stays
// allocated or in flight.
func TestFaultsStayWithOnePod(t *testing.T) {
	e := startClusterWith(t, draConfig, controlplane.SchedulerOptions{Plugins: draallocator.Options{Hooks: panicHooks()}})
	legacy := objects.MakeNode("legacy").Obj()
	for _, list := range []v1.ResourceList{legacy.Status.Capacity, legacy.Status.Allocatable} {
		list["example.com/gpu"] = resource.MustParse("2")
	}
	e.create(legacy, objects.MakeNode("dra").Obj(), objects.MakeNode("spare").Obj())

	t.Run("an extended resource a device plugin serves binds without a claim, on a DRA node through a claim, and claim pods go on", func(t *testing.T) {
		e.t = t
		const driver = "gpu.legacy.example.com"
		class := objects.DeviceClass("legacy-gpu", driver)
		class.Spec.ExtendedResourceName = ptr.To("example.com/gpu")
		e.create(class, objects.MakeSlice("legacy-dra", driver, "dra").Device("gpu-0", nil).Obj())

		one := v1.ResourceList{"example.com/gpu": resource.MustParse("1")}
		onLegacy := objects.MakePod("on-legacy", e.ns).Scheduler(schedulerapp.Name).Obj()
		onLegacy.Spec.NodeSelector = map[string]string{v1.LabelHostname: "legacy"}
		onLegacy.Spec.Containers[0].Resources = v1.ResourceRequirements{Requests: one, Limits: one}
		e.create(onLegacy)
		if pod := e.waitScheduled("on-legacy"); pod.Spec.NodeName != "legacy" {
			t.Fatalf("pod bound to %s, want legacy", pod.Spec.NodeName)
		} else if pod.Status.ExtendedResourceClaimStatus != nil {
			t.Errorf("the device plugin serves legacy, yet the pod got an extended-resource claim: %+v", pod.Status.ExtendedResourceClaimStatus)
		}

		onDRA := objects.MakePod("on-dra", e.ns).Scheduler(schedulerapp.Name).Obj()
		onDRA.Spec.NodeSelector = map[string]string{v1.LabelHostname: "dra"}
		onDRA.Spec.Containers[0].Resources = v1.ResourceRequirements{Requests: one, Limits: one}
		e.create(onDRA)
		if pod := e.waitScheduled("on-dra"); pod.Spec.NodeName != "dra" {
			t.Fatalf("pod bound to %s, want dra", pod.Spec.NodeName)
		}
		var status *v1.PodExtendedResourceClaimStatus
		e.waitFor("the extended-resource claim status of on-dra", func() (bool, string) {
			status = e.pod("on-dra").Status.ExtendedResourceClaimStatus
			return status != nil, "none yet"
		})
		if got := results(e.claim(status.ResourceClaimName)); got != "container-0-request-0="+driver+"/dra/gpu-0" {
			t.Errorf("on-dra's claim %s allocation %s, want gpu-0 of dra", status.ResourceClaimName, got)
		}

		claims, err := e.client.ResourceV1().ResourceClaims(e.ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range claims.Items {
			if len(c.OwnerReferences) > 0 && c.OwnerReferences[0].Name == "on-legacy" {
				t.Errorf("claim %s was created for on-legacy, which the device plugin serves", c.Name)
			}
		}

		const claimDriver = "after.legacy.example.com"
		e.create(objects.DeviceClass(claimDriver, claimDriver),
			objects.MakeSlice("after-legacy", claimDriver, "spare").Device("dev-0", nil).Obj(),
			objects.ClaimTemplate("after-legacy", e.ns, "dev", claimDriver, 1))
		e.create(objects.MakePod("claim-after", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "after-legacy").Obj())
		if pod := e.waitScheduled("claim-after"); pod.Spec.NodeName != "spare" {
			t.Errorf("claim pod bound to %s, want spare", pod.Spec.NodeName)
		}
	})

	t.Run("a panic in Filter fails that pod with an event naming the plugin, is counted, and other pods are scheduled", func(t *testing.T) {
		e.t = t
		const driver = "filter.panic.example.com"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("filter-panic", driver, "spare").Device("dev-0", nil).Device("dev-1", nil).Obj(),
			objects.ClaimTemplate("filter-panic", e.ns, "dev", driver, 1))
		before := gatherDRAMetrics(t)
		boom := objects.MakePod("filter-boom", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "filter-panic").Obj()
		boom.Labels = map[string]string{panicLabel: "Filter"}
		e.create(boom)
		e.waitForEvent("filter-boom", "FailedScheduling", "DRAAllocator: internal error in Filter: injected by the test")
		e.create(objects.MakePod("filter-bystander", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "filter-panic").Obj())
		if pod := e.waitScheduled("filter-bystander"); pod.Spec.NodeName != "spare" {
			t.Errorf("bystander bound to %s, want spare", pod.Spec.NodeName)
		}
		if pod := e.pod("filter-boom"); pod.Spec.NodeName != "" {
			t.Errorf("the pod whose Filter panics was bound to %s", pod.Spec.NodeName)
		}
		if got := sumDelta(before, gatherDRAMetrics(t), "dra_scheduler_plugin_panics_total", "extension_point=Filter"); got < 1 {
			t.Errorf("dra_scheduler_plugin_panics_total{extension_point=Filter} grew by %v, want at least 1", got)
		}
	})

	t.Run("panics in PreBind and then in Unreserve still release the device the attempt had in flight", func(t *testing.T) {
		e.t = t
		const driver = "prebind.panic.example.com"
		e.create(objects.DeviceClass(driver, driver),
			objects.MakeSlice("prebind-panic", driver, "spare").Device("only", nil).Obj(),
			objects.Claim("prebind-boom", e.ns, objects.ClaimSpec("dev", driver, 1)),
			objects.Claim("prebind-next", e.ns, objects.ClaimSpec("dev", driver, 1)))
		boom := objects.MakePod("prebind-boom", e.ns).Scheduler(schedulerapp.Name).Claim("dev", "prebind-boom").Obj()
		boom.Labels = map[string]string{panicLabel: "PreBind.Unreserve"}
		e.create(boom)
		e.waitForEvent("prebind-boom", "FailedScheduling", "DRAAllocator: internal error in PreBind")
		if err := e.client.CoreV1().Pods(e.ns).Delete(e.ctx, "prebind-boom", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		// The claim outlives the pod: were its allocation still in flight,
		// the only device would stay taken.
		e.create(objects.MakePod("prebind-next", e.ns).Scheduler(schedulerapp.Name).Claim("dev", "prebind-next").Obj())
		if pod := e.waitScheduled("prebind-next"); pod.Spec.NodeName != "spare" {
			t.Errorf("pod bound to %s, want spare", pod.Spec.NodeName)
		}
		if got := results(e.claim("prebind-next")); got != "dev="+driver+"/spare/only" {
			t.Errorf("prebind-next's allocation %s, want the only device", got)
		}
		if c := e.claim("prebind-boom"); c.Status.Allocation != nil {
			t.Errorf("the panicking pod's claim is allocated: %s", results(c))
		}
	})

	t.Run("two profiles see each other's allocations in flight: 30 pods for 12 devices allocate each device once", func(t *testing.T) {
		e.t = t
		const driver = "profiles.example.com"
		slice := objects.MakeSlice("profiles", driver, "spare")
		for i := range 12 {
			slice.Device(fmt.Sprintf("dev-%d", i), nil)
		}
		e.create(objects.DeviceClass(driver, driver), slice.Obj(), objects.ClaimTemplate("profiles", e.ns, "dev", driver, 1))
		for i := range 30 {
			profile := schedulerapp.Name
			if i%2 == 1 {
				profile = "dra-pack"
			}
			e.create(objects.MakePod(fmt.Sprintf("profiles-%d", i), e.ns).Scheduler(profile).ClaimFromTemplate("dev", "profiles").Obj())
		}
		bound := 0
		e.waitFor("at least 12 of 30 pods bound and every other one failed once", func() (bool, string) {
			var failed int
			bound, failed = e.boundOrUnschedulable("profiles", 30)
			return bound >= 12 && bound+failed == 30, fmt.Sprintf("%d bound, %d failed", bound, failed)
		})
		if bound != 12 {
			t.Errorf("%d pods bound, want 12 (one per device)", bound)
		}
		held := e.allocatedDevices()
		devices := 0
		for device, claims := range held {
			if !strings.HasPrefix(device, driver+"/") {
				continue
			}
			devices++
			if len(claims) > 1 {
				t.Errorf("device %s allocated to %d claims: %v", device, len(claims), claims)
			}
		}
		if devices != 12 {
			t.Errorf("%d devices allocated, want all 12: %v", devices, held)
		}
	})
}

// allocatedDevices maps each allocated device of the namespace's claims
// ("driver/pool/device") to the claims holding it.
func (e *env) allocatedDevices() map[string][]string {
	e.t.Helper()
	list, err := e.client.ResourceV1().ResourceClaims(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatalf("list claims: %v", err)
	}
	held := map[string][]string{}
	for _, c := range list.Items {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			key := r.Driver + "/" + r.Pool + "/" + r.Device
			if r.ShareID != nil {
				// A share of a device with consumable capacity: each
				// share is held once.
				key += "#" + string(*r.ShareID)
			}
			held[key] = append(held[key], c.Name)
		}
	}
	return held
}

// boundOrUnschedulable counts the pods prefix-0 ... prefix-(n-1) that are
// bound, and those the scheduler found no node for.
func (e *env) boundOrUnschedulable(prefix string, n int) (bound, unschedulableNow int) {
	e.t.Helper()
	for i := range n {
		switch pod := e.pod(fmt.Sprintf("%s-%d", prefix, i)); {
		case pod.Spec.NodeName != "":
			bound++
		case unschedulable(pod):
			unschedulableNow++
		}
	}
	return bound, unschedulableNow
}

// unschedulable reports whether the scheduler found no node for the pod
// (whichever profile: each reports events under its own name).
func unschedulable(pod *v1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}
