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

package inventorygen

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/dranodeallocatableresources"
)

// CPUMappedPerDevice is how much node cpu each device of CPUMapped is.
const CPUMappedPerDevice = "4"

// CPUMapped is SchedulerPerf's inventory whose devices are node cpu
// (DRANodeAllocatableResources): each device maps CPUMappedPerDevice cpu
// and costs 256Mi of memory per pod, and every node has 64 cpu and 512Gi
// allocatable and declares the feature (without which the API server
// refuses such slices). A pod of one device takes 4 of
// its node's cpu, so at most 16 such pods fit a node.
func CPUMapped(nodes int) Cluster {
	c := SchedulerPerf(nodes, 0)
	for _, node := range c.Nodes {
		node.Status.Allocatable = node.Status.Capacity.DeepCopy()
		node.Status.DeclaredFeatures = append(node.Status.DeclaredFeatures, dranodeallocatableresources.DRANodeAllocatableResourcesFeature)
	}
	cpu, overhead := quantity(CPUMappedPerDevice), quantity("256Mi")
	for _, slice := range c.Slices {
		for i := range slice.Spec.Devices {
			slice.Spec.Devices[i].NodeAllocatableResources = map[v1.ResourceName]resourceapi.NodeAllocatableResource{
				v1.ResourceCPU:    {Mapping: &resourceapi.NodeAllocatableMapping{DeviceMultiplier: &cpu}},
				v1.ResourceMemory: {Overhead: &resourceapi.NodeAllocatableOverhead{PerPod: &overhead}},
			}
		}
	}
	return c
}
