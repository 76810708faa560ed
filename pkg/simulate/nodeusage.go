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

package simulate

import (
	v1 "k8s.io/api/core/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
)

// NodeResourcesFit's part of a simulation: what pods take of a node's
// allocatable pods, cpu, memory, ephemeral storage and hugepages, as the
// scheduler sums their requests (with DRANodeAllocatableResources, the
// node resources their devices take, from their status).

// nodeUsage is what pods take of one node.
type nodeUsage struct {
	requested nodeallocatable.Amounts
	pods      int64
}

// plus returns u with one more pod that takes demand.
func (u nodeUsage) plus(demand nodeallocatable.Amounts) nodeUsage {
	return nodeUsage{requested: u.requested.Plus(demand), pods: u.pods + 1}
}

// minus returns u with one pod that takes demand less.
func (u nodeUsage) minus(demand nodeallocatable.Amounts) nodeUsage {
	return nodeUsage{requested: u.requested.Minus(demand), pods: u.pods - 1}
}

// usageOf sums what the bound pods take of each node.
func usageOf(bound map[string][]*v1.Pod, f nodeallocatable.Features) map[string]nodeUsage {
	out := make(map[string]nodeUsage, len(bound))
	for node, pods := range bound {
		var u nodeUsage
		for _, p := range pods {
			u = u.plus(podDemand(p, p.Status.NodeAllocatableResourceClaimStatuses, f))
		}
		out[node] = u
	}
	return out
}

// podDemand is what a pod takes of its node: its requests, with the node
// resources its devices take (statuses).
func podDemand(pod *v1.Pod, statuses []v1.NodeAllocatableResourceClaimStatus, f nodeallocatable.Features) nodeallocatable.Amounts {
	list, err := nodeallocatable.Demand(pod, statuses, f)
	if err != nil {
		// A pod whose pod-level requests cannot hold its devices was
		// not scheduled by these rules; count its own requests.
		list, _ = nodeallocatable.Demand(pod, nil, f)
	}
	return nodeallocatable.AmountsOf(list)
}

// nodeResourcesReasons are NodeResourcesFit's reasons for node to refuse
// one more pod that takes demand, given what used takes: "Too many pods",
// then "Insufficient cpu" and the others; none when it fits.
func nodeResourcesReasons(node *v1.Node, used nodeUsage, demand nodeallocatable.Amounts) []string {
	var reasons []string
	if pods := node.Status.Allocatable[v1.ResourcePods]; used.pods+1 > pods.Value() {
		reasons = append(reasons, "Too many pods")
	}
	more, _ := nodeallocatable.Shortfall(demand, nodeallocatable.AmountsOf(node.Status.Allocatable), used.requested)
	return append(reasons, more...)
}
