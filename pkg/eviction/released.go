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

package eviction

import (
	"iter"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// Claims looks up claims for Released.
type Claims interface {
	// Get returns the claim namespace/name, nil if there is none.
	Get(namespace, name string) *resourceapi.ResourceClaim
	// Allocation returns the claim's allocation, nil if it has none.
	Allocation(claim *resourceapi.ResourceClaim) *resourceapi.AllocationResult
}

// Released returns the allocations that evicting the pods of evicted
// (by UID) from node gives back: those of the claims an evicted pod on the
// node uses (ClaimNames) whose every reservation is for an evicted pod and
// that no pod of staying uses. staying is called only when a claim could
// be given back, and returns the pods that stay on the node.
func Released(node string, evicted map[types.UID]*v1.Pod, staying func() []*v1.Pod, claims Claims) []*resourceapi.AllocationResult {
	return ReleasedBy(node, evicted, staying, func(pod *v1.Pod) []Held { return HeldBy(pod, claims) })
}

// Held is a claim a pod uses, as Released weighs it.
type Held struct {
	// Key is the claim's namespace and name.
	Key   ClaimKey
	Claim *resourceapi.ResourceClaim
	// Allocation is the claim's allocation (Claims.Allocation), nil if
	// it has none.
	Allocation *resourceapi.AllocationResult
}

// ClaimKey identifies a claim: its namespace and name.
type ClaimKey struct{ Namespace, Name string }

// HeldBy returns the existing claims the pod uses (ClaimNames), each once.
// Preemption asks it for every pod of every node it tries: it reads the
// names as they come (claimNames), without building their list.
func HeldBy(pod *v1.Pod, claims Claims) []Held {
	out := make([]Held, 0, len(pod.Spec.ResourceClaims)+1)
	for name := range claimNames(pod) {
		key := ClaimKey{Namespace: pod.Namespace, Name: name}
		if slices.ContainsFunc(out, func(h Held) bool { return h.Key == key }) {
			continue
		}
		if claim := claims.Get(pod.Namespace, name); claim != nil {
			out = append(out, Held{Key: key, Claim: claim, Allocation: claims.Allocation(claim)})
		}
	}
	return out
}

// ReleasedBy is Released with each pod's claims given by held, HeldBy's
// answer for the pod or a memo of it: a preemption dry run asks about the
// same pods on one node again and again.
func ReleasedBy(node string, evicted map[types.UID]*v1.Pod, staying func() []*v1.Pod, held func(*v1.Pod) []Held) []*resourceapi.AllocationResult {
	var out []*resourceapi.AllocationResult
	for _, r := range ReleasesBy(node, evicted, staying, held) {
		out = append(out, r.Allocation)
	}
	return out
}

// Release is an allocation that evicting pods gives back, with the pods
// that must all be evicted for it to be: the claim's consumers and the
// pods on the node that use it.
type Release struct {
	Allocation *resourceapi.AllocationResult
	Needs      []types.UID
}

// FreedBy reports whether evicting the pods of evicted, a subset of those
// the release was found for, still gives the allocation back: giving
// evicted pods back, so that they stay, never frees more, and frees a
// claim as long as no pod it needs is given back. A preemption dry run
// gives its victims back one at a time.
func (r Release) FreedBy(evicted map[types.UID]*v1.Pod) bool {
	for _, uid := range r.Needs {
		if _, ok := evicted[uid]; !ok {
			return false
		}
	}
	return true
}

// ReleasesBy is ReleasedBy with what each allocation needs (Release). It
// asks held about each pod once.
func ReleasesBy(node string, evicted map[types.UID]*v1.Pod, staying func() []*v1.Pod, held func(*v1.Pod) []Held) []Release {
	type podClaims struct {
		uid  types.UID
		held []Held
	}
	var (
		used   sets.Set[ClaimKey]
		seen   = sets.New[ClaimKey]()
		out    []Release
		here   []podClaims
		index  map[ClaimKey]int // which of out each claim given back is, by key
		shared bool             // a claim given back is used by several pods here
	)
	for _, pod := range evicted {
		if pod.Spec.NodeName != node {
			continue
		}
		pc := podClaims{uid: pod.UID, held: held(pod)}
		here = append(here, pc)
		for _, h := range pc.held {
			if seen.Has(h.Key) {
				shared = true
				continue
			}
			seen.Insert(h.Key)
			if h.Allocation == nil || !ReservedOnlyFor(h.Claim, evicted) {
				continue
			}
			if used == nil {
				used = sets.New[ClaimKey]()
				for _, p := range staying() {
					for _, sh := range held(p) {
						used.Insert(sh.Key)
					}
				}
				index = map[ClaimKey]int{}
			}
			if !used.Has(h.Key) {
				index[h.Key] = len(out)
				needs := consumers(h.Claim)
				if !slices.Contains(needs, pod.UID) {
					needs = append(needs, pod.UID)
				}
				out = append(out, Release{Allocation: h.Allocation, Needs: needs})
			}
		}
	}
	if !shared {
		return out
	}
	// Every evicted pod here that uses a claim given back must stay
	// evicted for it to be.
	for _, pc := range here {
		for _, h := range pc.held {
			if i, ok := index[h.Key]; ok && !slices.Contains(out[i].Needs, pc.uid) {
				out[i].Needs = append(out[i].Needs, pc.uid)
			}
		}
	}
	return out
}

// consumers returns the UIDs of the pods the claim is reserved for.
func consumers(claim *resourceapi.ResourceClaim) []types.UID {
	out := make([]types.UID, 0, len(claim.Status.ReservedFor)+1)
	for _, c := range claim.Status.ReservedFor {
		out = append(out, c.UID)
	}
	return out
}

// ReservedOnlyFor reports whether every consumer in the claim's
// reservedFor is one of pods.
func ReservedOnlyFor(claim *resourceapi.ResourceClaim, pods map[types.UID]*v1.Pod) bool {
	for _, c := range claim.Status.ReservedFor {
		if c.APIGroup != "" || c.Resource != "pods" {
			return false
		}
		if _, ok := pods[c.UID]; !ok {
			return false
		}
	}
	return true
}

// ClaimNames names the claims the pod uses, in its namespace: those of
// its spec (generated ones as its status names them) and the claim of its
// DRA-backed extended resources.
func ClaimNames(pod *v1.Pod) []string {
	return slices.Collect(claimNames(pod))
}

// claimNames yields ClaimNames' names one at a time.
func claimNames(pod *v1.Pod) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range pod.Spec.ResourceClaims {
			if name, _, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i]); err == nil && name != nil && !yield(*name) {
				return
			}
		}
		if st := pod.Status.ExtendedResourceClaimStatus; st != nil && st.ResourceClaimName != "" {
			yield(st.ResourceClaimName)
		}
	}
}
