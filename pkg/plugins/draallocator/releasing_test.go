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
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// lowNode2 is node-2 with each device held by its own low-priority pod
// other-<i> through claim other-<i>: victims a dry run there may choose.
func lowNode2() (pods []*v1.Pod, objs []runtime.Object) {
	for i := range 4 {
		pod := boundPod(fmt.Sprintf("other-%d", i), "node-2", lowPriority, fmt.Sprintf("other-%d", i))
		pods = append(pods, pod)
		objs = append(objs, pod, heldClaim(fmt.Sprintf("other-%d", i), "node-2", []string{fmt.Sprintf("dev-%d", i)}, consumer(pod)))
	}
	return pods, objs
}

func TestADryRunChoosesNoVictimsOnAnotherNodeWhileThePodWaitsOnItsNominatedNode(t *testing.T) {
	// node-1: low-0 was preempted and is gone, its claim held-0 still holds
	// dev-0; low-1..3 stay. node-2 is full of low-priority pods, any of
	// which a dry run could evict. DefaultPreemption, run before the
	// plugin's PostFilter (a profile that enables DRAAllocator alone),
	// dry-runs node-2 and would evict there unless the dry run finds no
	// room (issue 53).
	for _, tc := range []struct {
		name      string
		devices   int64
		nominated string
		wait      bool
	}{
		{"nominated where the device being released is enough: no room elsewhere", 1, "node-1", true},
		{"nominated where it is not enough: victims elsewhere", 2, "node-1", false},
		{"nominated where nothing is being released: victims elsewhere", 1, "node-2", false},
		{"not nominated: victims anywhere", 1, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, objs := preemptionCluster()
			low, held := fullNode1()
			objs = append(objs, held[1:]...)
			others, node2 := lowNode2()
			objs = append(objs, node2...)
			want := objects.Claim("want", testNamespace, objects.ClaimSpec("dev", testDriver, tc.devices))
			objs = append(objs, want)
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			pl := h.plugins[0]
			pod := boundPod("preemptor", "", highPriority, "want")
			pod.Status.NominatedNodeName = tc.nominated
			c, st := h.filter(pl, pod)
			if st != nil || len(c.feasible) != 0 {
				t.Fatalf("fits on %v (PreFilter %v), want nowhere: dev-0 is still allocated", c.feasible, st)
			}
			st = c.dryRun("node-2", others[:tc.devices]...)
			if got := st.IsSuccess(); got == tc.wait {
				t.Errorf("a dry run on node-2 removing %d pods: %v, want room %v", tc.devices, st, !tc.wait)
			}
			if tc.wait {
				if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "on node node-1 to be released") {
					t.Errorf("a dry run on node-2: %v, want UnschedulableAndUnresolvable naming node-1, where the pod waits", st)
				}
				// Its own nominated node is dry-run as ever.
				if st := c.dryRun("node-1", low[1]); !st.IsSuccess() {
					t.Errorf("a dry run on node-1 removing %s: %v, want room", low[1].Name, st)
				}
			}
			// PostFilter, wherever it runs, keeps the nomination while the
			// pod waits.
			_, st = pl.PostFilter(h.ctx, c.state, pod, nodeStatuses{fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithPlugin(Name)})
			if st.IsSuccess() != tc.wait {
				t.Errorf("PostFilter: %v, want waiting %v", st, tc.wait)
			}
		})
	}
}

func TestFilterDecidesTheReleaseWaitOnlyOnTheNominatedNode(t *testing.T) {
	// As above, the pod nominated to node-1; node-2's pods stay.
	nodes, objs := preemptionCluster()
	_, held := fullNode1()
	objs = append(objs, held[1:]...)
	objs = append(objs, fullNode2()...)
	pod, claim := preemptor(1)
	pod.Status.NominatedNodeName = "node-1"
	objs = append(objs, claim)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]

	c := &cycle{h: h, pl: pl, pod: pod, state: framework.NewCycleState()}
	if _, st := pl.PreFilter(h.ctx, c.state, pod, h.nodes); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	s, err := getState(c.state)
	if err != nil {
		t.Fatal(err)
	}
	if st := pl.Filter(h.ctx, c.state, pod, h.nodeInfo("node-2")); st.IsSuccess() {
		t.Fatalf("Filter on node-2: fits, want rejected")
	}
	if s.release.decided.Load() {
		t.Errorf("Filter turning down node-2, where the pod is not nominated, decided the release wait (%q)", s.release.node)
	}
	if st := pl.Filter(h.ctx, c.state, pod, h.nodeInfo("node-1")); st.IsSuccess() {
		t.Fatalf("Filter on node-1: fits, want rejected while dev-0 is held")
	}
	if got := s.release.waitingOn(); got != "node-1" {
		t.Errorf("after Filter turned node-1 down, the pod waits on %q, want node-1", got)
	}
}

func TestTheReleaseWaitCountsEveryWayAVictimsClaimIsReleased(t *testing.T) {
	// node-1: the victim's claim holds dev-0 in one phase of its release or
	// another; low-1..3 stay. The preemptor, nominated to node-1, needs one
	// device.
	gone := boundPod("low-0", "node-1", lowPriority, "held-0")
	terminating := gone.DeepCopy()
	terminating.DeletionTimestamp = ptr.To(metav1.Now())
	terminating.Finalizers = []string{"test.example.com/keep"}
	running := gone.DeepCopy()
	ownedBy := func(claim *resourceapi.ResourceClaim, pod *v1.Pod) *resourceapi.ResourceClaim {
		claim.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true)}}
		return claim
	}
	for _, tc := range []struct {
		name string
		// victim is the victim's pod as the informer has it; nil: gone.
		victim *v1.Pod
		// claim is held-0 as the informer has it; nil: deleted.
		claim *resourceapi.ResourceClaim
		// allocated says the plugin's tracker still has dev-0 taken
		// (it learns of a release a moment after the DRA manager).
		allocated bool
		wait      bool
	}{
		{"the victim terminates, its claim reserved for it", terminating, heldClaim("held-0", "node-1", []string{"dev-0"}, consumer(gone)), false, true},
		{"the victim is gone, its claim still reserved for it", nil, heldClaim("held-0", "node-1", []string{"dev-0"}, consumer(gone)), false, true},
		{"the victim is gone, its generated claim reserved for nobody and still allocated", nil, ownedBy(heldClaim("held-0", "node-1", []string{"dev-0"}), gone), false, true},
		{"the victim is gone, its claim reserved for nobody, allocated and being deleted", nil, func() *resourceapi.ResourceClaim {
			c := heldClaim("held-0", "node-1", []string{"dev-0"})
			c.DeletionTimestamp = ptr.To(metav1.Now())
			c.Finalizers = []string{resourceapi.Finalizer}
			return c
		}(), false, true},
		{"the victim is gone, its claim deallocated, the plugin's tracker behind", nil, objects.Claim("held-0", testNamespace, objects.ClaimSpec("dev", testDriver, 1)), true, true},
		{"the victim is gone, its generated claim deleted, the plugin's tracker behind", nil, nil, true, true},
		{"the victim runs, its claim reserved for it: nothing is being released", running, heldClaim("held-0", "node-1", []string{"dev-0"}, consumer(gone)), false, false},
		{"a pre-created claim reserved for nobody and allocated: nobody releases it", nil, heldClaim("held-0", "node-1", []string{"dev-0"}), false, false},
		// The resourceclaim controller releases a PodGroup-level claim
		// only once its PodGroup is deleted: evicting members does not.
		{"the victim is gone, its PodGroup-level claim reserved for the group: the group keeps it", nil, heldClaim("held-0", "node-1", []string{"dev-0"}, podGroupConsumer("gang")), false, false},
		{"the victim is gone, a claim reserved for it and for its PodGroup: the group keeps it", nil, heldClaim("held-0", "node-1", []string{"dev-0"}, consumer(gone), podGroupConsumer("gang")), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, objs := preemptionCluster()
			_, held := fullNode1()
			objs = append(objs, held[2:]...)
			if tc.victim != nil {
				objs = append(objs, tc.victim)
			}
			if tc.claim != nil {
				objs = append(objs, tc.claim)
			}
			objs = append(objs, fullNode2()...)
			pod, claim := preemptor(1)
			pod.Status.NominatedNodeName = "node-1"
			objs = append(objs, claim)
			h := newHarness(t, nil, []string{"default"}, nodes, objs...)
			pl := h.plugins[0]
			if tc.allocated {
				pl.tracker.SetPending("stale-held-0", allocationOf("node-1", "dev-0"))
			}
			c, st := h.filter(pl, pod)
			if st != nil || len(c.feasible) != 0 {
				t.Fatalf("fits on %v (PreFilter %v), want nowhere while the plugin has dev-0 taken", c.feasible, st)
			}
			_, st = pl.PostFilter(h.ctx, c.state, pod, nodeStatuses{fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithPlugin(Name)})
			if st.IsSuccess() != tc.wait {
				t.Errorf("PostFilter: %v, want waiting %v", st, tc.wait)
			}
		})
	}
}

// podGroupConsumer is the reservation of a claim for the PodGroup name.
func podGroupConsumer(name string) resourceapi.ResourceClaimConsumerReference {
	return resourceapi.ResourceClaimConsumerReference{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: name, UID: types.UID(name + "-uid")}
}

// TestAPodGroupKeepsItsNominationsWhileTheDevicesOfItsVictimsAreReleased:
// node-1's low-0 and low-1 were preempted for the group and are gone;
// their claims still hold dev-0 and dev-1. low-2 and low-3 stay; node-2
// is full of pods that stay.
func TestAPodGroupKeepsItsNominationsWhileTheDevicesOfItsVictimsAreReleased(t *testing.T) {
	withPodGroups(t, false)
	nodes, objs := preemptionCluster()
	_, held := fullNode1()
	// held alternates pods and claims: low-0's and low-1's pods are left out.
	objs = append(objs, held[1], held[3])
	objs = append(objs, held[4:]...)
	objs = append(objs, fullNode2()...)
	for _, name := range []string{"a", "b", "c"} {
		objs = append(objs, objects.Claim("want-"+name, testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	}
	objs = append(objs, trainGroup())
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	for _, tc := range []struct {
		name string
		// nominated are the nominated nodes of the group's pods a, b, c
		// ("-": none); a pod without claims gets none.
		nominated []string
		claims    []bool
		// tried is how many of the pods the cycle tried before it stopped
		// (GangScheduling ends it once minCount is out of reach); 0: all.
		tried int
		wait  bool
	}{
		{"every pod nominated where the devices being released hold it: the group waits",
			[]string{"node-1", "node-1"}, []bool{true, true}, 0, true},
		{"a pod the cycle stopped before waits where the devices being released hold it",
			[]string{"node-1", "node-1"}, []bool{true, true}, 1, true},
		{"a pod the cycle stopped before, nominated where nothing is being released: DefaultPreemption runs",
			[]string{"node-1", "node-2"}, []bool{true, true}, 1, false},
		{"a pod without claims keeps its nomination beside pods that wait",
			[]string{"node-1", "node-2"}, []bool{true, false}, 0, true},
		{"a pod not nominated: DefaultPreemption runs",
			[]string{"node-1", "-"}, []bool{true, true}, 0, false},
		{"a pod nominated where nothing is being released: DefaultPreemption runs",
			[]string{"node-1", "node-2"}, []bool{true, true}, 0, false},
		{"more pods than devices being released: DefaultPreemption runs",
			[]string{"node-1", "node-1", "node-1"}, []bool{true, true, true}, 0, false},
		{"more pods than devices being released, one of them not tried: DefaultPreemption runs",
			[]string{"node-1", "node-1", "node-1"}, []bool{true, true, true}, 2, false},
		{"no pod with claims: nothing to wait for",
			[]string{"node-1"}, []bool{false}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			group := framework.NewCycleState()
			var pods []*v1.Pod
			for i, node := range tc.nominated {
				name := string(rune('a' + i))
				var pod *v1.Pod
				if tc.claims[i] {
					pod = boundPod(name, "", highPriority, "want-"+name)
				} else {
					pod = boundPod(name, "", highPriority)
				}
				pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("train")}
				if node != "-" {
					pod.Status.NominatedNodeName = node
					h.nominated.AddNominatedPod(klog.Background(), podInfo(t, pod), nil)
				}
				pods = append(pods, pod)
				if tc.tried > 0 && i >= tc.tried {
					continue
				}
				// The group's plan may turn the pod down in PreFilter
				// already, as in the scheduler.
				c, st := h.filterInGroup(pl, pod, group)
				if st.IsError() || tc.claims[i] && len(c.feasible) != 0 {
					t.Fatalf("pod %s fits on %v (PreFilter %v), want no node", name, c.feasible, st)
				}
			}
			t.Cleanup(func() { h.nominated.byNode = nil })
			info := &podGroupInfo{group: trainGroup(), kind: fwk.PodGroupKeyType, pods: pods}
			result, st := pl.PodGroupPostFilter(h.ctx, group, info, nil)
			if got := st.IsSuccess(); got != tc.wait {
				t.Fatalf("PodGroupPostFilter: %v, want waiting %v", st, tc.wait)
			}
			if !tc.wait {
				return
			}
			if !strings.Contains(st.Message(), "to be released") {
				t.Errorf("PodGroupPostFilter message %q does not say what the group waits for", st.Message())
			}
			for i, pod := range pods {
				got := result.NominatingInfos[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}]
				if got == nil || got.NominatedNodeName != tc.nominated[i] || got.NominatingMode != fwk.ModeOverride {
					t.Errorf("pod %s: nomination %+v, want %s kept", pod.Name, got, tc.nominated[i])
				}
			}
		})
	}
}
