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

package objects

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// MapsNodeResource makes the device added last be perDevice of a node
// resource ("cpu", "memory") for each allocation of it
// (DRANodeAllocatableResources' deviceMultiplier).
func (w *SliceWrapper) MapsNodeResource(name v1.ResourceName, perDevice string) *SliceWrapper {
	q := resource.MustParse(perDevice)
	w.setNodeResource(name, func(r *resourceapi.NodeAllocatableResource) {
		r.Mapping = &resourceapi.NodeAllocatableMapping{DeviceMultiplier: &q}
	})
	return w
}

// NodeOverhead gives the device added last an overhead on a node resource,
// per pod and per container using it (either may be "").
func (w *SliceWrapper) NodeOverhead(name v1.ResourceName, perPod, perContainer string) *SliceWrapper {
	o := &resourceapi.NodeAllocatableOverhead{}
	if perPod != "" {
		q := resource.MustParse(perPod)
		o.PerPod = &q
	}
	if perContainer != "" {
		q := resource.MustParse(perContainer)
		o.PerContainer = &q
	}
	w.setNodeResource(name, func(r *resourceapi.NodeAllocatableResource) { r.Overhead = o })
	return w
}

// setNodeResource changes the device added last's entry for a node
// resource.
func (w *SliceWrapper) setNodeResource(name v1.ResourceName, set func(*resourceapi.NodeAllocatableResource)) {
	d := w.lastDevice()
	if d.NodeAllocatableResources == nil {
		d.NodeAllocatableResources = map[v1.ResourceName]resourceapi.NodeAllocatableResource{}
	}
	r := d.NodeAllocatableResources[name]
	set(&r)
	d.NodeAllocatableResources[name] = r
}

// Allocatable sets the node's capacity and allocatable cpu and memory.
func (w *NodeWrapper) Allocatable(cpu, memory string) *NodeWrapper {
	w.Status.Capacity = resources("110", cpu, memory)
	w.Status.Allocatable = resources("110", cpu, memory)
	return w
}

// DeclaresFeature adds a feature to the node's status.declaredFeatures,
// as its kubelet would (e.g. DRANodeAllocatableResources, without which
// the API server refuses slices whose devices are node resources).
func (w *NodeWrapper) DeclaresFeature(feature string) *NodeWrapper {
	w.Status.DeclaredFeatures = append(w.Status.DeclaredFeatures, feature)
	return w
}

// Requests sets the first container's cpu and memory requests ("" for
// none).
func (w *PodWrapper) Requests(cpu, memory string) *PodWrapper {
	requests := v1.ResourceList{}
	if cpu != "" {
		requests[v1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		requests[v1.ResourceMemory] = resource.MustParse(memory)
	}
	w.Spec.Containers[0].Resources.Requests = requests
	return w
}

// Container adds a container using the named pod claims.
func (w *PodWrapper) Container(name string, claims ...string) *PodWrapper {
	c := v1.Container{Name: name, Image: w.Spec.Containers[0].Image}
	for _, claim := range claims {
		c.Resources.Claims = append(c.Resources.Claims, v1.ResourceClaim{Name: claim})
	}
	w.Spec.Containers = append(w.Spec.Containers, c)
	return w
}
