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
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// gangDeviceCase is a layout of one kind of device: nodes, the low pods
// that fill them, the gang's claim, and the victims the gang needs at
// least.
type gangDeviceCase struct {
	name string
	// setup creates the devices, fills them with low pods and returns
	// them, with the template (or extended resource, with ext) each gang
	// pod's claim comes from.
	setup   func(e *env, id string) (lows []string, gangClaim string)
	ext     bool
	gang    int
	victims int
	// mustGo are low pods that must be among the victims; victimsOf, if
	// set, the node every victim must come from (low pods are named
	// after their node).
	mustGo    []string
	victimsOf string
}

// TestAHighPriorityGangPreemptsForEveryKindOfDevice: a gang's preemption
// frees what single-pod preemption frees, for partitions (shared
// counters), consumable capacity and DRA-backed extended resources
// (issue 55, point 1), evicting the fewest pods.
func TestAHighPriorityGangPreemptsForEveryKindOfDevice(t *testing.T) {
	e := startPodGroupCluster(t, preemptionConfig)
	e.createPreemptionPriorities()
	e.startKubeletStandIn()
	root := e.t
	for i, tc := range []gangDeviceCase{
		{
			// Three GPUs of two halves each: p0 and p2 have both halves
			// held, p1 one. Two whole GPUs need p1's one victim and two
			// of p0's or p2's.
			name: "a gang of whole GPUs evicts the pods holding their partitions, the fewest",
			setup: func(e *env, id string) ([]string, string) {
				driver := id + ".example.com"
				e.create(objects.SizeClass(id+"-half", driver, "half"), objects.SizeClass(id+"-whole", driver, "whole"))
				e.create(objects.ClaimTemplate(id+"-half", e.ns, "gpu", id+"-half", 1), objects.ClaimTemplate(id+"-whole", e.ns, "gpu", id+"-whole", 1))
				var lows []string
				for n, held := range []int{2, 1, 2} {
					node := fmt.Sprintf("%s-p%d", id, n)
					e.create(objects.MakeNode(node).Obj())
					for _, s := range objects.HalvableGPUs(driver, node, 1) {
						e.create(s)
					}
					lows = append(lows, e.fill(node+"-low", "low", id+"-half", node, held)...)
				}
				return lows, id + "-whole"
			},
			gang: 2, victims: 3, mustGo: []string{"part-p1-low-0"},
		},
		{
			// Two NICs of 10G: c0 has 8G taken by two pods, c1 4G by one.
			// Two pods of 6G: one fits on c1 as it is, the other on c0
			// once one of its pods goes.
			name: "a gang of bandwidth shares evicts the one pod whose share it lacks",
			setup: func(e *env, id string) ([]string, string) {
				driver := id + ".example.com"
				e.create(objects.DeviceClass(driver, driver), bandwidthTemplate(e, id+"-4g", driver, "4G"), bandwidthTemplate(e, id+"-6g", driver, "6G"))
				var lows []string
				for n, held := range []int{2, 1} {
					node := fmt.Sprintf("%s-c%d", id, n)
					e.create(objects.MakeNode(node).Obj(), objects.MakeSlice(node, driver, node).Device("nic-0", map[string]string{"bandwidth": "10G"}).AllowMultipleAllocations().Obj())
					lows = append(lows, e.fill(node+"-low", "low", id+"-4g", node, held)...)
				}
				return lows, id + "-6g"
			},
			gang: 2, victims: 1, victimsOf: "bw-c0",
		},
		{
			// Two nodes of two GPUs behind an extended resource: x0 full,
			// x1 half full. A gang of two evicts one pod.
			name: "a gang asking for a DRA-backed extended resource evicts the one pod whose GPU it lacks",
			setup: func(e *env, id string) ([]string, string) {
				driver := id + ".example.com"
				class := objects.DeviceClass(driver, driver)
				class.Spec.ExtendedResourceName = ptr.To(driver + "/gpu")
				e.create(class)
				var lows []string
				for n, held := range []int{2, 1} {
					node := fmt.Sprintf("%s-x%d", id, n)
					e.create(gpuNode(node, driver, 2)...)
					for k := range held {
						pod := pinned(objects.MakePod(fmt.Sprintf("%s-low-%d", node, k), e.ns).Scheduler(schedulerapp.Name).PriorityClass("low").
							GracePeriod(preemptionGracePeriod).ExtendedResource(v1.ResourceName(driver+"/gpu"), 1).Obj(), node)
						e.create(pod)
						lows = append(lows, pod.Name)
					}
					e.waitBoundOn(node, lows[len(lows)-held:]...)
				}
				return lows, driver + "/gpu"
			},
			ext: true, gang: 2, victims: 1,
		},
	} {
		root.Run(tc.name, func(t *testing.T) {
			e.preemptionCase(t)
			id := []string{"part", "bw", "ext"}[i]
			lows, claim := tc.setup(e, id)
			var gang []string
			if tc.ext {
				gang = e.priorityGang(id+"-gang", "high", tc.gang, "", "", "", func(pod *v1.Pod) {
					pod.Spec.ResourceClaims = nil
					pod.Spec.Containers[0].Resources = v1.ResourceRequirements{
						Requests: v1.ResourceList{v1.ResourceName(claim): resource.MustParse("1")},
						Limits:   v1.ResourceList{v1.ResourceName(claim): resource.MustParse("1")},
					}
				})
			} else {
				gang = e.priorityGang(id+"-gang", "high", tc.gang, "", "gpu", claim, nil)
			}
			for _, name := range gang {
				e.waitScheduled(name)
			}
			victims := e.evicted(lows)
			if len(victims) != tc.victims {
				t.Fatalf("pods %v were evicted for the gang of %d, want %d of %v; events of %s: %s", victims, tc.gang, tc.victims, lows, gang[0], describeEvents(e.schedulerEvents(gang[0])))
			}
			for _, name := range tc.mustGo {
				if !slices.Contains(victims, name) {
					t.Errorf("pod %s is not among the victims %v", name, victims)
				}
			}
			for _, name := range victims {
				if tc.victimsOf != "" && !strings.HasPrefix(name, tc.victimsOf+"-") {
					t.Errorf("victim %s did not run on %s", name, tc.victimsOf)
				}
			}
			e.holdsFor(2*time.Second, "the other low pods to stay", func() string { return e.intact(without(lows, victims)...) })
			e.checkNoDeviceTwice()
			e.checkSharesWithin("bandwidth", resource.MustParse("10G"))
		})
	}
}

// bandwidthTemplate is the template name of claims for a share of bw of
// driver's devices' bandwidth.
func bandwidthTemplate(e *env, name, driver, bw string) *resourceapi.ResourceClaimTemplate {
	spec := objects.ClaimSpec("bw", driver, 1)
	spec.Devices.Requests[0].Exactly.Capacity = &resourceapi.CapacityRequirements{
		Requests: map[resourceapi.QualifiedName]resource.Quantity{"bandwidth": resource.MustParse(bw)},
	}
	return &resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns}, Spec: resourceapi.ResourceClaimTemplateSpec{Spec: spec}}
}

// checkSharesWithin fails the test where the shares of one device consume
// more of capacity name than it has.
func (e *env) checkSharesWithin(name resourceapi.QualifiedName, capacity resource.Quantity) {
	e.t.Helper()
	list, err := e.client.ResourceV1().ResourceClaims(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatalf("list claims: %v", err)
	}
	used := map[string]*resource.Quantity{}
	for _, c := range list.Items {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			q, ok := r.ConsumedCapacity[name]
			if !ok {
				continue
			}
			key := r.Driver + "/" + r.Pool + "/" + r.Device
			if used[key] == nil {
				used[key] = &resource.Quantity{}
			}
			used[key].Add(q)
		}
	}
	for device, q := range used {
		if q.Cmp(capacity) > 0 {
			e.t.Errorf("device %s: its shares consume %s of %s, more than its %s", device, q, name, &capacity)
		}
	}
}
