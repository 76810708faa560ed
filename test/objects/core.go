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
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// NodeWrapper builds a Node.
type NodeWrapper struct{ v1.Node }

// MakeNode returns a Ready node with room for 110 pods, 8 CPUs and 32Gi.
func MakeNode(name string) *NodeWrapper {
	return &NodeWrapper{v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{
			Capacity:    resources("110", "8", "32Gi"),
			Allocatable: resources("110", "8", "32Gi"),
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}}
}

func resources(pods, cpu, memory string) v1.ResourceList {
	return v1.ResourceList{
		v1.ResourcePods:   resource.MustParse(pods),
		v1.ResourceCPU:    resource.MustParse(cpu),
		v1.ResourceMemory: resource.MustParse(memory),
	}
}

// Label sets a label.
func (w *NodeWrapper) Label(key, value string) *NodeWrapper {
	w.Labels[key] = value
	return w
}

// Obj returns the node.
func (w *NodeWrapper) Obj() *v1.Node { return &w.Node }

// PodWrapper builds a Pod.
type PodWrapper struct{ v1.Pod }

// MakePod returns a pod with one pause container.
func MakePod(name, namespace string) *PodWrapper {
	return &PodWrapper{v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: v1.PodSpec{
			Containers: []v1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}},
			// Tests delete pods that no kubelet runs: do not wait for one.
			TerminationGracePeriodSeconds: ptr.To[int64](0),
		},
	}}
}

// Scheduler sets spec.schedulerName.
func (w *PodWrapper) Scheduler(name string) *PodWrapper {
	w.Spec.SchedulerName = name
	return w
}

// ClaimFromTemplate adds a pod claim generated from a ResourceClaimTemplate
// and lets the first container use it.
func (w *PodWrapper) ClaimFromTemplate(name, template string) *PodWrapper {
	w.Spec.ResourceClaims = append(w.Spec.ResourceClaims, v1.PodResourceClaim{Name: name, ResourceClaimTemplateName: &template})
	w.Spec.Containers[0].Resources.Claims = append(w.Spec.Containers[0].Resources.Claims, v1.ResourceClaim{Name: name})
	return w
}

// Claim adds a pod claim that references an existing ResourceClaim and lets
// the first container use it.
func (w *PodWrapper) Claim(name, claim string) *PodWrapper {
	w.Spec.ResourceClaims = append(w.Spec.ResourceClaims, v1.PodResourceClaim{Name: name, ResourceClaimName: &claim})
	w.Spec.Containers[0].Resources.Claims = append(w.Spec.Containers[0].Resources.Claims, v1.ResourceClaim{Name: name})
	return w
}

// ExtendedResource has the first container ask for count of an extended
// resource, as users write it: in limits (the API server copies extended
// resources' limits into requests).
func (w *PodWrapper) ExtendedResource(name v1.ResourceName, count int64) *PodWrapper {
	limitExtendedResource(&w.Spec.Containers[0], name, count)
	return w
}

// InitContainerExtendedResource adds an init container that asks for count
// of an extended resource.
func (w *PodWrapper) InitContainerExtendedResource(name v1.ResourceName, count int64) *PodWrapper {
	c := v1.Container{Name: fmt.Sprintf("init-%d", len(w.Spec.InitContainers)), Image: w.Spec.Containers[0].Image}
	limitExtendedResource(&c, name, count)
	w.Spec.InitContainers = append(w.Spec.InitContainers, c)
	return w
}

func limitExtendedResource(c *v1.Container, name v1.ResourceName, count int64) {
	if c.Resources.Limits == nil {
		c.Resources.Limits = v1.ResourceList{}
	}
	c.Resources.Limits[name] = *resource.NewQuantity(count, resource.DecimalSI)
}

// Obj returns the pod.
func (w *PodWrapper) Obj() *v1.Pod { return &w.Pod }

// NodeSelectorFor selects the node by name, as an allocation of a device
// local to it does.
func NodeSelectorFor(node string) *v1.NodeSelector {
	return &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}},
	}}}
}
