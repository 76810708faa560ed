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

package schedbench

import (
	"context"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// The device-plugin baseline (ConfigDevicePlugin, issue 40): what every
// GPU platform runs today without DRA. A device plugin makes kubelet
// advertise a node's devices as an extended resource in the node's
// status capacity and allocatable; a pod asks for a number of them in
// its container's limits (and requests, which must be equal), and stock
// kube-scheduler counts them like cpu (NodeResourcesFit) and preempts
// for them (DefaultPreemption). The configuration's nodes are the
// shape's, with Shape.DevicesPerNode units of DevicePluginResource added
// to their status, so that it has as many units as the other
// configurations have devices the claim can use; its pods are the
// same pods without claims, each asking for as many units as the others'
// claims ask for devices.

// DevicePluginResource is the extended resource of ConfigDevicePlugin.
// It is not nvidia.com/gpu on purpose: the shapes' DeviceClasses
// (inventorygen.NvidiaClasses) map nvidia.com/gpu through
// extendedResourceName, and kube-scheduler's DynamicResources
// (DRAExtendedResource) takes a mapped extended resource as DRA's: on a
// node that does not advertise it, it allocates it from the node's
// ResourceSlices with a claim of its own, which would turn the baseline
// into DRA. No DeviceClass maps this name, so only NodeResourcesFit and
// DefaultPreemption count it.
const DevicePluginResource v1.ResourceName = "dra-bench.example.com/device"

// withDevicePlugin returns cluster with units units of DevicePluginResource
// in every node's status capacity and allocatable (allocatable is what
// kube-scheduler reads; without one, the API server defaults it to the
// capacity, which is what a node without it here gets). The nodes are
// copies, as the cluster's objects are shared; nothing else changes.
func withDevicePlugin(cluster inventorygen.Cluster, units int) inventorygen.Cluster {
	out := cluster
	out.Nodes = make([]*v1.Node, len(cluster.Nodes))
	q := *resource.NewQuantity(int64(units), resource.DecimalSI)
	for i, node := range cluster.Nodes {
		node = node.DeepCopy()
		if node.Status.Allocatable == nil {
			node.Status.Allocatable = node.Status.Capacity.DeepCopy()
		}
		if node.Status.Capacity == nil {
			node.Status.Capacity = v1.ResourceList{}
		}
		node.Status.Capacity[DevicePluginResource] = q
		node.Status.Allocatable[DevicePluginResource] = q
		out.Nodes[i] = node
	}
	return out
}

// setDeviceUnits makes pod's container ask for units units of
// DevicePluginResource, in its limits and requests (for an extended
// resource they must be equal).
func setDeviceUnits(pod *v1.Pod, units int) {
	q := *resource.NewQuantity(int64(units), resource.DecimalSI)
	r := &pod.Spec.Containers[0].Resources
	if r.Limits == nil {
		r.Limits = v1.ResourceList{}
	}
	if r.Requests == nil {
		r.Requests = v1.ResourceList{}
	}
	r.Limits[DevicePluginResource] = q
	r.Requests[DevicePluginResource] = q
}

// deviceUnits is how many units of DevicePluginResource pod asks for.
func deviceUnits(pod *v1.Pod) int64 {
	var units int64
	for _, c := range pod.Spec.Containers {
		if q, ok := c.Resources.Requests[DevicePluginResource]; ok {
			units += q.Value()
		}
	}
	return units
}

// forConfig returns cluster as configuration c sees it: with
// device-plugin, every node advertises the shape's DevicesPerNode units of
// DevicePluginResource (withDevicePlugin); every other configuration sees
// cluster itself.
func (o *Options) forConfig(cluster inventorygen.Cluster, c Config) inventorygen.Cluster {
	if c == ConfigDevicePlugin {
		return withDevicePlugin(cluster, o.Shape.DevicesPerNode)
	}
	return cluster
}

// checkUnits lists the pods of namespace and counts the units of
// DevicePluginResource that bound pods (terminating ones included: they
// hold their units until deleted) ask for beyond perNode on their node,
// as DuplicateDevices counts devices held twice; example describes the
// first node over it.
func checkUnits(ctx context.Context, client kubernetes.Interface, namespace string, perNode int) (over int, example string, _ error) {
	pods, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, "", fmt.Errorf("list the pods in %s to count their %s: %w", namespace, DevicePluginResource, err)
	}
	used := map[string]int64{}
	for i := range pods.Items {
		if pod := &pods.Items[i]; pod.Spec.NodeName != "" {
			used[pod.Spec.NodeName] += deviceUnits(pod)
		}
	}
	nodes := slices.Sorted(maps.Keys(used))
	for _, node := range nodes {
		if u := used[node]; u > int64(perNode) {
			over += int(u) - perNode
			if example == "" {
				example = fmt.Sprintf("node %s has pods bound asking for %d of its %d %s", node, u, perNode, DevicePluginResource)
			}
		}
	}
	return over, example, nil
}
