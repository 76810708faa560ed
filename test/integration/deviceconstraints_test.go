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

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// pcieRoot is the standard attribute GPUDirect RDMA ties a GPU and a NIC
// by.
const pcieRoot = "resource.kubernetes.io/pcieRoot"

// TestDeviceConstraintsAcrossAPodsClaims is issue 57's user story on the
// real kube-apiserver: node n1 has gpu-0 on pci-a, gpu-1 on pci-b and one
// NIC on pci-b. A pod with a GPU claim and a NIC claim tied by
// dra-scheduler.io/device-constraints gets gpu-1 (without it, gpu-0),
// whether its claims are pre-created or from templates, and when its NIC
// claim is a shared claim another pod already holds. A wrong annotation
// leaves the pod pending with a FailedScheduling message naming the
// annotation and a Warning event, and fixing it schedules the pod.
func TestDeviceConstraintsAcrossAPodsClaims(t *testing.T) {
	e := startCluster(t, draConfig)
	const driver = "pcie.example.com"
	kind := func(k string) string { return `device.attributes["` + driver + `"].kind == "` + k + `"` }
	slice := objects.MakeSlice("n1", driver, "n1")
	for _, d := range [][3]string{{"gpu-0", "gpu", "pci-a"}, {"gpu-1", "gpu", "pci-b"}, {"nic-0", "nic", "pci-b"}} {
		slice.Device(d[0], nil).Attribute("kind", d[1]).Attribute("slot", d[0])
		root := d[2]
		slice.Spec.Devices[len(slice.Spec.Devices)-1].Attributes[pcieRoot] = resourceapi.DeviceAttribute{StringValue: &root}
	}
	// gpu-first asks for gpu-0 first, else any GPU (firstAvailable).
	first := objects.ClaimTemplate("gpu-first", e.ns, "accel", driver, 1)
	first.Spec.Spec.Devices.Requests[0] = resourceapi.DeviceRequest{Name: "accel", FirstAvailable: []resourceapi.DeviceSubRequest{
		{Name: "slot0", DeviceClassName: driver, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1,
			Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.attributes["` + driver + `"].slot == "gpu-0"`}}}},
		{Name: "any", DeviceClassName: driver, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1,
			Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: kind("gpu")}}}},
	}}
	e.create(objects.MakeNode("n1").Obj(), objects.DeviceClass(driver, driver), slice.Obj(),
		objects.ClaimTemplate("gpu", e.ns, "accel", driver, 1, kind("gpu")),
		objects.ClaimTemplate("nic", e.ns, "net", driver, 1, kind("nic")), first)
	tied := `[{"requests": ["gpu/accel", "nic/net"], "matchAttribute": "` + pcieRoot + `"}]`
	annotated := func(pod *v1.Pod, value string) *v1.Pod {
		if value != "" {
			pod.Annotations = map[string]string{deviceconstraints.Annotation: value}
		}
		return pod
	}
	// gpuOf is the device the pod's claim "gpu" holds (pool/device).
	gpuOf := func(pod *v1.Pod) string {
		e.t.Helper()
		name := ""
		if src := pod.Spec.ResourceClaims[0].ResourceClaimName; src != nil {
			name = *src
		} else {
			name = e.generatedClaim(pod.Name, "gpu").Name
		}
		claim, err := e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil || claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 {
			e.t.Fatalf("claim %s of pod %s: %v, allocation %v", name, pod.Name, err, claim.Status.Allocation)
		}
		r := claim.Status.Allocation.Devices.Results[0]
		return r.Pool + "/" + r.Device
	}
	// Each case runs alone on n1: its pod is deleted after it.
	run := func(t *testing.T, pod *v1.Pod, want string) {
		e.t = t
		e.create(pod)
		t.Cleanup(func() { e.t = t; e.deletePods([]string{pod.Name}) })
		e.waitScheduled(pod.Name)
		if got := gpuOf(pod); got != want {
			t.Errorf("pod %s got GPU %s, want %s", pod.Name, got, want)
		}
	}

	t.Run("without the annotation the pod takes the first GPU, off the NIC's root", func(t *testing.T) {
		run(t, objects.MakePod("plain", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "gpu").ClaimFromTemplate("nic", "nic").Obj(), "n1/gpu-0")
	})
	t.Run("with claims from templates the pod takes the GPU on the NIC's root", func(t *testing.T) {
		run(t, annotated(objects.MakePod("templates", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "gpu").ClaimFromTemplate("nic", "nic").Obj(), tied), "n1/gpu-1")
	})
	t.Run("with pre-created claims the pod takes the GPU on the NIC's root", func(t *testing.T) {
		e.t = t
		e.create(objects.Claim("pre-gpu", e.ns, objects.ClaimSpec("accel", driver, 1, kind("gpu"))),
			objects.Claim("pre-nic", e.ns, objects.ClaimSpec("net", driver, 1, kind("nic"))))
		run(t, annotated(objects.MakePod("pre-created", e.ns).Scheduler(schedulerapp.Name).Claim("gpu", "pre-gpu").Claim("nic", "pre-nic").Obj(), tied), "n1/gpu-1")
	})
	t.Run("a shared NIC claim another pod holds fixes the GPU's root", func(t *testing.T) {
		e.t = t
		e.create(objects.Claim("shared-nic", e.ns, objects.ClaimSpec("net", driver, 1, kind("nic"))))
		holder := objects.MakePod("nic-holder", e.ns).Scheduler(schedulerapp.Name).Claim("nic", "shared-nic").Obj()
		sharer := annotated(objects.MakePod("nic-sharer", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "gpu").Claim("nic", "shared-nic").Obj(), tied)
		e.create(holder)
		e.waitScheduled(holder.Name)
		run(t, sharer, "n1/gpu-1")
		e.deletePods([]string{holder.Name})
	})
	t.Run("a firstAvailable request named by its parent falls back to the alternative on the NIC's root", func(t *testing.T) {
		e.t = t
		pod := annotated(objects.MakePod("first-available", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "gpu-first").ClaimFromTemplate("nic", "nic").Obj(), tied)
		run(t, pod, "n1/gpu-1")
		claim := e.generatedClaim(pod.Name, "gpu")
		if got := claim.Status.Allocation.Devices.Results[0].Request; got != "accel/any" {
			t.Errorf("the GPU came from request %s, want accel/any (the first alternative's gpu-0 is off the NIC's root)", got)
		}
	})
	t.Run("without the annotation a firstAvailable request takes its first alternative", func(t *testing.T) {
		run(t, objects.MakePod("first-available-plain", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "gpu-first").ClaimFromTemplate("nic", "nic").Obj(), "n1/gpu-0")
	})
	t.Run("a pod whose GPU on the NIC's root is taken waits, saying what came closest", func(t *testing.T) {
		e.t = t
		holder := objects.MakePod("gpu-1-holder", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "gpu-1").Obj()
		e.create(objects.ClaimTemplate("gpu-1", e.ns, "accel", driver, 1, `device.attributes["`+driver+`"].slot == "gpu-1"`), holder)
		e.waitScheduled(holder.Name)
		pod := annotated(objects.MakePod("waits", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "gpu").ClaimFromTemplate("nic", "nic").Obj(), tied)
		e.create(pod)
		t.Cleanup(func() { e.t = t; e.deletePods([]string{pod.Name, holder.Name}) })
		msg := e.waitUnschedulable(pod.Name, "are not met on node n1")
		if want := "closest: matchAttribute " + pcieRoot + ": gpu/accel on pci-a, nic/net on pci-b"; !strings.Contains(msg, want) {
			t.Errorf("the pod's message %q does not say %q", msg, want)
		}
	})
	t.Run("a wrong annotation leaves the pod pending saying so, and fixing it schedules the pod", func(t *testing.T) {
		e.t = t
		wrong := strings.Replace(tied, "nic/net", "nic/nett", 1)
		pod := annotated(objects.MakePod("wrong", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "gpu").ClaimFromTemplate("nic", "nic").Obj(), wrong)
		e.create(pod)
		t.Cleanup(func() { e.t = t; e.deletePods([]string{pod.Name}) })
		msg := e.waitUnschedulable(pod.Name, "annotation "+deviceconstraints.Annotation)
		if !strings.Contains(msg, `"nic/nett": claim nic has no request nett (it has: net)`) {
			t.Errorf("the pod's message %q does not say what is wrong", msg)
		}
		e.waitFor("a Warning event about the annotation", func() (bool, string) {
			events := e.schedulerEvents(pod.Name)
			for _, ev := range events {
				if ev.Type == v1.EventTypeWarning && ev.Reason == "InvalidDeviceConstraints" && strings.Contains(ev.Note, "nett") {
					return true, ""
				}
			}
			return false, describeEvents(events)
		})
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, deviceconstraints.Annotation, tied)
		if _, err := e.client.CoreV1().Pods(e.ns).Patch(e.ctx, pod.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		e.waitScheduled(pod.Name)
		if got := gpuOf(pod); got != "n1/gpu-1" {
			t.Errorf("after the fix the pod got GPU %s, want n1/gpu-1", got)
		}
	})
	e.checkNoDeviceTwice()
}
