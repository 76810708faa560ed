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

package draallocator

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// A pod's claims and their allocations, looked up as every feature needs
// them (PreFilter, preemption, the release wait, the gang plan): the
// claims the pod's spec names or generated, the claim behind its
// DRA-backed extended resources, and allocations recorded or in flight.

// podClaims returns the pod's claims in spec order. Its error means the
// pod cannot be scheduled yet: a claim is missing, being deleted or not
// owned by the pod.
func (pl *DRAAllocator) podClaims(pod *v1.Pod) ([]*resourceapi.ResourceClaim, error) {
	claims, _, err := pl.podClaimsAndEntries(pod)
	return claims, err
}

// podClaimsAndEntries is podClaims with, for each claim, the pod's entry
// (pod.Spec.ResourceClaims) it comes from.
func (pl *DRAAllocator) podClaimsAndEntries(pod *v1.Pod) ([]*resourceapi.ResourceClaim, []*v1.PodResourceClaim, error) {
	claims := make([]*resourceapi.ResourceClaim, 0, len(pod.Spec.ResourceClaims))
	entries := make([]*v1.PodResourceClaim, 0, len(pod.Spec.ResourceClaims))
	for i := range pod.Spec.ResourceClaims {
		entry := &pod.Spec.ResourceClaims[i]
		name, mustCheckOwner, err := resourceclaim.Name(pod, entry)
		if err != nil {
			return nil, nil, err
		}
		if name == nil {
			// No claim needed (a template that generated nothing).
			continue
		}
		claim, err := pl.draManager.ResourceClaims().Get(pod.Namespace, *name)
		if err != nil {
			return nil, nil, err
		}
		if claim.DeletionTimestamp != nil {
			return nil, nil, fmt.Errorf("resourceclaim %q is being deleted", claim.Name)
		}
		if mustCheckOwner {
			if err := resourceclaim.IsForPod(pod, claim, pl.gates.EnableDRAWorkloadResourceClaims); err != nil {
				return nil, nil, err
			}
		}
		claims = append(claims, claim)
		entries = append(entries, entry)
	}
	return claims, entries, nil
}

// availableOn is the node selector of an allocation's devices; nil when
// they are usable on every node.
func availableOn(alloc *resourceapi.AllocationResult) (*nodeaffinity.NodeSelector, error) {
	if alloc.NodeSelector == nil {
		return nil, nil
	}
	return nodeaffinity.NewNodeSelector(alloc.NodeSelector)
}

// claimsOf returns the pod's existing claims: those its spec names and its
// extended-resource claim (eviction.ClaimNames). Claims not (yet) in the
// cache are left out.
func (pl *DRAAllocator) claimsOf(pod *v1.Pod) []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	for _, name := range eviction.ClaimNames(pod) {
		if claim, err := pl.draManager.ResourceClaims().Get(pod.Namespace, name); err == nil {
			out = append(out, claim)
		}
	}
	return out
}

// claimLookup is eviction.Claims over the scheduler's DRA manager, with
// allocations in flight.
type claimLookup struct{ pl *DRAAllocator }

// Get returns the claim, nil if the DRA manager has none.
func (c claimLookup) Get(namespace, name string) *resourceapi.ResourceClaim {
	claim, err := c.pl.draManager.ResourceClaims().Get(namespace, name)
	if err != nil {
		return nil
	}
	return claim
}

// Allocation returns the claim's allocation, recorded or in flight.
func (c claimLookup) Allocation(claim *resourceapi.ResourceClaim) *resourceapi.AllocationResult {
	return c.pl.allocationOf(claim)
}

// allocationsOf returns the allocations of the pods' claims, each claim
// once: recorded, or in flight.
func (pl *DRAAllocator) allocationsOf(pods []*v1.Pod) []*resourceapi.AllocationResult {
	var out []*resourceapi.AllocationResult
	seen := sets.New[types.UID]()
	for _, pod := range pods {
		if !hasClaims(pod) {
			continue
		}
		for _, claim := range pl.claimsOf(pod) {
			if seen.Has(claim.UID) {
				continue
			}
			seen.Insert(claim.UID)
			if a := pl.allocationOf(claim); a != nil {
				out = append(out, a)
			}
		}
	}
	return out
}

// allocationOf returns the claim's allocation, recorded or in flight (a
// pod's binding cycle holds it in memory), or nil.
func (pl *DRAAllocator) allocationOf(claim *resourceapi.ResourceClaim) *resourceapi.AllocationResult {
	if a := claim.Status.Allocation; a != nil {
		return a
	}
	return pl.draManager.ResourceClaims().GetPendingAllocation(claim.UID)
}

// hasClaims reports whether the pod has resource claims (its own or one
// for DRA-backed extended resources).
func hasClaims(pod *v1.Pod) bool {
	return len(pod.Spec.ResourceClaims) > 0 || pod.Status.ExtendedResourceClaimStatus != nil
}

// assumedAllocation returns the claim's allocation in the assume cache,
// which has what the plugin wrote before the informer does; nil if the
// claim is not allocated there.
func (pl *DRAAllocator) assumedAllocation(claim *resourceapi.ResourceClaim) *resourceapi.AllocationResult {
	current, err := pl.draManager.ResourceClaims().Get(claim.Namespace, claim.Name)
	if err != nil || current.UID != claim.UID {
		return nil
	}
	return current.Status.Allocation
}

// podClaimNames are the pod's names of its claims' entries
// (spec.resourceClaims[].name), in order.
func podClaimNames(entries []*v1.PodResourceClaim) []string {
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	return names
}
