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
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// BenchmarkDemand measures one node's demand of a pod with three
// containers and an init container, whose devices map cpu and cost memory:
// what Filter computes per feasible node.
func BenchmarkDemand(b *testing.B) {
	pod := withInit(podWith([2]string{"1", "1Gi"}, [2]string{"500m", "256Mi"}, [2]string{"", "64Mi"}), "2", "512Mi")
	statuses := []v1.NodeAllocatableResourceClaimStatus{cpuStatus("4", "c0"), memoryOverhead("1Gi", "256Mi", "c0", "c1")}
	for name, demand := range map[string]func() (v1.ResourceList, error){
		"Demand":   func() (v1.ResourceList, error) { return Demand(pod, statuses, Features{}) },
		"Demander": demanderFunc(pod, statuses),
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := demand(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// demanderFunc is a Demander's Demand for the statuses, prepared once.
func demanderFunc(pod *v1.Pod, statuses []v1.NodeAllocatableResourceClaimStatus) func() (v1.ResourceList, error) {
	d := NewDemander(pod, Features{})
	return func() (v1.ResourceList, error) { return d.Demand(statuses) }
}

// BenchmarkStatuses measures one node's statuses for a pod with one claim
// of two devices, each mapping cpu and costing memory per pod: what Filter
// computes per feasible node.
func BenchmarkStatuses(b *testing.B) {
	dev := func(name string) resourceapi.Device {
		return device(name, map[v1.ResourceName]resourceapi.NodeAllocatableResource{
			v1.ResourceCPU:    multipliedPerDevice("4"),
			v1.ResourceMemory: {Overhead: &resourceapi.NodeAllocatableOverhead{PerPod: ptr.To(resource.MustParse("256Mi"))}},
		})
	}
	devices := lookup(dev("cpu-0"), dev("cpu-1"))
	pod := podWith([2]string{"1", ""}, [2]string{"", ""})
	pod.Spec.Containers[0].Resources.Claims = []v1.ResourceClaim{{Name: "cpus"}}
	claims := []Claim{claim("cpus", allocated(nil, "cpu-0", "cpu-1"))}
	podClaims := map[string]types.UID{"cpus": claims[0].Ref.UID}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Statuses(pod, claims, podClaims, devices); err != nil {
			b.Fatal(err)
		}
	}
}
