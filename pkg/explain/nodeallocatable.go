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

package explain

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
)

// Node-allocatable resources (DRANodeAllocatableResources): devices that
// are node cpu, memory or hugepages, or cost some. With the gate on, a
// report lists for each candidate what its devices would take of the node
// besides the pod's own requests, and a claim whose mapped devices another
// pod holds is a problem, as the scheduler refuses to share it.

// noteNodeAllocatable is the caveat of reports that list them.
const noteNodeAllocatable = "with DRANodeAllocatableResources, candidates list the node cpu, memory and hugepages their devices would take on top of the pod's own requests; whether the node has that much free is not checked"

// nodeResources describes what the pod's devices would take of the node's
// resources, its allocated claims' and the results for those to allocate
// (in q.claims order): "cpu 4", "memory 256Mi". Nil when nothing.
func (c *Cluster) nodeResources(q question, node *v1.Node, results []resourceapi.AllocationResult) ([]string, error) {
	if !c.settings.NodeAllocatable {
		return nil, nil
	}
	devices := c.snap.Slices().On(node)
	podClaims := make(map[string]types.UID, len(q.all))
	var claims []nodeallocatable.Claim
	next := 0 // the next result, for the next claim to allocate
	for _, cl := range q.all {
		if cl.Object == nil {
			continue
		}
		// A claim not created yet has no UID: name it for the lookup.
		uid := cl.Object.UID
		if uid == "" {
			uid = types.UID("pod-claim/" + cl.PodClaim)
		}
		podClaims[cl.PodClaim] = uid
		alloc := cl.Object.Status.Allocation
		if cl.ToAllocate() {
			if next >= len(results) {
				return nil, fmt.Errorf("node %s: %d results for more claims", node.Name, len(results))
			}
			alloc, next = &results[next], next+1
		}
		if nodeallocatable.DeclaresNodeResources(alloc, devices) {
			claims = append(claims, nodeallocatable.Claim{Ref: v1.ObjectReference{Namespace: cl.Object.Namespace, Name: cl.Name, UID: uid}, Allocation: alloc})
		}
	}
	if len(claims) == 0 {
		return nil, nil
	}
	statuses, err := nodeallocatable.Statuses(q.nodeCheck.Pod(), claims, podClaims, devices)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", node.Name, err)
	}
	return describeAmounts(nodeallocatable.Delta(q.nodeCheck.Pod(), statuses, nodeallocatable.Features{})), nil
}

// describeAmounts lists the non-zero amounts, cpu, memory, ephemeral
// storage and hugepages in that order.
func describeAmounts(a nodeallocatable.Amounts) []string {
	var out []string
	if a.MilliCPU != 0 {
		out = append(out, "cpu "+resource.NewMilliQuantity(a.MilliCPU, resource.DecimalSI).String())
	}
	if a.Memory != 0 {
		out = append(out, "memory "+resource.NewQuantity(a.Memory, resource.BinarySI).String())
	}
	if a.EphemeralStorage != 0 {
		out = append(out, "ephemeral-storage "+resource.NewQuantity(a.EphemeralStorage, resource.BinarySI).String())
	}
	for _, name := range slices.Sorted(maps.Keys(a.HugePages)) {
		if v := a.HugePages[name]; v != 0 {
			out = append(out, string(name)+" "+resource.NewQuantity(v, resource.BinarySI).String())
		}
	}
	return out
}
