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
//
// PreFilter writes every field before any Filter runs. Afterwards the
// fields under mu are written by Filter and Score, which the framework
// runs in parallel over nodes, and by the binding phase; the others are
// written only by the cycle's sequential phases (Reserve, Unreserve,
// PostFilter, PreBind), never while a Filter or Score runs.
type stateData struct {
	// ext is the pod's claim for extended resources DRA may provide (nil
	// when there are none).
	ext *extendedState

	// claims are the pod's claims in pod.Spec.ResourceClaims order.
	claims []podClaim
	// inFlight are the claims whose allocation Reserve marked in flight
	// (the extended-resource claim under its placeholder UID), until
	// Unreserve releases them; under mu.
	inFlight []*resourceapi.ResourceClaim

	// toAllocateClaims holds the claims the cycle allocates (those whose
	// podClaim.toAllocate is set), in claims order: one slice for the
	// whole cycle, which lets the allocator reuse its per-pod preparation.
	toAllocateClaims []*resourceapi.ResourceClaim
	// alloc allocates the pod's claims: kept to the topology domain being
	// tried for a group keyed by a device attribute (placementattributes.go).
	// unrestricted is the same allocator without that restriction, for
	// other pods' claims (nominated pods a dry run or Filter simulates).
	alloc, unrestricted *allocator.Allocator
	// unconstrained is alloc without the pod's device constraints
	// (deviceconstraints.go), to tell where they alone keep the claims off
	// a node; nil when the pod has none. cross are those constraints, its
	// own and its group's (deviceconstraintsgroup.go).
	unconstrained *allocator.Allocator
	cross         *crossConstraints
	// fit is Filter's claimsFitter: fitClaims unless PreFilter chose
	// another (a pod group preemption's re-run: fitInRerun).
	fit claimsFitter
	// preemptionMemo is what Filter's answers for preemption share within
	// the cycle (preemptionmemo.go).
	preemptionMemo preemptionMemo
	// release is whether the pod waits on its nominated node for
	// released devices, decided once per cycle (releasing.go).
	release releaseWait
	// gang is the pod's place in its pod group's plan (gangplan.go); nil
	// outside a planned pod-group cycle.
	gang *gangMember
	// gangPreemption is the pod group preemption whose re-run the cycle
	// is, which alloc and unrestricted free the removed pods' devices for
	// (gangpreemption.go); nil outside one.
	gangPreemption *gangPreemption

	// na is the pod's node-allocatable accounting; nil unless
	// DRANodeAllocatableResources is on and a device declares node
	// resources.
	na *nodeAllocatableState
	// ledger is the cycle's view of assumed pods' node-allocatable
	// resources the node accounting misses (nil when there are none), and
	// ownRequest the pod's requests to check against it.
	ledger     ledgerView
	ownRequest nodeallocatable.Amounts

	// mu guards inFlight and the fields below it. Fields that Filter and
	// Score write are here, not in podClaim: they run in parallel and copy
	// podClaims as they read them.
	mu sync.Mutex
	// nodeStatuses holds the pod's node-allocatable statuses per node that
	// passed Filter, when its devices take node resources there (nil
	// until one does).
	nodeStatuses map[string][]v1.NodeAllocatableResourceClaimStatus
	// statusPatched says that PreBind sent them to the API server.
	statusPatched bool
	// unavailable holds the indexes in claims of allocated claims that some
	// node could not use (PostFilter may deallocate one of them).
	unavailable sets.Set[int]
	// results holds the devices found per node name, for the nodes Score
	// or Reserve asked about and those where Filter searched them
	// (searchDevices).
	results map[string]foundDevices
}

// foundDevices are the devices one search found for the pod on a node.
type foundDevices struct {
	// claims holds, at each claim's index in stateData.claims, the devices
	// found for it; nil for a claim the cycle does not allocate.
	claims []*resourceapi.AllocationResult
	// extended is the devices of the extended-resource claim; nil where
	// DRA provides no extended resource on the node.
	extended *resourceapi.AllocationResult
}

// foundDevices files the allocator's results, which come in the order of
// toAllocateClaims followed by the extended-resource claim's, under the
// claims they belong to. It is the one place that knows that order.
func (s *stateData) foundDevices(results []resourceapi.AllocationResult) foundDevices {
	found := foundDevices{claims: make([]*resourceapi.AllocationResult, len(s.claims))}
	j := 0
	for i := range s.claims {
		if s.claims[i].toAllocate && j < len(results) {
			found.claims[i] = &results[j]
			j++
		}
	}
	if j < len(results) {
		found.extended = &results[j]
	}
	return found
}

// keepFound files the devices found on node (foundDevices) and caches them
// for Score and Reserve.
func (s *stateData) keepFound(node string, results []resourceapi.AllocationResult) foundDevices {
	found := s.foundDevices(results)
	s.mu.Lock()
	s.results[node] = found
	s.mu.Unlock()
	return found
}

// all returns the devices found, the extended-resource claim's last.
func (f foundDevices) all() []resourceapi.AllocationResult {
	out := make([]resourceapi.AllocationResult, 0, len(f.claims)+1)
	for _, r := range f.claims {
		if r != nil {
			out = append(out, *r)
		}
	}
	if f.extended != nil {
		out = append(out, *f.extended)
	}
	return out
}

// podClaim is one of the pod's claims as the cycle sees it.
type podClaim struct {
	// claim is the claim as read at PreFilter; PreBind and the wait for
	// binding conditions replace it with the copy they wrote or read.
	claim *resourceapi.ResourceClaim
	// availableOn is the node selector of the claim's existing allocation,
	// or of the pending allocation it shares (nil: none, or usable on
	// every node).
	availableOn *nodeaffinity.NodeSelector
	// allocation is what PreBind records: set by Reserve for a claim the
	// plugin allocates, and by PreFilter for a reused one.
	allocation *resourceapi.AllocationResult
	// reused says that the claim shares the pending allocation of an
	// earlier pod of the pod-group cycle: it is not allocated again.
	reused bool
	// toAllocate says that the claim has no allocation and the cycle
	// allocates it (it is in stateData.toAllocateClaims).
	toAllocate bool
	// shareDenied rejects the claim on every node where it is available:
	// its allocation maps node resources and another consumer holds it
	// (nodeallocatable.go; nil when DRANodeAllocatableResources is off).
	shareDenied *fwk.Status
	// consumer is whom PreBind reserves the claim for: the pod, or its
	// PodGroup (DRAWorkloadResourceClaims).
	consumer resourceapi.ResourceClaimConsumerReference
}

// Clone returns the same state: the cycle's phases share it.
func (s *stateData) Clone() fwk.StateData { return s }

// empty reports whether the plugin has nothing to do for the pod.
func (s *stateData) empty() bool { return len(s.claims) == 0 && s.ext == nil }

// takeInFlight returns the claims marked in flight and forgets them.
func (s *stateData) takeInFlight() []*resourceapi.ResourceClaim {
	s.mu.Lock()
	defer s.mu.Unlock()
	claims := s.inFlight
	s.inFlight = nil
	return claims
}

// reusesPending reports whether a claim shares the pending allocation of
// an earlier pod of the pod-group cycle.
func (s *stateData) reusesPending() bool {
	for _, c := range s.claims {
		if c.reused {
			return true
		}
	}
	return false
}

// unavailableAllocated returns the allocated claims that some node could
// not use, the candidates for deallocation. A shared pending allocation
// (reused) that some node could not use is not among them: nothing is
// written to free.
func (s *stateData) unavailableAllocated() []*resourceapi.ResourceClaim {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*resourceapi.ResourceClaim
	for i, c := range s.claims {
		if s.unavailable.Has(i) && c.claim.Status.Allocation != nil {
			out = append(out, c.claim)
		}
	}
	return out
}

// claimObjects returns the claims' objects, in claims order.
func (s *stateData) claimObjects() []*resourceapi.ResourceClaim {
	out := make([]*resourceapi.ResourceClaim, len(s.claims))
	for i, c := range s.claims {
		out[i] = c.claim
	}
	return out
}

// cachedResults returns the devices found for a node, if searched already.
func (s *stateData) cachedResults(node string) (foundDevices, bool) {
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
