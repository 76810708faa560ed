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
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestDeviceConstraintsAcrossAPodGroupsPods: a PodGroup's
// dra-scheduler.io/device-constraints keeps the NICs of a training gang's
// pods on one rail, across nodes. n1 has nic-a on rail-0 and nic-b on
// rail-1, n2 nic-e on rail-2 and nic-c on rail-1, and the cordoned n3 two
// NICs on rail-0: rail-0 has the most NICs, but only rail-1 has room for
// both pods, one on each node. Placed one by one, the first pod would take
// its node's first NIC and strand the second, whichever goes first; the
// group's plan tries the rails and takes rail-1. A pod of
// the group created once the others are bound keeps to their rail, and a
// wrong annotation leaves a group's pods pending, saying so.
func TestDeviceConstraintsAcrossAPodGroupsPods(t *testing.T) {
	e := startPodGroupCluster(t, podGroupConfig)
	const driver = "rail.example.com"
	const rail = driver + "/rail"
	// nics is a pool of NICs of node, each {name, rail}.
	nics := func(pool, node string, devices ...[2]string) *resourceapi.ResourceSlice {
		slice := objects.MakeSlice(pool, driver, node)
		slice.Spec.Pool.Name = pool
		for _, d := range devices {
			slice.Device(d[0], nil).Attribute("rail", d[1])
		}
		return slice.Obj()
	}
	cordoned := objects.MakeNode("n3").Obj()
	cordoned.Spec.Unschedulable = true
	e.create(objects.MakeNode("n1").Obj(), objects.MakeNode("n2").Obj(), cordoned, objects.DeviceClass(driver, driver),
		nics("n1", "n1", [2]string{"nic-a", "rail-0"}, [2]string{"nic-b", "rail-1"}),
		nics("n2", "n2", [2]string{"nic-e", "rail-2"}, [2]string{"nic-c", "rail-1"}),
		nics("n3", "n3", [2]string{"nic-d", "rail-0"}, [2]string{"nic-f", "rail-0"}),
		objects.ClaimTemplate("nic", e.ns, "net", driver, 1))
	onOneRail := `[{"requests": ["nic/net"], "matchAttribute": "` + rail + `"}]`
	group := func(name string, minCount int, value string) {
		pg := e.gangPodGroup(name, minCount)
		pg.Annotations = map[string]string{deviceconstraints.Annotation: value}
		e.createPodGroup(pg)
	}
	member := func(group, name string) string {
		pod := objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("nic", "nic").Obj()
		pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
		e.create(pod)
		return pod.Name
	}
	nicOf := func(pod string) string {
		e.t.Helper()
		claim, err := e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, e.generatedClaim(pod, "nic").Name, metav1.GetOptions{})
		if err != nil || claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 {
			e.t.Fatalf("the NIC claim of pod %s: %v", pod, err)
		}
		r := claim.Status.Allocation.Devices.Results[0]
		return r.Pool + "/" + r.Device
	}

	root := e.t
	root.Run("a gang's NICs are kept on the one rail that has room for all of them, across nodes", func(t *testing.T) {
		e.t = t
		group("train", 2, onOneRail)
		pods := []string{member("train", "train-0"), member("train", "train-1")}
		var got []string
		for _, pod := range pods {
			e.waitScheduled(pod)
			got = append(got, nicOf(pod))
		}
		slices.Sort(got)
		if want := []string{"n1/nic-b", "n2/nic-c"}; !slices.Equal(got, want) {
			t.Fatalf("the gang's NICs are %v, want %v (both on rail-1)", got, want)
		}

		// More NICs on n2, rail-0's first: a pod of the group created now
		// takes the rail its group has.
		e.create(nics("n2-more", "n2", [2]string{"nic-g", "rail-0"}, [2]string{"nic-h", "rail-1"}))
		late := objects.MakePod("train-2", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("nic", "nic").Obj()
		late.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("train")}
		late.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "n2"}
		e.create(late)
		e.waitScheduled(late.Name)
		if got := nicOf(late.Name); got != "n2-more/nic-h" {
			t.Errorf("the pod that joined later got %s, want n2-more/nic-h, on its group's rail-1", got)
		}
	})
	root.Run("a wrong annotation on the PodGroup leaves its pods pending, saying so", func(t *testing.T) {
		e.t = t
		group("broken", 1, strings.Replace(onOneRail, "nic/net", "nic/nett", 1))
		pod := member("broken", "broken-0")
		msg := e.waitUnschedulable(pod, "PodGroup "+e.ns+"/broken: ")
		if !strings.Contains(msg, `"nic/nett": claim nic has no request nett (it has: net)`) {
			t.Errorf("the pod's message %q does not say what is wrong", msg)
		}
		e.waitFor("a Warning event about the annotation", func() (bool, string) {
			events := e.schedulerEvents(pod)
			for _, ev := range events {
				if ev.Type == v1.EventTypeWarning && ev.Reason == "InvalidDeviceConstraints" && strings.Contains(ev.Note, "PodGroup "+e.ns+"/broken") {
					return true, ""
				}
			}
			return false, describeEvents(events)
		})
	})
}

// TestDeviceConstraintsAcrossAPodGroupsPodsHoldPerPlacement: with a rack
// constraint, each rack the group may take is planned with its own rail.
// rack-1 (r1-a, r1-b) has one NIC per node, on two rails; rack-2 (r2-a,
// r2-b, r2-c) one per node on rail-1. A gang of two, one NIC per pod:
// without the annotation it fills rack-1 (the fuller once placed,
// MostAllocated); on one rail it goes to rack-2.
func TestDeviceConstraintsAcrossAPodGroupsPodsHoldPerPlacement(t *testing.T) {
	e := startTopologyCluster(t, topologyConfig)
	const driver = "rail.example.com"
	for _, n := range [][3]string{{"r1-a", "rack-1", "rail-0"}, {"r1-b", "rack-1", "rail-1"}, {"r2-a", "rack-2", "rail-1"}, {"r2-b", "rack-2", "rail-1"}, {"r2-c", "rack-2", "rail-1"}} {
		e.create(objects.MakeNode(n[0]).Label("rack", n[1]).Obj(),
			objects.MakeSlice(n[0], driver, n[0]).Device("nic-0", nil).Attribute("rail", n[2]).Obj())
	}
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("nic", e.ns, "net", driver, 1))
	e.createTopologyGang("train", 2, "rack")
	pg, err := e.client.SchedulingV1beta1().PodGroups(e.ns).Get(e.ctx, "train", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pg.Annotations = map[string]string{deviceconstraints.Annotation: `[{"requests": ["nic"], "matchAttribute": "` + driver + `/rail"}]`}
	if _, err := e.client.SchedulingV1beta1().PodGroups(e.ns).Update(e.ctx, pg, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		pod := objects.MakePod(fmt.Sprintf("train-%d", i), e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("nic", "nic").Obj()
		pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("train")}
		e.create(pod)
	}
	for i := range 2 {
		if pod := e.waitScheduled(fmt.Sprintf("train-%d", i)); !strings.HasPrefix(pod.Spec.NodeName, "r2-") {
			t.Errorf("pod train-%d is on %s, want a node of rack-2, whose NICs share a rail", i, pod.Spec.NodeName)
		}
	}
}
