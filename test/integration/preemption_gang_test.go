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
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestAHighPriorityGangPreemptsForDevices: a high-priority gang whose pods
// need devices that lower-priority pods hold gets them by workload-aware
// preemption (issue 55), evicting only as many pods as it needs: the
// pod group preemption's re-run sees the removed pods' devices free, and
// the victims whose devices the gang does not need are given back.
func TestAHighPriorityGangPreemptsForDevices(t *testing.T) {
	// Either order of the PodGroupPostFilters: the re-run is told from the
	// snapshot, not from DRAAllocator's own PodGroupPostFilter.
	for _, profile := range []struct{ name, config string }{
		{"shipped order, DRAAllocator's PodGroupPostFilter first", preemptionConfig},
		{"DRAAllocator alone in multiPoint, DefaultPreemption's first", configHeader + draPlugins},
	} {
		t.Run(profile.name, func(t *testing.T) { testGangPreemption(t, profile.config) })
	}
}

// testGangPreemption: on three nodes of two GPUs each, high-priority
// gangs of one-GPU pods evict as many low pods as they need, no more.
func testGangPreemption(t *testing.T, config string) {
	e := startPodGroupCluster(t, config)
	e.createPreemptionPriorities()
	kubelet := e.startKubeletStandIn()
	const driver = "gangpreempt.example.com"
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("gpu-1", e.ns, "gpu", driver, 1),
		objects.ClaimTemplate("gpu-2", e.ns, "gpu", driver, 2))
	never := objects.PriorityClass("high-never", preemptionPriorities["high"])
	never.PreemptionPolicy = ptr.To(v1.PreemptNever)
	if _, err := e.client.SchedulingV1().PriorityClasses().Create(e.ctx, never, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PriorityClass high-never: %v", err)
	}
	nodes := []string{"n0", "n1", "n2"}
	for _, n := range nodes {
		e.create(gpuNode(n, driver, 2)...)
	}
	root := e.t
	for i, tc := range []struct {
		name string
		// lowsOn are the nodes that low-priority one-GPU pods fill.
		lowsOn []string
		gang   int
		// victims is how many low pods the gang needs evicted; -1: the
		// gang does not fit even with every low pod gone.
		victims int
		// terminating is how long an evicted pod takes to go.
		terminating time.Duration
		// never: the gang's pods have preemptionPolicy Never.
		never bool
	}{
		{"a gang of six evicts the six pods holding every GPU", nodes, 6, 6, kubeletDelay, false},
		{"a gang of four evicts four of the six pods holding every GPU, not all six", nodes, 4, 4, kubeletDelay, false},
		{"a gang of four evicts only the two pods holding the GPUs it lacks", []string{"n0", "n1"}, 4, 2, kubeletDelay, false},
		{"a gang of two takes the two free GPUs and evicts nobody", []string{"n0", "n1"}, 2, 0, kubeletDelay, false},
		{"a gang of seven that six GPUs cannot hold evicts nobody", nodes, 7, -1, kubeletDelay, false},
		{"a gang whose victims take 3s to go does not preempt again meanwhile", nodes, 4, 4, slowKubeletDelay, false},
		{"a gang whose pods never preempt evicts nobody", nodes, 4, -1, kubeletDelay, true},
	} {
		group := fmt.Sprintf("train-%d", i)
		root.Run(tc.name, func(t *testing.T) {
			e.preemptionCase(t)
			kubelet.setDelay(tc.terminating)
			t.Cleanup(func() { kubelet.setDelay(kubeletDelay) })
			var lows []string
			for _, n := range tc.lowsOn {
				lows = append(lows, e.fill("low-"+n, "low", "gpu-1", n, 2)...)
			}
			var gang []string
			if tc.never {
				gang = e.priorityGang(group, "high", tc.gang, "", "gpu", "gpu-1", func(pod *v1.Pod) { pod.Spec.PriorityClassName = "high-never" })
			} else {
				gang = e.highGang(group, tc.gang, "")
			}
			if tc.victims < 0 {
				t.Logf("the gang stays pending: %s", e.stayPending(gang, lows))
				return
			}
			for _, name := range gang {
				e.waitScheduled(name)
			}
			victims := e.evicted(lows)
			if len(victims) != tc.victims {
				t.Fatalf("pods %v were evicted for the gang of %d, want %d of %v; events of %s: %s",
					victims, tc.gang, tc.victims, lows, gang[0], describeEvents(e.schedulerEvents(gang[0])))
			}
			e.holdsFor(2*time.Second, "the other low pods to stay", func() string { return e.intact(without(lows, victims)...) })
			e.checkNoDeviceTwice()
		})
	}
	for _, late := range []struct{ name, class string }{
		{"a pod of lower priority arriving while the victims go does not take their devices", "low"},
		{"a pod of equal priority that cannot preempt, arriving while the victims go, does not take their devices", "high-never"},
	} {
		root.Run(late.name, func(t *testing.T) {
			e.preemptionCase(t)
			kubelet.setDelay(slowKubeletDelay)
			t.Cleanup(func() { kubelet.setDelay(kubeletDelay) })
			var lows []string
			for _, n := range nodes {
				lows = append(lows, e.fill("low-"+n, "low", "gpu-1", n, 2)...)
			}
			gang := e.highGang("train-late-"+late.class, 4, "")
			e.waitFor("the gang's victims to be evicted", func() (bool, string) {
				victims := e.evicted(lows)
				return len(victims) == 4, fmt.Sprintf("evicted %v", victims)
			})
			// It cannot preempt, and the gang's pods, nominated, come
			// first for the devices their victims free.
			e.create(preemptionPod("late", e.ns, late.class, "gpu-1"))
			for _, name := range gang {
				e.waitScheduled(name)
			}
			if victims := e.evicted(lows); len(victims) != 4 {
				t.Fatalf("pods %v were evicted for the gang of 4, want 4 of %v; events of %s: %s", victims, lows, gang[0], describeEvents(e.schedulerEvents(gang[0])))
			}
			e.holdsFor(2*time.Second, "the late pod to stay unbound", func() string { return e.unbound("late") })
			e.checkNoDeviceTwice()
		})
	}
	root.Run("a gang whose victims are gone but whose victims' claims are not yet released neither preempts nor runs its preemption again", func(t *testing.T) {
		e.preemptionCase(t)
		var lows []string
		for _, n := range nodes {
			lows = append(lows, e.fill("low-"+n, "low", "gpu-1", n, 2)...)
		}
		lift := e.holdClaimReleases("low-", lows[0])
		before := gatherDRAMetrics(t)
		gang := e.highGang("train-held", 4, "")
		// Its victims go, their claims stay reserved for them: the gang
		// is tried again, waits, and keeps its nominations.
		e.waitFor("the gang to wait for its victims' claims", func() (bool, string) {
			waits := growth(before, gatherDRAMetrics(t), "dra_scheduler_preemption_release_waits_total")
			return waits >= 1 && len(e.gone(lows)) == 4, fmt.Sprintf("%v waits; gone %v", waits, e.gone(lows))
		})
		e.holdsFor(2*time.Second, "the gang to wait, evicting nobody more", func() string {
			if victims := e.evicted(lows); len(victims) != 4 {
				return fmt.Sprintf("pods %v were evicted for the gang of 4, want 4", victims)
			}
			for _, name := range gang {
				if pod := e.pod(name); pod.Spec.NodeName != "" || pod.Status.NominatedNodeName == "" {
					return fmt.Sprintf("pod %s is bound to %q, nominated to %q, while its devices are held", name, pod.Spec.NodeName, pod.Status.NominatedNodeName)
				}
			}
			return ""
		})
		if reruns := growth(before, gatherDRAMetrics(t), "dra_scheduler_group_preemption_reruns_total"); reruns != 1 {
			t.Fatalf("%v pod group preemption re-runs, want 1 (the one that chose the victims); events of %s: %s", reruns, gang[0], describeEvents(e.schedulerEvents(gang[0])))
		}
		lift()
		for _, name := range gang {
			e.waitScheduled(name)
		}
		if victims := e.evicted(lows); len(victims) != 4 {
			t.Fatalf("pods %v were evicted for the gang of 4, want 4 of %v", victims, lows)
		}
		e.checkNoDeviceTwice()
	})
	root.Run("a gang evicts the pods of a low-priority gang it needs, no more", func(t *testing.T) {
		e.preemptionCase(t)
		lows := e.priorityGang("low-gang", "low", 4, "", "gpu", "gpu-1", nil)
		for _, name := range lows {
			e.waitScheduled(name)
		}
		gang := e.highGang("train-over-gang", 4, "")
		for _, name := range gang {
			e.waitScheduled(name)
		}
		// Two GPUs were free: two of the low gang's pods go.
		if victims := e.evicted(lows); len(victims) != 2 {
			t.Fatalf("pods %v were evicted for the gang of 4, want 2 of %v; events of %s: %s", victims, lows, gang[0], describeEvents(e.schedulerEvents(gang[0])))
		}
		e.checkNoDeviceTwice()
	})
	// Last: the PodGroup keeps its claim's two GPUs once its pods go.
	root.Run("a gang sharing its PodGroup's claim of two GPUs evicts the two pods of one node", func(t *testing.T) {
		e.preemptionCase(t)
		var lows []string
		for _, n := range nodes {
			lows = append(lows, e.fill("low-"+n, "low", "gpu-1", n, 2)...)
		}
		gang := e.highGangWith("train-shared", 2, "", "gpus", "gpu-2", schedulingapi.PodGroupResourceClaim{Name: "gpus", ResourceClaimTemplateName: ptr.To("gpu-2")})
		var node string
		for _, name := range gang {
			pod := e.waitScheduled(name)
			if node != "" && pod.Spec.NodeName != node {
				t.Errorf("gang pods on %s and %s: their shared claim's two GPUs are on one node", node, pod.Spec.NodeName)
			}
			node = pod.Spec.NodeName
		}
		victims := e.evicted(lows)
		if want := []string{"low-" + node + "-0", "low-" + node + "-1"}; !slices.Equal(victims, want) {
			t.Fatalf("pods %v were evicted for the gang, want %v; events of %s: %s", victims, want, gang[0], describeEvents(e.schedulerEvents(gang[0])))
		}
		e.checkNoDeviceTwice()
	})
}

// highGang creates the high-priority gang PodGroup name of size pods, all
// needed in one domain of the node label topologyKey (none if ""), and its
// pods name-<i>, each with a one-GPU claim of its own.
func (e *env) highGang(name string, size int, topologyKey string) []string {
	e.t.Helper()
	return e.highGangWith(name, size, topologyKey, "gpu", "gpu-1")
}

// highGangWith is highGang with each pod's claim "claim" from template:
// the group's claim where groupClaims declare one of that name.
func (e *env) highGangWith(name string, size int, topologyKey, claim, template string, groupClaims ...schedulingapi.PodGroupResourceClaim) []string {
	e.t.Helper()
	return e.priorityGang(name, "high", size, topologyKey, claim, template, nil, groupClaims...)
}

// priorityGang is highGangWith with the priority class given and each pod
// changed by mutate, if set, before it is created.
func (e *env) priorityGang(name, class string, size int, topologyKey, claim, template string, mutate func(*v1.Pod), groupClaims ...schedulingapi.PodGroupResourceClaim) []string {
	e.t.Helper()
	group := e.gangPodGroup(name, size, groupClaims...)
	group.Spec.PriorityClassName = class
	if topologyKey != "" {
		group.Spec.SchedulingConstraints = &schedulingapi.PodGroupSchedulingConstraints{Topology: []schedulingapi.TopologyConstraint{{Key: topologyKey}}}
	}
	e.createPodGroup(group)
	var pods []string
	for i := range size {
		pod := objects.MakePod(fmt.Sprintf("%s-%d", name, i), e.ns).Scheduler(schedulerapp.Name).PriorityClass(class).
			GracePeriod(preemptionGracePeriod).ClaimFromTemplate(claim, template).Obj()
		pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(name)}
		if mutate != nil {
			mutate(pod)
		}
		e.create(pod)
		pods = append(pods, pod.Name)
	}
	return slices.Clip(pods)
}
