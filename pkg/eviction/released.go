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
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
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
	var out []*resourceapi.AllocationResult
	for _, r := range ReleasesBy(node, evicted, staying, claims) {
		out = append(out, r.Allocation)
	}
	return out
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

// appendHeld appends the existing claims the pod uses (ClaimNames) to
// dst, each once. Preemption asks for every pod of every node it tries:
// the names are read as they come (claimNames), without building their
// list, and the claims of the pods of a node share one array.
func appendHeld(dst []Held, pod *v1.Pod, claims Claims) []Held {
	start := len(dst)
	for name := range claimNames(pod) {
		key := ClaimKey{Namespace: pod.Namespace, Name: name}
		if slices.ContainsFunc(dst[start:], func(h Held) bool { return h.Key == key }) {
			continue
		}
		if claim := claims.Get(pod.Namespace, name); claim != nil {
			dst = append(dst, Held{Key: key, Claim: claim, Allocation: claims.Allocation(claim)})
		}
	}
	return dst
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

// ReleasesBy is Released with what each allocation needs (Release). It
// looks each pod's claims up once. A preemption dry run asks it on every
// node it tries, for the few pods of each: it keeps its sets as lists
// while they are short (keySet) and the claims of all pods, and what
// the releases need, in one array each.
func ReleasesBy(node string, evicted map[types.UID]*v1.Pod, staying func() []*v1.Pod, claims Claims) []Release {
	var here []*v1.Pod
	for _, pod := range evicted {
		if pod.Spec.NodeName == node {
			here = append(here, pod)
		}
	}
	return releasesOn(sortedByUID(here), evicted, staying, claims)
}

// sortedByUID sorts pods by UID, so that releases come in the same order
// whatever the order of a map of them.
func sortedByUID(pods []*v1.Pod) []*v1.Pod {
	slices.SortFunc(pods, func(a, b *v1.Pod) int { return strings.Compare(string(a.UID), string(b.UID)) })
	return pods
}

// releasesOn is ReleasesBy for the evicted pods of one node, onNode.
func releasesOn(onNode []*v1.Pod, evicted map[types.UID]*v1.Pod, staying func() []*v1.Pod, claims Claims) []Release {
	type podClaims struct {
		uid        types.UID
		start, end int // its claims in held
	}
	var (
		held    []Held      // the claims of the evicted pods here
		here    []podClaims // the evicted pods here
		seen    keySet      // claims of evicted pods here
		used    *keySet     // claims of staying pods, once a claim could be given back
		out     []Release
		outKeys keySet // out's claims, in out's order
		needs   []types.UID
		shared  bool // a claim given back is used by several pods here
	)
	for _, pod := range onNode {
		if here == nil {
			// Room for a claim or two per pod, the common case.
			n := len(onNode)
			here, held, needs = make([]podClaims, 0, n), make([]Held, 0, n), make([]types.UID, 0, 2*n)
			seen.list, outKeys.list, out = make([]ClaimKey, 0, n), make([]ClaimKey, 0, n), make([]Release, 0, n)
		}
		start := len(held)
		held = appendHeld(held, pod, claims)
		here = append(here, podClaims{uid: pod.UID, start: start, end: len(held)})
		for _, h := range held[start:] {
			if seen.has(h.Key) {
				shared = true
				continue
			}
			seen.insert(h.Key)
			if h.Allocation == nil || !ReservedOnlyFor(h.Claim, evicted) {
				continue
			}
			if used == nil {
				used = &keySet{}
				var stayingHeld []Held
				for _, p := range staying() {
					stayingHeld = appendHeld(stayingHeld[:0], p, claims)
					for _, sh := range stayingHeld {
						if !used.has(sh.Key) {
							used.insert(sh.Key)
						}
					}
				}
			}
			if used.has(h.Key) {
				continue
			}
			// The claim's consumers and the pod, in an array of their own
			// within needs: appending to one copies it.
			first := len(needs)
			for _, c := range h.Claim.Status.ReservedFor {
				needs = append(needs, c.UID)
			}
			if !slices.Contains(needs[first:], pod.UID) {
				needs = append(needs, pod.UID)
			}
			outKeys.insert(h.Key)
			out = append(out, Release{Allocation: h.Allocation, Needs: needs[first:len(needs):len(needs)]})
		}
	}
	if !shared {
		return out
	}
	// Every evicted pod here that uses a claim given back must stay
	// evicted for it to be.
	for _, pc := range here {
		for _, h := range held[pc.start:pc.end] {
			if i := outKeys.index(h.Key); i >= 0 && !slices.Contains(out[i].Needs, pc.uid) {
				out[i].Needs = append(out[i].Needs, pc.uid)
			}
		}
	}
	return out
}

// ReleasesAcross is ReleasesBy for pods evicted from several nodes at
// once, as a pod group's preemption removes them from the whole cluster:
// ReleasesBy on every node an evicted pod runs on, with stayingOn giving
// that node's staying pods, each allocation once. A claim that pods on
// two nodes use is given back only if every one of them is evicted,
// since each must be among its consumers.
func ReleasesAcross(evicted map[types.UID]*v1.Pod, stayingOn func(node string) []*v1.Pod, claims Claims) []Release {
	// The pods of each node, found once: a pod group's preemption
	// removes thousands of pods from hundreds of nodes.
	byNode := map[string][]*v1.Pod{}
	for _, pod := range evicted {
		byNode[pod.Spec.NodeName] = append(byNode[pod.Spec.NodeName], pod)
	}
	var out []Release
	seen := map[*resourceapi.AllocationResult]int{}
	for _, node := range slices.Sorted(maps.Keys(byNode)) {
		for _, r := range releasesOn(sortedByUID(byNode[node]), evicted, func() []*v1.Pod { return stayingOn(node) }, claims) {
			i, ok := seen[r.Allocation]
			if !ok {
				seen[r.Allocation] = len(out)
				out = append(out, r)
				continue
			}
			// Used on two nodes: the pods of both must be evicted.
			for _, uid := range r.Needs {
				if !slices.Contains(out[i].Needs, uid) {
					out[i].Needs = append(slices.Clip(out[i].Needs), uid)
				}
			}
		}
	}
	return out
}

// keySet is a set of claim keys in the order inserted: a list while short,
// where a scan costs less than hashing two strings, indexed by a map once
// longer.
type keySet struct {
	list  []ClaimKey
	byKey map[ClaimKey]int
}

// keySetShort is the longest keySet scanned without its map.
const keySetShort = 16

// insert adds k, which the set must not hold.
func (s *keySet) insert(k ClaimKey) {
	s.list = append(s.list, k)
	switch {
	case s.byKey != nil:
		s.byKey[k] = len(s.list) - 1
	case len(s.list) > keySetShort:
		s.byKey = make(map[ClaimKey]int, 2*len(s.list))
		for i, l := range s.list {
			s.byKey[l] = i
		}
	}
}

// index returns where k was inserted, -1 if it was not.
func (s *keySet) index(k ClaimKey) int {
	if s.byKey == nil {
		return slices.Index(s.list, k)
	}
	if i, ok := s.byKey[k]; ok {
		return i
	}
	return -1
}

// has reports whether the set holds k.
func (s *keySet) has(k ClaimKey) bool { return s.index(k) >= 0 }

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
