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
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Features are the gates the pod's demand depends on besides
// DRANodeAllocatableResources itself.
type Features struct {
	// PodLevelResources: pod-level requests, where set, stand for the sum
	// of the containers', which must then leave room for DRA's part.
	PodLevelResources bool
}

// BudgetError says that the pod's own pod-level requests or limits cannot
// hold what its containers and devices take: no node fits it.
type BudgetError struct{ reason string }

func (e *BudgetError) Error() string { return e.reason }

// Demand returns what the pod takes of a node's allocatable resources
// once it carries statuses: its requests (containers, init containers and
// overhead, or pod-level requests where set) plus the statuses' mapped
// quantities and overheads — what the scheduler's accounting counts for a
// pod with that status. A *BudgetError when pod-level resources are too
// small for the DRA part.
func Demand(pod *v1.Pod, statuses []v1.NodeAllocatableResourceClaimStatus, f Features) (v1.ResourceList, error) {
	withStatuses := *pod // shallow: only the status field differs
	withStatuses.Status.NodeAllocatableResourceClaimStatuses = statuses
	demand := resourcehelper.PodRequests(&withStatuses, resourcehelper.PodResourcesOptions{
		SkipPodLevelResources:                    !f.PodLevelResources,
		UseDRANodeAllocatableResourceClaimStatus: true,
	})
	if f.PodLevelResources && pod.Spec.Resources != nil && len(statuses) > 0 {
		if reason := podLevelShortfall(&withStatuses); reason != "" {
			return nil, &BudgetError{reason: reason}
		}
	}
	return demand, nil
}

// podLevelShortfall checks a pod's pod-level budget against what its
// containers and devices take: the requests of all containers with DRA's
// part, the hugepages limits of all containers with DRA's, and each
// container's limit with the DRA overhead of that container. It returns
// the reason of the first shortfall, "" if none.
func podLevelShortfall(pod *v1.Pod) string {
	aggregate := resourcehelper.PodResourcesOptions{SkipPodLevelResources: true, UseDRANodeAllocatableResourceClaimStatus: true}
	if budget := pod.Spec.Resources.Requests; budget != nil {
		requests := resourcehelper.AggregateContainerRequests(pod, aggregate)
		for name, podLevel := range budget {
			if !resourcehelper.IsSupportedPodLevelResource(name) {
				continue
			}
			if q, ok := requests[name]; ok && q.Cmp(podLevel) > 0 {
				return fmt.Sprintf("pod level request for %s is insufficient to cover the aggregated container and node-allocatable DRA requests", name)
			}
		}
	}
	budget := pod.Spec.Resources.Limits
	if budget == nil {
		return ""
	}
	for name, q := range resourcehelper.AggregateContainerLimits(pod, aggregate) {
		if podLevel, ok := budget[name]; ok && isHugePages(name) && q.Cmp(podLevel) > 0 {
			return fmt.Sprintf("pod level limit for %s is insufficient to cover the aggregated container and node-allocatable DRA limits", name)
		}
	}
	for _, c := range pod.Spec.Containers {
		dra := resourcehelper.GetContainerDRAAllocations(pod, c.Name)
		for name, limit := range c.Resources.Limits {
			podLevel, ok := budget[name]
			if !ok || isHugePages(name) {
				continue
			}
			effective := limit.DeepCopy()
			effective.Add(dra[name])
			if effective.Cmp(podLevel) > 0 {
				return fmt.Sprintf("pod level limit for %s is insufficient to cover the limit and DRA overhead for container %s", name, c.Name)
			}
		}
	}
	return ""
}

func isHugePages(name v1.ResourceName) bool {
	return strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

// Delta is what statuses add to the pod's demand, as the scheduler's
// accounting counts it: the difference between the pod's demand with and
// without them (pod-level requests may absorb some or all of it).
func Delta(pod *v1.Pod, statuses []v1.NodeAllocatableResourceClaimStatus, f Features) Amounts {
	opts := resourcehelper.PodResourcesOptions{
		SkipPodLevelResources:                    !f.PodLevelResources,
		UseDRANodeAllocatableResourceClaimStatus: true,
	}
	withStatuses, without := *pod, *pod // shallow: only the status field differs
	withStatuses.Status.NodeAllocatableResourceClaimStatuses = statuses
	without.Status.NodeAllocatableResourceClaimStatuses = nil
	return AmountsOf(resourcehelper.PodRequests(&withStatuses, opts)).Minus(AmountsOf(resourcehelper.PodRequests(&without, opts)))
}

// Demander computes Demand for one pod on many nodes: the pod's own
// requests are summed once, and each node's statuses only add to them.
type Demander struct {
	pod *v1.Pod
	f   Features
	// own is the pod's demand without statuses; nil when pod-level
	// resources are in play (they override sums and are checked against
	// the statuses): then every call is Demand's.
	own v1.ResourceList
}

// NewDemander prepares Demand for the pod.
func NewDemander(pod *v1.Pod, f Features) *Demander {
	d := &Demander{pod: pod, f: f}
	if !f.PodLevelResources || pod.Spec.Resources == nil {
		// Without pod-level resources the statuses' quantities add to
		// the pod's requests, whatever its containers.
		d.own, _ = Demand(pod, nil, f)
	}
	return d
}

// Demand is Demand(pod, statuses, features).
func (d *Demander) Demand(statuses []v1.NodeAllocatableResourceClaimStatus) (v1.ResourceList, error) {
	if d.own == nil {
		return Demand(d.pod, statuses, d.f)
	}
	out := make(v1.ResourceList, len(d.own)+2)
	for name, q := range d.own {
		out[name] = q.DeepCopy()
	}
	for _, s := range statuses {
		for _, m := range s.Mapping {
			if m.Quantity != nil {
				add(out, m.Name, *m.Quantity)
			}
		}
		for _, o := range s.Overhead {
			if o.PerPod != nil {
				add(out, o.Name, *o.PerPod)
			}
			if o.PerContainer != nil && len(s.Containers) > 0 {
				perContainer := o.PerContainer.DeepCopy()
				perContainer.Mul(int64(len(s.Containers)))
				add(out, o.Name, perContainer)
			}
		}
	}
	return out, nil
}
