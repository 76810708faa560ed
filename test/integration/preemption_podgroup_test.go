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
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestAPreemptorEvictsNobodyForAPodGroupsClaim: the resourceclaim
// controller releases a claim a PodGroup declares only once the PodGroup
// is deleted, so evicting the group's pods frees none of its devices.
// Single-pod preemption must neither count them freed nor wait for them
// (issue 53, the victims' claim kinds): with a one-pod gang holding both
// GPUs of n0 through its PodGroup's claim, and two one-GPU pods on n1, a
// preemptor of two GPUs evicts n1's two pods, although evicting the gang's
// one pod would look cheaper.
func TestAPreemptorEvictsNobodyForAPodGroupsClaim(t *testing.T) {
	e := startPodGroupCluster(t, preemptionConfig)
	e.createPreemptionPriorities()
	e.startKubeletStandIn()
	const driver = "pgclaim.example.com"
	e.create(objects.DeviceClass(driver, driver),
		objects.ClaimTemplate("gpu-1", e.ns, "gpu", driver, 1),
		objects.ClaimTemplate("gpu-2", e.ns, "gpu", driver, 2))
	e.create(gpuNode("n0", driver, 2)...)
	e.create(gpuNode("n1", driver, 2)...)

	// A gang of one pod, of the pod's priority (kube-scheduler refuses a
	// group whose pods' priority is not the group's).
	group := e.gangPodGroup("gang", 1, schedulingapi.PodGroupResourceClaim{Name: "gpus", ResourceClaimTemplateName: ptr.To("gpu-2")})
	group.Spec.PriorityClassName = "low"
	e.createPodGroup(group)
	member := objects.MakePod("gang-0", e.ns).Scheduler(schedulerapp.Name).PriorityClass("low").
		GracePeriod(preemptionGracePeriod).ClaimFromTemplate("gpus", "gpu-2").Obj()
	member.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("gang")}
	e.create(pinned(member, "n0"))
	e.waitBoundOn("n0", member.Name)
	if claim := e.groupClaim("gang"); claim.Status.Allocation == nil {
		t.Fatalf("the PodGroup's claim %s is not allocated", claim.Name)
	}
	lows := e.fill("low", "low", "gpu-1", "n1", 2)

	e.create(preemptionPod("high", e.ns, "high", "gpu-2"))
	e.waitBoundOn("n1", "high")
	if victims := e.evicted(append(slices.Clone(lows), member.Name)); !slices.Equal(victims, lows) {
		t.Fatalf("pods %v were evicted for high, want only %v (evicting %s frees no device: its PodGroup keeps the claim); high's events: %s",
			victims, lows, member.Name, describeEvents(e.schedulerEvents("high")))
	}
	e.holdsFor(2*time.Second, member.Name+" to stay", func() string { return e.intact(member.Name) })
	e.checkNoDeviceTwice()
}
