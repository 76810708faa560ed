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
	"sync"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
)

// stateData is one pod's scheduling cycle, written in PreFilter. The
// framework keeps a pointer to it in CycleState; Clone returns the same
// pointer, so later phases see each other's writes.
type stateData struct {
	// ext is the pod's claim for extended resources DRA may provide (nil
	// when there are none).
	ext *extendedState

	// claims are the pod's claims in pod.Spec.ResourceClaims order, as
	// read at PreFilter; PreBind replaces entries it updated.
	claims []*resourceapi.ResourceClaim
	// availableOnNodes is the node selector of claims[i]'s existing
	// allocation (nil: unallocated or usable on every node).
	availableOnNodes []*nodeaffinity.NodeSelector
	// allocation is set by Reserve for claims the plugin allocates, and
	// by PreFilter for claims that share the pending allocation of an
	// earlier pod of the pod-group cycle (reused).
	allocation []*resourceapi.AllocationResult
	// reused indexes those shared claims: they are not allocated again.
	reused []int
	// consumers is whom PreBind reserves claims[i] for: the pod, or its
	// PodGroup (DRAWorkloadResourceClaims). Nil means the pod for all.
	consumers []resourceapi.ResourceClaimConsumerReference
	// inFlight are the claims whose allocation Reserve marked in flight
	// (the extended-resource claim under its placeholder UID), until
	// Unreserve releases them.
	inFlight []*resourceapi.ResourceClaim

	// toAllocate indexes the claims without an allocation, and
	// toAllocateClaims holds those claims (one slice for the whole cycle,
	// which lets the allocator reuse its per-pod preparation).
	toAllocate       []int
	toAllocateClaims []*resourceapi.ResourceClaim
	alloc            *allocator.Allocator
	// gang is the pod's place in its pod group's plan (gangplan.go); nil
	// outside a planned pod-group cycle.
	gang *gangMember

	// na is the pod's node-allocatable accounting; nil unless
	// DRANodeAllocatableResources is on and a device declares node
	// resources.
	na *nodeAllocatableState
	// ledger is the cycle's view of assumed pods' node-allocatable
	// resources the node accounting misses (nil when there are none), and
	// ownRequest the pod's requests to check against it.
	ledger     ledgerView
	ownRequest nodeallocatable.Amounts

	mu sync.Mutex
	// nodeStatuses holds the pod's node-allocatable statuses per node that
	// passed Filter, when its devices take node resources there (nil
	// until one does).
	nodeStatuses map[string][]v1.NodeAllocatableResourceClaimStatus
	// statusPatched says that PreBind sent them to the API server.
	statusPatched bool
	// unavailable holds indexes of allocated claims that some node could
	// not use (PostFilter may deallocate one of them).
	unavailable sets.Set[int]
	// results holds the devices found per node name, in toAllocate order
	// followed by the extended-resource claim's, for the nodes Score or
	// Reserve asked about.
	results map[string][]resourceapi.AllocationResult
}

// Clone returns the same state: the cycle's phases share it.
func (s *stateData) Clone() fwk.StateData { return s }

// empty reports whether the plugin has nothing to do for the pod.
func (s *stateData) empty() bool { return len(s.claims) == 0 && s.ext == nil }

// consumer is whom PreBind reserves claims[i] for.
func (s *stateData) consumer(pod *v1.Pod, i int) resourceapi.ResourceClaimConsumerReference {
	if s.consumers == nil {
		return podConsumer(pod)
	}
	return s.consumers[i]
}

// takeInFlight returns the claims marked in flight and forgets them.
func (s *stateData) takeInFlight() []*resourceapi.ResourceClaim {
	s.mu.Lock()
	defer s.mu.Unlock()
	claims := s.inFlight
	s.inFlight = nil
	return claims
}

// unavailableAllocated returns the allocated claims that some node could
// not use, the candidates for deallocation. A shared pending allocation
// (reused) that some node could not use is not among them: nothing is
// written to free.
func (s *stateData) unavailableAllocated() []*resourceapi.ResourceClaim {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*resourceapi.ResourceClaim
	for i := range s.unavailable {
		if claim := s.claims[i]; claim.Status.Allocation != nil {
			out = append(out, claim)
		}
	}
	return out
}

// cachedResults returns the devices found for a node, if searched already.
func (s *stateData) cachedResults(node string) ([]resourceapi.AllocationResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.results[node]
	return r, ok
}

func getState(cs fwk.CycleState) (*stateData, error) {
	return stateAs[*stateData](cs.Read(stateKey))
}

// stateAs is the plugin's entry of a cycle state, as read, as a T.
func stateAs[T fwk.StateData](v fwk.StateData, err error) (T, error) {
	var s T
	if err != nil {
		return s, err
	}
	s, ok := v.(T)
	if !ok {
		return s, fmt.Errorf("unexpected type %T of the DRAAllocator cycle state", v)
	}
	return s, nil
}
