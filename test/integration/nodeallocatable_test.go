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
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/dranodeallocatableresources"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// Every node of the node-allocatable tests has this much cpu and memory
// allocatable (and room for 110 pods, MakeNode's default).
const (
	naNodeCPU    = "8"
	naNodeMemory = "16Gi"
)

// burstPrefix names the pods of the back-to-back case; bindWindow holds the
// first of them to reach DRAAllocator's PreBind there.
const burstPrefix = "burst-"

// TestNodeAllocatableResources runs DRANodeAllocatableResources (alpha, on
// for the API server and dra-scheduler here; DRAConsumableCapacity too,
// for capacityKey mappings) end to end, once with DRAAllocator and once
// with the in-tree DynamicResources plugin, which is the reference. Each
// case has a node and a driver of its own, and its pods can only run
// there, so the cases share one cluster per plugin without interfering.
func TestNodeAllocatableResources(t *testing.T) {
	t.Run("with DRAAllocator", func(t *testing.T) { testNodeAllocatableResources(t, draConfig, &bindWindow{}) })
	// The in-tree plugin has no hooks: its back-to-back pods are just
	// created together.
	t.Run("with the in-tree plugin", func(t *testing.T) { testNodeAllocatableResources(t, inTreeConfig, nil) })
}

// bindWindow holds the first back-to-back pod that reaches DRAAllocator's
// PreBind there for a while, so the other pod's scheduling cycle surely
// runs while the first one is assumed but not yet bound, and records when
// it let go.
type bindWindow struct {
	held   atomic.Bool
	closed atomic.Int64 // UnixNano
}

func (w *bindWindow) hooks(d time.Duration) *draallocator.Hooks {
	return &draallocator.Hooks{Enter: func(point string, pod *v1.Pod) {
		if point == "PreBind" && pod != nil && strings.HasPrefix(pod.Name, burstPrefix) && w.held.CompareAndSwap(false, true) {
			time.Sleep(d)
			w.closed.Store(time.Now().UnixNano())
		}
	}}
}

// testNodeAllocatableResources runs the cases with schedulerConfig; window,
// if not nil, holds the back-to-back case's first bind open through
// DRAAllocator's hooks.
func testNodeAllocatableResources(t *testing.T, schedulerConfig string, window *bindWindow) {
	var opts controlplane.SchedulerOptions
	if window != nil {
		opts.Plugins.Hooks = window.hooks(3 * time.Second)
	}
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
		features.DRANodeAllocatableResources: true,
		features.DRAConsumableCapacity:       true,
	})
	e := startClusterWith(t, schedulerConfig, opts)
	for _, node := range []string{"map", "cores", "overhead", "share", "burst"} {
		e.create(naNode(node))
	}

	t.Run("a claim whose device maps 2 cpu is recorded in the pod's status and counted against the node, for other pods and for the next claim", func(t *testing.T) {
		e.t = t
		const driver = "map.example.com"
		e.create(objects.DeviceClass(driver, driver),
			naSlice("map", driver, 2, map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: mapping("2")}),
			objects.Claim("map-a", e.ns, objects.ClaimSpec("cpus", driver, 1)),
			objects.Claim("map-b", e.ns, objects.ClaimSpec("cpus", driver, 1)))

		e.create(naPod("map-1", e.ns, "map-a"))
		pod := e.waitScheduled("map-1")
		if pod.Spec.NodeName != "map" {
			t.Errorf("map-1 landed on %s, want map (the only node with the driver's devices)", pod.Spec.NodeName)
		}
		checkNodeAllocatableStatuses(t, pod, v1.NodeAllocatableResourceClaimStatus{
			ResourceClaimName: "map-a", Containers: []string{"main"},
			Mapping: []v1.NodeAllocatableMappedResources{{Name: v1.ResourceCPU, Quantity: quantity("2")}},
		})
		if claim := e.claim("map-a"); claim.Status.Allocation == nil {
			t.Errorf("map-a is not allocated although map-1 is bound")
		}

		// 7 cpu would fit the empty node; with map-1's 2 they do not.
		// NodeResourcesFit rejects this one, from map-1's status.
		e.create(pinned(withRequests(objects.MakePod("map-plain", e.ns).Scheduler(schedulerapp.Name).Obj(), v1.ResourceList{v1.ResourceCPU: resource.MustParse("7")}), "map"))
		e.waitUnschedulableWithEvent("map-plain", "Insufficient cpu")
		e.deletePods([]string{"map-plain"})

		// 5 cpu fit next to map-1 (6 free); 5 plus the claim's own 2 do not.
		// Only the DRA plugin counts the claim of the pod it schedules.
		e.create(withRequests(naPod("map-2", e.ns, "map-b"), v1.ResourceList{v1.ResourceCPU: resource.MustParse("5")}))
		e.waitUnschedulableWithEvent("map-2", "Insufficient cpu")
		if claim := e.claim("map-b"); claim.Status.Allocation != nil || len(claim.Status.ReservedFor) != 0 {
			t.Errorf("map-b of the unschedulable map-2 is allocated (%s) or reserved (%v)", results(claim), claim.Status.ReservedFor)
		}

		// Once map-1 is gone (its claim deallocated), 5 + 2 fit.
		// DRAAllocator retries map-2 when the scheduler's cache has let
		// map-1 go (an AssignedPod delete event). The in-tree plugin
		// registers no such event: it retries map-2 on map-a's
		// deallocation, which may reach the queue before the deletion
		// reaches the cache, and then map-2 waits for the next event (or
		// the five-minute flush). A new label on the node is that event
		// here.
		e.deletePods([]string{"map-1"})
		if window == nil {
			e.labelNode("map")
		}
		pod = e.waitScheduled("map-2")
		if pod.Spec.NodeName != "map" {
			t.Errorf("map-2 landed on %s, want map", pod.Spec.NodeName)
		}
		checkNodeAllocatableStatuses(t, pod, v1.NodeAllocatableResourceClaimStatus{
			ResourceClaimName: "map-b", Containers: []string{"main"},
			Mapping: []v1.NodeAllocatableMappedResources{{Name: v1.ResourceCPU, Quantity: quantity("2")}},
		})
	})

	t.Run("a capacityKey mapping counts the consumed capacity times the multiplier", func(t *testing.T) {
		e.t = t
		const driver = "cores.example.com"
		// One shared device of 4 cores; each core is 2 cpu.
		slice := objects.MakeSlice("cores", driver, "cores").Device("pool", map[string]string{"cores": "4"}).AllowMultipleAllocations().Obj()
		slice.Spec.Devices[0].NodeAllocatableResources = map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: {
			Mapping: &resourceapi.NodeAllocatableMapping{CapacityKey: ptr.To[resourceapi.QualifiedName]("cores"), CapacityMultiplier: quantity("2")},
		}}
		e.create(objects.DeviceClass(driver, driver), slice,
			objects.Claim("cores-3", e.ns, coresSpec(driver, "3")),
			objects.Claim("cores-1", e.ns, coresSpec(driver, "1")))

		e.create(naPod("cores-a", e.ns, "cores-3"))
		pod := e.waitScheduled("cores-a")
		checkNodeAllocatableStatuses(t, pod, v1.NodeAllocatableResourceClaimStatus{
			ResourceClaimName: "cores-3", Containers: []string{"main"},
			Mapping: []v1.NodeAllocatableMappedResources{{Name: v1.ResourceCPU, Quantity: quantity("6")}},
		})
		claim := e.claim("cores-3")
		if claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 ||
			!apiequality.Semantic.DeepEqual(claim.Status.Allocation.Devices.Results[0].ConsumedCapacity, map[resourceapi.QualifiedName]resource.Quantity{"cores": resource.MustParse("3")}) {
			t.Errorf("cores-3 is allocated as %s, want the pool consuming 3 cores", toJSON(claim.Status.Allocation))
		}

		// The device still has a core free, but 6 + 2 (1 core) + 1 cpu
		// exceed the node's 8.
		e.create(withRequests(naPod("cores-b", e.ns, "cores-1"), v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}))
		e.waitUnschedulableWithEvent("cores-b", "Insufficient cpu")
		if claim := e.claim("cores-1"); claim.Status.Allocation != nil {
			t.Errorf("cores-1 of the unschedulable cores-b is allocated: %s", results(claim))
		}
	})

	t.Run("overhead counts once per pod plus once per referencing container, and an overhead-only claim is shared", func(t *testing.T) {
		e.t = t
		const driver = "overhead.example.com"
		e.create(objects.DeviceClass(driver, driver),
			naSlice("overhead", driver, 1, map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceMemory: {
				Overhead: &resourceapi.NodeAllocatableOverhead{PerPod: quantity("1Gi"), PerContainer: quantity("512Mi")},
			}}),
			objects.Claim("overhead-gpu", e.ns, objects.ClaimSpec("gpu", driver, 1)))
		overhead := []v1.NodeAllocatableOverheadResources{{Name: v1.ResourceMemory, PerPod: quantity("1Gi"), PerContainer: quantity("512Mi")}}

		// 1Gi + 2 × 512Mi = 2Gi of the node's memory.
		e.create(naPod("overhead-1", e.ns, "overhead-gpu", "sidecar"))
		pod := e.waitScheduled("overhead-1")
		if pod.Spec.NodeName != "overhead" {
			t.Errorf("overhead-1 landed on %s, want overhead", pod.Spec.NodeName)
		}
		checkNodeAllocatableStatuses(t, pod, v1.NodeAllocatableResourceClaimStatus{
			ResourceClaimName: "overhead-gpu", Containers: []string{"main", "sidecar"}, Overhead: overhead,
		})

		// 14Gi fit the 14Gi left; with this pod's own 1.5Gi overhead
		// they do not (nor would they without overhead-1's 2Gi).
		e.create(withRequests(naPod("overhead-big", e.ns, "overhead-gpu"), v1.ResourceList{v1.ResourceMemory: resource.MustParse("14Gi")}))
		if msg := e.waitUnschedulableWithEvent("overhead-big", "Insufficient memory"); strings.Contains(msg, "cannot be shared") {
			t.Errorf("overhead-big says %q: an overhead-only claim must be shareable", msg)
		}

		// 12Gi + 1.5Gi fit: the claim, already reserved for overhead-1, is
		// shared.
		e.create(withRequests(naPod("overhead-2", e.ns, "overhead-gpu"), v1.ResourceList{v1.ResourceMemory: resource.MustParse("12Gi")}))
		pod = e.waitScheduled("overhead-2")
		if pod.Spec.NodeName != "overhead" {
			t.Errorf("overhead-2 landed on %s, want overhead", pod.Spec.NodeName)
		}
		checkNodeAllocatableStatuses(t, pod, v1.NodeAllocatableResourceClaimStatus{
			ResourceClaimName: "overhead-gpu", Containers: []string{"main"}, Overhead: overhead,
		})
		if got, want := reservedNames(e.claim("overhead-gpu")), []string{"overhead-1", "overhead-2"}; !slices.Equal(got, want) {
			t.Errorf("overhead-gpu is reserved for %v, want %v", got, want)
		}
		if pod := e.pod("overhead-big"); pod.Spec.NodeName != "" {
			t.Errorf("overhead-big was bound to %s once overhead-2 took the room it lacked", pod.Spec.NodeName)
		}
	})

	t.Run("a claim with a mapped device is not shared: the second pod waits until the first is gone", func(t *testing.T) {
		e.t = t
		const driver = "share.example.com"
		e.create(objects.DeviceClass(driver, driver),
			naSlice("share", driver, 1, map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: mapping("1")}),
			objects.Claim("share-cpu", e.ns, objects.ClaimSpec("cpus", driver, 1)))

		e.create(naPod("share-1", e.ns, "share-cpu"))
		e.waitScheduled("share-1")
		e.create(naPod("share-2", e.ns, "share-cpu"))
		e.waitUnschedulableWithEvent("share-2", "node allocatable resource claim share-cpu has a mapped device and cannot be shared across pods")
		if got, want := reservedNames(e.claim("share-cpu")), []string{"share-1"}; !slices.Equal(got, want) {
			t.Errorf("share-cpu is reserved for %v, want %v", got, want)
		}

		e.deletePods([]string{"share-1"})
		pod := e.waitScheduled("share-2")
		checkNodeAllocatableStatuses(t, pod, v1.NodeAllocatableResourceClaimStatus{
			ResourceClaimName: "share-cpu", Containers: []string{"main"},
			Mapping: []v1.NodeAllocatableMappedResources{{Name: v1.ResourceCPU, Quantity: quantity("1")}},
		})
	})

	t.Run("two pods whose claims map 6 cpu each, created back to back for an 8-cpu node: exactly one binds", func(t *testing.T) {
		e.t = t
		const driver = "burst.example.com"
		e.create(objects.DeviceClass(driver, driver),
			naSlice("burst", driver, 2, map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: mapping("6")}),
			objects.Claim("burst-a", e.ns, objects.ClaimSpec("cpus", driver, 1)),
			objects.Claim("burst-b", e.ns, objects.ClaimSpec("cpus", driver, 1)))
		claimOf := map[string]string{burstPrefix + "1": "burst-a", burstPrefix + "2": "burst-b"}
		e.create(naPod(burstPrefix+"1", e.ns, "burst-a"), naPod(burstPrefix+"2", e.ns, "burst-b"))

		// The second pod is decided while the first is assumed and (with
		// DRAAllocator) held in PreBind: it must see the first's 6 cpu.
		var bound, pending *v1.Pod
		e.waitFor("one back-to-back pod bound and the other unschedulable for lack of cpu", func() (bool, string) {
			one, two := e.pod(burstPrefix+"1"), e.pod(burstPrefix+"2")
			if one.Spec.NodeName != "" && two.Spec.NodeName != "" {
				t.Fatalf("both back-to-back pods were bound (12 cpu of claims on an 8-cpu node): the second was scheduled without counting the first's cpu in flight")
			}
			for _, p := range [][2]*v1.Pod{{one, two}, {two, one}} {
				if p[0].Spec.NodeName != "" && unschedulable(p[1]) && strings.Contains(scheduledMessage(p[1]), "Insufficient cpu") {
					bound, pending = p[0], p[1]
					return true, ""
				}
			}
			return false, fmt.Sprintf("%s on %q (%s), %s on %q (%s)", one.Name, one.Spec.NodeName, scheduledMessage(one), two.Name, two.Spec.NodeName, scheduledMessage(two))
		})
		checkNodeAllocatableStatuses(t, bound, v1.NodeAllocatableResourceClaimStatus{
			ResourceClaimName: claimOf[bound.Name], Containers: []string{"main"},
			Mapping: []v1.NodeAllocatableMappedResources{{Name: v1.ResourceCPU, Quantity: quantity("6")}},
		})
		if claim := e.claim(claimOf[bound.Name]); claim.Status.Allocation == nil {
			t.Errorf("%s of the bound %s is not allocated", claim.Name, bound.Name)
		}
		if claim := e.claim(claimOf[pending.Name]); claim.Status.Allocation != nil || len(claim.Status.ReservedFor) != 0 {
			t.Errorf("%s of the unschedulable %s is allocated (%s) or reserved (%v)", claim.Name, pending.Name, results(claim), claim.Status.ReservedFor)
		}
		e.waitForEvent(pending.Name, "FailedScheduling", "Insufficient cpu")
		if window != nil {
			// The case proves nothing unless the rejection fell inside the
			// window the hook held open.
			if !window.held.Load() {
				t.Errorf("no back-to-back pod went through DRAAllocator's PreBind hook: nothing held the first bind open")
			} else if first, closed := firstEventTime(e.schedulerEvents(pending.Name), "FailedScheduling"), time.Unix(0, window.closed.Load()); first.IsZero() || !first.Before(closed) {
				t.Errorf("%s was first rejected at %v, not before the first pod's bind window closed at %v", pending.Name, first, closed)
			}
		}
		t.Logf("%s bound, %s unschedulable: %s", bound.Name, pending.Name, scheduledMessage(pending))
		if pod := e.pod(pending.Name); pod.Spec.NodeName != "" {
			t.Errorf("%s was bound to %s after all", pod.Name, pod.Spec.NodeName)
		}
	})
}

// naNode is a Ready node with naNodeCPU and naNodeMemory allocatable that
// declares the DRANodeAllocatableResources feature, as a kubelet with the
// gate on does: the API server's NodeDeclaredFeatures admission refuses
// slices whose devices declare node-allocatable resources for a node that
// does not.
func naNode(name string) *v1.Node {
	return objects.MakeNode(name).Allocatable(naNodeCPU, naNodeMemory).
		DeclaresFeature(dranodeallocatableresources.DRANodeAllocatableResourcesFeature).Obj()
}

// naSlice is node's slice of driver with n devices dev-0 ... dev-(n-1),
// each declaring the node-allocatable resources res.
func naSlice(node, driver string, n int, res map[v1.ResourceName]resourceapi.NodeAllocatableResource) *resourceapi.ResourceSlice {
	w := objects.MakeSlice(node, driver, node)
	for i := range n {
		w.Device(fmt.Sprintf("dev-%d", i), nil)
	}
	slice := w.Obj()
	for i := range slice.Spec.Devices {
		slice.Spec.Devices[i].NodeAllocatableResources = res
	}
	return slice
}

// mapping makes a device count as multiplier of a node resource.
func mapping(multiplier string) resourceapi.NodeAllocatableResource {
	return resourceapi.NodeAllocatableResource{Mapping: &resourceapi.NodeAllocatableMapping{DeviceMultiplier: quantity(multiplier)}}
}

// coresSpec is a claim spec for cores of one device of driver's class.
func coresSpec(driver, cores string) resourceapi.ResourceClaimSpec {
	spec := objects.ClaimSpec("cores", driver, 1)
	spec.Devices.Requests[0].Exactly.Capacity = &resourceapi.CapacityRequirements{
		Requests: map[resourceapi.QualifiedName]resource.Quantity{"cores": resource.MustParse(cores)},
	}
	return spec
}

// naPod is a dra-scheduler pod with the pod claim "dev" for the
// ResourceClaim claim, used by its container "main" and by further
// containers named extra.
func naPod(name, namespace, claim string, extra ...string) *v1.Pod {
	pod := objects.MakePod(name, namespace).Scheduler(schedulerapp.Name).Claim("dev", claim)
	for _, c := range extra {
		pod.Container(c, "dev")
	}
	return pod.Obj()
}

// withRequests has the pod's first container request res.
func withRequests(pod *v1.Pod, res v1.ResourceList) *v1.Pod {
	pod.Spec.Containers[0].Resources.Requests = res
	return pod
}

func quantity(s string) *resource.Quantity { return ptr.To(resource.MustParse(s)) }

// checkNodeAllocatableStatuses compares the pod's
// status.nodeAllocatableResourceClaimStatuses with want, quantities by
// value.
func checkNodeAllocatableStatuses(t *testing.T, pod *v1.Pod, want ...v1.NodeAllocatableResourceClaimStatus) {
	t.Helper()
	if got := pod.Status.NodeAllocatableResourceClaimStatuses; !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("pod %s has nodeAllocatableResourceClaimStatuses %s, want %s", pod.Name, toJSON(got), toJSON(want))
	}
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// scheduledMessage is the message of the pod's PodScheduled condition.
func scheduledMessage(pod *v1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return c.Message
		}
	}
	return ""
}

// firstEventTime is the time of the earliest of events with the reason.
func firstEventTime(events []eventsv1.Event, reason string) time.Time {
	var first time.Time
	for _, ev := range events {
		if t := ev.EventTime.Time; ev.Reason == reason && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first
}

// reservedNames lists, sorted, the names of the claim's consumers.
func reservedNames(claim *resourceapi.ResourceClaim) []string {
	var names []string
	for _, r := range claim.Status.ReservedFor {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	return names
}

// waitUnschedulableWithEvent waits until the pod is pending with reason
// Unschedulable and a message containing text, and for a FailedScheduling
// event saying so too; it returns the condition's message.
func (e *env) waitUnschedulableWithEvent(name, text string) string {
	e.t.Helper()
	msg := e.waitUnschedulable(name, text)
	if pod := e.pod(name); !unschedulable(pod) {
		e.t.Errorf("pod %s's PodScheduled condition is %+v, want reason %s", name, pod.Status.Conditions, v1.PodReasonUnschedulable)
	}
	e.waitForEvent(name, "FailedScheduling", text)
	e.t.Logf("pod %s is unschedulable: %s", name, msg)
	return msg
}

// labelNode adds a label to a node: an event for the pods the DRA plugin
// rejected.
func (e *env) labelNode(name string) {
	e.t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"labels":{"touched":%q}}}`, time.Now().Format("150405.000000"))
	if _, err := e.client.CoreV1().Nodes().Patch(e.ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatalf("label node %s: %v", name, err)
	}
}
