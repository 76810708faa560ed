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
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// podGroupConfig is draConfig's first profile ordered as the shipped one:
// DRAAllocator's PostFilter and PodGroupPostFilter run before
// DefaultPreemption's, as the in-tree plugin's do by default.
const podGroupConfig = configHeader + `  plugins:
    multiPoint:
      enabled: [{name: DRAAllocator, weight: 2}, {name: DefaultPreemption}]
      disabled: [{name: DynamicResources}, {name: DefaultPreemption}]
`

// startPodGroupCluster turns GenericWorkload and DRAWorkloadResourceClaims
// on for the API server, the resourceclaim controller and dra-scheduler,
// serves scheduling.k8s.io/v1beta1 (PodGroups), and starts them.
func startPodGroupCluster(t *testing.T, schedulerConfig string) *env {
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
		features.GenericWorkload:           true,
		features.DRAWorkloadResourceClaims: true,
	})
	return startClusterOn(t, controlplane.Options{APIServerFlags: []string{"--runtime-config=scheduling.k8s.io/v1beta1=true"}},
		schedulerConfig, controlplane.SchedulerOptions{})
}

// gpuNode is a node with n devices of driver.
func gpuNode(name, driver string, n int) []any {
	slice := objects.MakeSlice(name, driver, name)
	for i := range n {
		slice.Device(fmt.Sprintf("gpu-%d", i), nil)
	}
	return []any{objects.MakeNode(name).Obj(), slice.Obj()}
}

// gang creates a gang PodGroup of size pods whose PodGroup declares claim
// "gpus" from template, and its pods, each consuming the group's claim.
func (e *env) gang(name, template string, size int) []string {
	e.t.Helper()
	e.createGang(name, size, schedulingapi.PodGroupResourceClaim{Name: "gpus", ResourceClaimTemplateName: ptr.To(template)})
	return e.gangPods(name, name, "gpus", template, size)
}

// createGang creates the gang PodGroup name needing minCount pods, with
// the PodGroup's claims.
func (e *env) createGang(name string, minCount int, claims ...schedulingapi.PodGroupResourceClaim) {
	e.t.Helper()
	e.createPodGroup(e.gangPodGroup(name, minCount, claims...))
}

// gangPodGroup is the gang PodGroup name needing minCount pods, with the
// PodGroup's claims, in the test's namespace.
func (e *env) gangPodGroup(name string, minCount int, claims ...schedulingapi.PodGroupResourceClaim) *schedulingapi.PodGroup {
	return &schedulingapi.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns},
		Spec: schedulingapi.PodGroupSpec{
			SchedulingPolicy: schedulingapi.PodGroupSchedulingPolicy{Gang: &schedulingapi.GangSchedulingPolicy{MinCount: int32(minCount)}},
			ResourceClaims:   claims,
		},
	}
}

// createPodGroup creates group, failing the test on error.
func (e *env) createPodGroup(group *schedulingapi.PodGroup) {
	e.t.Helper()
	if _, err := e.client.SchedulingV1beta1().PodGroups(group.Namespace).Create(e.ctx, group, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("create PodGroup %s: %v", group.Name, err)
	}
}

// gangPods creates size pods of PodGroup group named prefix-<i>, each with
// pod claim claim from template: the group's claim where the PodGroup
// declares one of that name, else a claim of the pod's own.
func (e *env) gangPods(group, prefix, claim, template string, size int) []string {
	e.t.Helper()
	var pods []string
	for i := range size {
		pod := objects.MakePod(fmt.Sprintf("%s-%d", prefix, i), e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate(claim, template).Obj()
		pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
		e.create(pod)
		pods = append(pods, pod.Name)
	}
	return pods
}

// deletePods deletes pods at once (no kubelet confirms a graceful
// deletion here) and waits until they are gone.
func (e *env) deletePods(names []string) {
	e.t.Helper()
	for _, name := range names {
		if err := e.client.CoreV1().Pods(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			e.t.Fatalf("delete pod %s: %v", name, err)
		}
	}
	e.waitFor(fmt.Sprintf("%d pods to be gone", len(names)), func() (bool, string) {
		for _, name := range names {
			if _, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{}); err == nil {
				return false, "pod " + name + " still exists"
			}
		}
		return true, ""
	})
}

// groupClaim returns the claim the resourceclaim controller created for
// PodGroup group's claim "gpus", waiting for it.
func (e *env) groupClaim(group string) *resourceapi.ResourceClaim {
	e.t.Helper()
	var claim *resourceapi.ResourceClaim
	e.waitFor("the claim of PodGroup "+group, func() (bool, string) {
		pg, err := e.client.SchedulingV1beta1().PodGroups(e.ns).Get(e.ctx, group, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, s := range pg.Status.ResourceClaimStatuses {
			if s.Name == "gpus" && s.ResourceClaimName != nil {
				claim, err = e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, *s.ResourceClaimName, metav1.GetOptions{})
				return err == nil, fmt.Sprint(err)
			}
		}
		return false, fmt.Sprintf("resourceClaimStatuses %v", pg.Status.ResourceClaimStatuses)
	})
	return claim
}

// TestAGangSharesItsPodGroupsClaim schedules gangs whose PodGroup declares
// one claim for all their pods (GenericWorkload, DRAWorkloadResourceClaims):
// a gang of 8 whose claim takes the 8 GPUs of one node lands there with
// one allocation reserved for the PodGroup; a gang of 4 sharing a plain
// claim gets it reserved for each pod; a gang that cannot fit leaves
// every pod pending and nothing allocated, reserved or finalized; once the
// first gang's pods are gone and its claim's node takes no new pods, its
// new pods get the claim deallocated by PodGroupPostFilter and allocated
// on another node. The in-tree plugin, run the same way, is the
// reference.
func TestAGangSharesItsPodGroupsClaim(t *testing.T) {
	for _, tc := range []struct{ name, config string }{
		{"with DRAAllocator", podGroupConfig},
		{"with the in-tree plugin", inTreeConfig},
	} {
		t.Run(tc.name, func(t *testing.T) { testAGangSharesItsPodGroupsClaim(t, tc.config) })
	}
}

func testAGangSharesItsPodGroupsClaim(t *testing.T, schedulerConfig string) {
	e := startPodGroupCluster(t, schedulerConfig)
	const driver = "gpu.example.com"
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("gpu8", e.ns, "gpus", driver, 8))
	e.create(gpuNode("node-1", driver, 8)...)
	e.create(gpuNode("node-2", driver, 4)...)

	for _, name := range e.gang("train", "gpu8", 8) {
		if pod := e.waitScheduled(name); pod.Spec.NodeName != "node-1" {
			t.Errorf("pod %s landed on %s, want node-1 (the only node with 8 GPUs)", name, pod.Spec.NodeName)
		}
	}
	claim := e.groupClaim("train")
	e.waitFor("the PodGroup's claim allocated", func() (bool, string) {
		claim = e.groupClaim("train")
		return claim.Status.Allocation != nil, fmt.Sprintf("reservedFor %v", claim.Status.ReservedFor)
	})
	if n := len(claim.Status.Allocation.Devices.Results); n != 8 {
		t.Errorf("the PodGroup's claim has %d devices, want 8", n)
	}
	for _, r := range claim.Status.Allocation.Devices.Results {
		if r.Pool != "node-1" {
			t.Errorf("device %s/%s allocated, want only node-1's", r.Pool, r.Device)
		}
	}
	pg, err := e.client.SchedulingV1beta1().PodGroups(e.ns).Get(e.ctx, "train", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := resourceapi.ResourceClaimConsumerReference{APIGroup: schedulingapi.GroupName, Resource: "podgroups", Name: "train", UID: pg.UID}
	if r := claim.Status.ReservedFor; len(r) != 1 || r[0] != want {
		t.Errorf("the PodGroup's claim is reserved for %+v, want exactly %+v", r, want)
	}
	if !slices.Contains(claim.Finalizers, resourceapi.Finalizer) {
		t.Errorf("the PodGroup's claim has finalizers %v, want %s", claim.Finalizers, resourceapi.Finalizer)
	}
	list, err := e.client.ResourceV1().ResourceClaims(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Errorf("%d claims in the namespace, want the PodGroup's only", len(list.Items))
	}

	// A gang of 4 whose PodGroup declares no claim shares a plain claim
	// for 4 GPUs: it lands on node-2, and the claim is reserved for each
	// pod. The pods bind in parallel, so all but one find the allocation
	// already written by a sibling.
	e.create(objects.Claim("shared-4", e.ns, objects.ClaimSpec("gpus", driver, 4)))
	e.createGang("infer", 4)
	var inferPods []string
	for i := range 4 {
		pod := objects.MakePod(fmt.Sprintf("infer-%d", i), e.ns).Scheduler(schedulerapp.Name).Claim("gpus", "shared-4").Obj()
		pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("infer")}
		e.create(pod)
		inferPods = append(inferPods, pod.Name)
	}
	var podUIDs []string
	for _, name := range inferPods {
		pod := e.waitScheduled(name)
		if pod.Spec.NodeName != "node-2" {
			t.Errorf("pod %s landed on %s, want node-2 (4 free GPUs)", name, pod.Spec.NodeName)
		}
		podUIDs = append(podUIDs, string(pod.UID))
	}
	e.waitFor("claim shared-4 reserved for the 4 pods", func() (bool, string) {
		c, err := e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, "shared-4", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		var got []string
		for _, r := range c.Status.ReservedFor {
			got = append(got, string(r.UID))
		}
		slices.Sort(got)
		want := slices.Clone(podUIDs)
		slices.Sort(want)
		return c.Status.Allocation != nil && len(c.Status.Allocation.Devices.Results) == 4 && slices.Equal(got, want),
			fmt.Sprintf("allocation %v, reservedFor %v", c.Status.Allocation != nil, c.Status.ReservedFor)
	})

	// node-1's and node-2's GPUs are taken: the next gang of 8 fits
	// nowhere. All its pods stay pending and its claim untouched.
	pods := e.gang("eval", "gpu8", 8)
	e.waitUnschedulable(pods[0], "")
	claim = e.groupClaim("eval")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, name := range pods {
			if node := e.pod(name).Spec.NodeName; node != "" {
				t.Fatalf("pod %s of a gang that cannot fit was bound to %s", name, node)
			}
		}
		claim, err = e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, claim.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if claim.Status.Allocation != nil || len(claim.Status.ReservedFor) > 0 || slices.Contains(claim.Finalizers, resourceapi.Finalizer) {
			t.Fatalf("the claim of a gang that cannot fit: allocation %v, reservedFor %v, finalizers %v; want none", claim.Status.Allocation, claim.Status.ReservedFor, claim.Finalizers)
		}
		time.Sleep(500 * time.Millisecond)
	}

	// The train gang's pods are gone, but its PodGroup still holds the
	// claim, allocated on node-1, which takes no new pods now; node-3 has 8
	// GPUs. New pods of the group cannot use the claim where it is, so
	// PodGroupPostFilter deallocates it (no pod of the group is assumed or
	// bound) and the next cycle allocates it on node-3.
	e.deletePods(pods)
	e.deletePods(e.podsOfGroup("train"))
	node, err := e.client.CoreV1().Nodes().Get(e.ctx, "node-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: "maintenance", Effect: v1.TaintEffectNoSchedule})
	if _, err := e.client.CoreV1().Nodes().Update(e.ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("taint node-1: %v", err)
	}
	if claim = e.groupClaim("train"); len(claim.Status.ReservedFor) != 1 || claim.Status.Allocation == nil {
		t.Fatalf("the train group's claim after its pods were deleted: allocation %v, reservedFor %v; want it still allocated and reserved for the group", claim.Status.Allocation, claim.Status.ReservedFor)
	}
	e.create(gpuNode("node-3", driver, 8)...)
	for _, name := range e.gangPods("train", "train-again", "gpus", "gpu8", 8) {
		if pod := e.waitScheduled(name); pod.Spec.NodeName != "node-3" {
			t.Errorf("pod %s landed on %s, want node-3", name, pod.Spec.NodeName)
		}
	}
	e.waitFor("the train group's claim allocated on node-3", func() (bool, string) {
		claim = e.groupClaim("train")
		a := claim.Status.Allocation
		return a != nil && len(a.Devices.Results) == 8 && a.Devices.Results[0].Pool == "node-3", fmt.Sprintf("allocation %v", a)
	})
	if r := claim.Status.ReservedFor; len(r) != 1 || r[0] != want {
		t.Errorf("the train group's claim is reserved for %+v, want exactly %+v", r, want)
	}
}

// podsOfGroup lists the test namespace's pods of a PodGroup.
func (e *env) podsOfGroup(group string) []string {
	e.t.Helper()
	list, err := e.client.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var names []string
	for _, pod := range list.Items {
		if g := pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil && *g.PodGroupName == group {
			names = append(names, pod.Name)
		}
	}
	return names
}
