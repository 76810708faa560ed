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

package nodeallocatable

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// podWith builds a pod with one container per entry of requests (named
// c0, c1, ...), each asking for its cpu and memory ("" for none).
func podWith(requests ...[2]string) *v1.Pod {
	pod := &v1.Pod{}
	for i, r := range requests {
		c := v1.Container{Name: "c" + string(rune('0'+i)), Resources: v1.ResourceRequirements{Requests: list(r[0], r[1])}}
		pod.Spec.Containers = append(pod.Spec.Containers, c)
	}
	return pod
}

// list is a resource list of cpu and memory ("" for none).
func list(cpu, memory string) v1.ResourceList {
	l := v1.ResourceList{}
	if cpu != "" {
		l[v1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		l[v1.ResourceMemory] = resource.MustParse(memory)
	}
	return l
}

// podLevel gives the pod pod-level requests and limits (nil for none).
func podLevel(pod *v1.Pod, requests, limits v1.ResourceList) *v1.Pod {
	pod.Spec.Resources = &v1.ResourceRequirements{Requests: requests, Limits: limits}
	return pod
}

// withInit adds an init container asking for cpu and memory.
func withInit(pod *v1.Pod, cpu, memory string) *v1.Pod {
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: "init", Resources: v1.ResourceRequirements{Requests: list(cpu, memory)}})
	return pod
}

// withOverhead sets the pod's overhead (its RuntimeClass's).
func withOverhead(pod *v1.Pod, cpu, memory string) *v1.Pod {
	pod.Spec.Overhead = list(cpu, memory)
	return pod
}

// withLimits sets a container's limits.
func withLimits(pod *v1.Pod, container int, limits v1.ResourceList) *v1.Pod {
	pod.Spec.Containers[container].Resources.Limits = limits
	return pod
}

// cpuStatus is a claim status mapping cpu, used by containers.
func cpuStatus(cpu string, containers ...string) v1.NodeAllocatableResourceClaimStatus {
	return v1.NodeAllocatableResourceClaimStatus{ResourceClaimName: "cpus", Containers: containers,
		Mapping: []v1.NodeAllocatableMappedResources{{Name: v1.ResourceCPU, Quantity: ptr.To(resource.MustParse(cpu))}}}
}

// memoryOverhead is a claim status with a memory overhead, used by
// containers.
func memoryOverhead(perPod, perContainer string, containers ...string) v1.NodeAllocatableResourceClaimStatus {
	o := v1.NodeAllocatableOverheadResources{Name: v1.ResourceMemory}
	if perPod != "" {
		o.PerPod = ptr.To(resource.MustParse(perPod))
	}
	if perContainer != "" {
		o.PerContainer = ptr.To(resource.MustParse(perContainer))
	}
	return v1.NodeAllocatableResourceClaimStatus{ResourceClaimName: "nic", Containers: containers, Overhead: []v1.NodeAllocatableOverheadResources{o}}
}

func TestAPodsDemandIsItsRequestsPlusWhatItsDevicesTake(t *testing.T) {
	podLevelOn := Features{PodLevelResources: true}
	for _, tc := range []struct {
		name     string
		pod      *v1.Pod
		statuses []v1.NodeAllocatableResourceClaimStatus
		features Features
		want     Amounts
		// wantBudget is the reason of a *BudgetError.
		wantBudget string
	}{
		{"without statuses it is the containers' requests", podWith([2]string{"1", "1Gi"}, [2]string{"500m", ""}), nil, Features{},
			Amounts{MilliCPU: 1500, Memory: 1 << 30}, ""},
		{"a mapped quantity is added once", podWith([2]string{"1", ""}), []v1.NodeAllocatableResourceClaimStatus{cpuStatus("4", "c0")}, Features{},
			Amounts{MilliCPU: 5000}, ""},
		{"overhead counts per pod once and per container for each container using the claim", podWith([2]string{"", "1Gi"}, [2]string{"", ""}, [2]string{"", ""}),
			[]v1.NodeAllocatableResourceClaimStatus{memoryOverhead("1Gi", "512Mi", "c0", "c1")}, Features{},
			Amounts{Memory: 3 << 30}, ""},
		{"init containers count by their peak, the pod's overhead on top, and the devices' quantities add to both",
			withOverhead(withInit(podWith([2]string{"1", "1Gi"}), "3", "512Mi"), "250m", "128Mi"),
			[]v1.NodeAllocatableResourceClaimStatus{cpuStatus("4", "c0"), memoryOverhead("1Gi", "256Mi", "c0")}, Features{PodLevelResources: true},
			Amounts{MilliCPU: 3000 + 250 + 4000, Memory: 1<<30 + 128<<20 + 1<<30 + 256<<20}, ""},
		{"pod-level requests stand for the containers' and must hold the devices' too", podLevel(podWith([2]string{"1", ""}), list("6", ""), nil),
			[]v1.NodeAllocatableResourceClaimStatus{cpuStatus("4", "c0")}, podLevelOn, Amounts{MilliCPU: 6000}, ""},
		{"pod-level requests are ignored with PodLevelResources off", podLevel(podWith([2]string{"1", ""}), list("6", ""), nil),
			[]v1.NodeAllocatableResourceClaimStatus{cpuStatus("4", "c0")}, Features{}, Amounts{MilliCPU: 5000}, ""},
		{"pod-level requests too small for containers and devices reject the pod", podLevel(podWith([2]string{"1", ""}), list("4", ""), nil),
			[]v1.NodeAllocatableResourceClaimStatus{cpuStatus("4", "c0")}, podLevelOn, Amounts{},
			"pod level request for cpu is insufficient to cover the aggregated container and node-allocatable DRA requests"},
		{"a container limit with its devices' share above the pod-level limit rejects the pod",
			withLimits(podLevel(podWith([2]string{"1", ""}), list("8", ""), list("5", "")), 0, list("2", "")),
			[]v1.NodeAllocatableResourceClaimStatus{cpuStatus("4", "c0")}, podLevelOn, Amounts{},
			"pod level limit for cpu is insufficient to cover the limit and DRA overhead for container c0"},
		{"hugepages limits of all containers with the devices' above the pod-level limit reject the pod",
			podLevel(podWith([2]string{"1", ""}), list("8", ""), v1.ResourceList{"hugepages-2Mi": resource.MustParse("2Mi")}),
			[]v1.NodeAllocatableResourceClaimStatus{{ResourceClaimName: "hp", Containers: []string{"c0"},
				Mapping: []v1.NodeAllocatableMappedResources{{Name: "hugepages-2Mi", Quantity: ptr.To(resource.MustParse("4Mi"))}}}}, podLevelOn, Amounts{},
			"pod level limit for hugepages-2Mi is insufficient to cover the aggregated container and node-allocatable DRA limits"},
	} {
		// One table for both: a Demander must answer as Demand does.
		for impl, demand := range map[string]func() (v1.ResourceList, error){
			"Demand":   func() (v1.ResourceList, error) { return Demand(tc.pod, tc.statuses, tc.features) },
			"Demander": func() (v1.ResourceList, error) { return NewDemander(tc.pod, tc.features).Demand(tc.statuses) },
		} {
			t.Run(impl+": "+tc.name, func(t *testing.T) {
				demand, err := demand()
				if tc.wantBudget != "" {
					var budget *BudgetError
					if !errors.As(err, &budget) || budget.Error() != tc.wantBudget {
						t.Fatalf("error %v, want the budget error %q", err, tc.wantBudget)
					}
					return
				}
				if err != nil {
					t.Fatalf("demand: %v", err)
				}
				if got := AmountsOf(demand); !cmp.Equal(got, tc.want) {
					t.Errorf("demand %+v, want %+v", got, tc.want)
				}
			})
		}
	}
}

func TestTheDeltaIsWhatTheStatusesAddToThePodsRequests(t *testing.T) {
	statuses := []v1.NodeAllocatableResourceClaimStatus{cpuStatus("4", "c0"), memoryOverhead("1Gi", "", "c0")}
	if got, want := Delta(podWith([2]string{"1", "1Gi"}), statuses, Features{}), (Amounts{MilliCPU: 4000, Memory: 1 << 30}); !cmp.Equal(got, want) {
		t.Errorf("Delta = %+v, want %+v", got, want)
	}
	// Pod-level requests already hold what the devices take.
	pod := podLevel(podWith([2]string{"1", ""}), list("6", "2Gi"), nil)
	if got := Delta(pod, statuses, Features{PodLevelResources: true}); !got.IsZero() {
		t.Errorf("Delta under pod-level requests = %+v, want zero", got)
	}
}

func TestShortfallGivesTheSchedulersReasonsForEveryResourceThatDoesNotFit(t *testing.T) {
	node := Amounts{MilliCPU: 8000, Memory: 8 << 30, EphemeralStorage: 100 << 30, HugePages: map[v1.ResourceName]int64{"hugepages-2Mi": 8 << 20}}
	for _, tc := range []struct {
		name              string
		demand, requested Amounts
		want              []string
		wantUnresolvable  bool
	}{
		{"a demand within what is free fits", Amounts{MilliCPU: 4000, Memory: 4 << 30}, Amounts{MilliCPU: 4000, Memory: 4 << 30}, nil, false},
		{"cpu beyond what is free is insufficient, and resolvable by eviction", Amounts{MilliCPU: 5000}, Amounts{MilliCPU: 4000}, []string{"Insufficient cpu"}, false},
		{"several resources are named in a fixed order", Amounts{MilliCPU: 5000, Memory: 5 << 30, EphemeralStorage: 1, HugePages: map[v1.ResourceName]int64{"hugepages-2Mi": 6 << 20}},
			Amounts{MilliCPU: 4000, Memory: 4 << 30, EphemeralStorage: 100 << 30, HugePages: map[v1.ResourceName]int64{"hugepages-2Mi": 4 << 20}},
			[]string{"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage", "Insufficient hugepages-2Mi"}, false},
		{"a demand beyond the node's allocatable is unresolvable", Amounts{Memory: 9 << 30}, Amounts{}, []string{"Insufficient memory"}, true},
		{"a zero demand fits an overcommitted node", Amounts{}, Amounts{MilliCPU: 9000}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, unresolvable := Shortfall(tc.demand, node, tc.requested)
			if !cmp.Equal(got, tc.want) || unresolvable != tc.wantUnresolvable {
				t.Errorf("Shortfall = %q, unresolvable %v; want %q, %v", got, unresolvable, tc.want, tc.wantUnresolvable)
			}
		})
	}
}

func TestAmountsAddUpAndSubtract(t *testing.T) {
	a := Amounts{MilliCPU: 1000, Memory: 2, HugePages: map[v1.ResourceName]int64{"hugepages-1Gi": 1 << 30}}
	b := Amounts{MilliCPU: 500, EphemeralStorage: 3, HugePages: map[v1.ResourceName]int64{"hugepages-2Mi": 2 << 20}}
	sum := a.Plus(b)
	want := Amounts{MilliCPU: 1500, Memory: 2, EphemeralStorage: 3, HugePages: map[v1.ResourceName]int64{"hugepages-1Gi": 1 << 30, "hugepages-2Mi": 2 << 20}}
	if !cmp.Equal(sum, want) {
		t.Errorf("a+b = %+v, want %+v", sum, want)
	}
	if back := sum.Minus(b); !back.Minus(a).IsZero() {
		t.Errorf("a+b-b = %+v, want a = %+v", back, a)
	}
	if _, ok := a.HugePages["hugepages-2Mi"]; ok {
		t.Error("Plus changed its receiver's hugepages")
	}
	if !(Amounts{}).IsZero() || a.IsZero() {
		t.Error("IsZero is wrong")
	}
}
