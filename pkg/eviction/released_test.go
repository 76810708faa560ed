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
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// claimSet is a Claims over a list, each claim allocated the device its
// name gives, unless pending says it is in flight (allocated in memory
// only) or it has no allocation at all.
type claimSet struct {
	claims  []*resourceapi.ResourceClaim
	pending map[string]*resourceapi.AllocationResult
}

func (c claimSet) Get(namespace, name string) *resourceapi.ResourceClaim {
	for _, claim := range c.claims {
		if claim.Namespace == namespace && claim.Name == name {
			return claim
		}
	}
	return nil
}

func (c claimSet) Allocation(claim *resourceapi.ResourceClaim) *resourceapi.AllocationResult {
	if a := claim.Status.Allocation; a != nil {
		return a
	}
	return c.pending[claim.Name]
}

// pod is a pod on node using the named claims.
func pod(name, node string, claims ...string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)}}
	p.Spec.NodeName = node
	for _, c := range claims {
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: c, ResourceClaimName: ptr.To(c)})
	}
	return p
}

// claim is claim name, allocated device name, reserved for consumers.
func claim(name string, consumers ...*v1.Pod) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	c.Status.Allocation = allocation(name)
	for _, p := range consumers {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
	}
	return c
}

func allocation(device string) *resourceapi.AllocationResult {
	return &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Device: device}}}}
}

func TestReleasedGivesBackExactlyTheClaimsOnlyEvictedPodsHold(t *testing.T) {
	a, b := pod("a", "node-1", "gpu-a"), pod("b", "node-1", "gpu-b", "shared")
	stay := pod("stay", "node-1", "shared", "gpu-stay")
	remote := pod("remote", "node-2", "gpu-remote")
	group := claim("group-gpu")
	group.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "g", UID: "pg"}}
	grouped := pod("grouped", "node-1", "group-gpu")
	extended := pod("extended", "node-1")
	extended.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{ResourceClaimName: "gpu-extended"}
	inFlight := pod("in-flight", "node-1", "gpu-in-flight")
	unallocated := claim("gpu-in-flight", inFlight)
	unallocated.Status.Allocation = nil
	twice := pod("twice", "node-1", "gpu-twice")
	twin := pod("twin", "node-1", "gpu-twice")
	claims := claimSet{
		claims: []*resourceapi.ResourceClaim{
			claim("gpu-a", a), claim("gpu-b", b), claim("shared", b, stay), claim("gpu-stay", stay),
			claim("gpu-remote", remote), group, claim("gpu-extended", extended), unallocated, claim("gpu-twice", twice, twin),
		},
		pending: map[string]*resourceapi.AllocationResult{"gpu-in-flight": allocation("gpu-in-flight")},
	}
	for _, tc := range []struct {
		name    string
		evicted []*v1.Pod
		staying []*v1.Pod
		want    []string
	}{
		{"a pod's own claim is given back", []*v1.Pod{a}, []*v1.Pod{b, stay}, []string{"gpu-a"}},
		{"a claim a staying pod also uses is not", []*v1.Pod{b}, []*v1.Pod{a, stay}, []string{"gpu-b"}},
		{"a claim reserved for a pod that stays is not, even if no staying pod is passed", []*v1.Pod{b}, nil, []string{"gpu-b"}},
		{"a claim shared by evicted pods only is given back once", []*v1.Pod{b, stay}, []*v1.Pod{a}, []string{"gpu-b", "gpu-stay", "shared"}},
		{"a claim two evicted pods are reserved for is counted once", []*v1.Pod{twice, twin}, nil, []string{"gpu-twice"}},
		{"a claim one of two reserved pods keeps is not given back", []*v1.Pod{twice}, []*v1.Pod{twin}, nil},
		{"a pod on another node gives back nothing here", []*v1.Pod{remote}, nil, nil},
		{"a PodGroup's claim is never given back", []*v1.Pod{grouped}, nil, nil},
		{"the claim of DRA-backed extended resources is given back", []*v1.Pod{extended}, nil, []string{"gpu-extended"}},
		{"a claim allocated in flight is given back with its pending allocation", []*v1.Pod{inFlight}, nil, []string{"gpu-in-flight"}},
		{"a pod whose claim does not exist gives back nothing", []*v1.Pod{pod("missing", "node-1", "nowhere")}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evicted := map[types.UID]*v1.Pod{}
			for _, p := range tc.evicted {
				evicted[p.UID] = p
			}
			var got []string
			for _, a := range Released("node-1", evicted, func() []*v1.Pod { return tc.staying }, claims) {
				got = append(got, a.Devices.Results[0].Device)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("given back %v, want %v", got, tc.want)
			}
		})
	}
}

func TestClaimNamesNameTheSpecsClaimsAndTheExtendedResourceClaim(t *testing.T) {
	p := pod("p", "node-1", "named")
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims,
		v1.PodResourceClaim{Name: "from-template", ResourceClaimTemplateName: ptr.To("tmpl")},
		v1.PodResourceClaim{Name: "not-generated-yet", ResourceClaimTemplateName: ptr.To("tmpl")})
	p.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "from-template", ResourceClaimName: ptr.To("p-from-template-x7")}}
	p.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{ResourceClaimName: "p-extended"}
	if got, want := ClaimNames(p), []string{"named", "p-from-template-x7", "p-extended"}; !slices.Equal(got, want) {
		t.Errorf("ClaimNames = %v, want %v", got, want)
	}
}

func TestAppendHeldHoldsEachExistingClaimOfClaimNamesOnce(t *testing.T) {
	p := pod("p", "node-1", "named", "missing")
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims,
		v1.PodResourceClaim{Name: "again", ResourceClaimName: ptr.To("named")},
		v1.PodResourceClaim{Name: "from-template", ResourceClaimTemplateName: ptr.To("tmpl")},
		v1.PodResourceClaim{Name: "not-generated-yet", ResourceClaimTemplateName: ptr.To("tmpl")})
	p.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "from-template", ResourceClaimName: ptr.To("p-from-template-x7")}}
	p.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{ResourceClaimName: "p-extended"}
	claims := claimSet{}
	for _, name := range []string{"named", "p-from-template-x7", "p-extended", "unused"} {
		claims.claims = append(claims.claims, claim(name))
	}
	var got []string
	for _, h := range appendHeld(nil, p, claims) {
		if h.Claim == nil || h.Key != (ClaimKey{Namespace: p.Namespace, Name: h.Claim.Name}) {
			t.Errorf("held %+v: its key does not name its claim", h)
			continue
		}
		got = append(got, h.Claim.Name)
	}
	if want := []string{"named", "p-from-template-x7", "p-extended"}; !slices.Equal(got, want) {
		t.Errorf("appendHeld holds %v, want %v", got, want)
	}
}

// TestGivingEvictedPodsBackFreesWhatTheirReleasesStillFree: evicting a
// subset of the pods once evicted gives back exactly the allocations of
// the first eviction's releases that the subset still frees
// (Release.FreedBy), as a preemption dry run assumes when it gives its
// victims back one at a time. Random claims are shared by pods on and off
// the node, reserved for some of them, a PodGroup or nobody.
func TestGivingEvictedPodsBackFreesWhatTheirReleasesStillFree(t *testing.T) {
	for seed := range uint64(500) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var pods []*v1.Pod
		for i := range 8 {
			node := "node-1"
			if i >= 6 {
				node = "node-2"
			}
			pods = append(pods, pod(fmt.Sprintf("p%d", i), node))
		}
		claims := claimSet{pending: map[string]*resourceapi.AllocationResult{}}
		for c := range 10 {
			name := fmt.Sprintf("c%d", c)
			cl := claim(name)
			for _, p := range pods {
				if rng.IntN(4) == 0 {
					p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: name, ResourceClaimName: ptr.To(name)})
					if rng.IntN(5) != 0 {
						cl.Status.ReservedFor = append(cl.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
					}
				}
			}
			switch rng.IntN(8) {
			case 0:
				cl.Status.ReservedFor = append(cl.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "g", UID: "pg"})
			case 1:
				cl.Status.Allocation = nil
			case 2:
				cl.Status.Allocation = nil
				claims.pending[name] = allocation(name)
			}
			claims.claims = append(claims.claims, cl)
		}
		evict := func(among []*v1.Pod) map[types.UID]*v1.Pod {
			out := map[types.UID]*v1.Pod{}
			for _, p := range among {
				if rng.IntN(3) != 0 {
					out[p.UID] = p
				}
			}
			return out
		}
		stayingWithout := func(evicted map[types.UID]*v1.Pod) func() []*v1.Pod {
			return func() []*v1.Pod {
				var out []*v1.Pod
				for _, p := range pods {
					if _, ok := evicted[p.UID]; !ok && p.Spec.NodeName == "node-1" {
						out = append(out, p)
					}
				}
				return out
			}
		}
		first := evict(pods)
		releases := ReleasesBy("node-1", first, stayingWithout(first), claims)
		var firstEvicted []*v1.Pod
		for _, p := range first {
			firstEvicted = append(firstEvicted, p)
		}
		for step := range 4 {
			later := evict(firstEvicted)
			var want, got []string
			for _, a := range Released("node-1", later, stayingWithout(later), claims) {
				want = append(want, a.Devices.Results[0].Device)
			}
			for _, r := range releases {
				if r.FreedBy(later) {
					got = append(got, r.Allocation.Devices.Results[0].Device)
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("seed %d, step %d: the first eviction's releases still free %v, evicting the pods left gives back %v", seed, step, got, want)
			}
		}
	}
}

// TestReleasesByFollowsTheRuleOnNodesOfFewAndOfManyPods checks ReleasesBy
// against the rule written plainly (releasesByRule), on nodes small enough
// for its sets to stay lists and large enough for them to need maps
// (keySetShort), with claims shared among pods, some reserved for pods
// that are not evicted and some for a PodGroup.
func TestReleasesByFollowsTheRuleOnNodesOfFewAndOfManyPods(t *testing.T) {
	for _, size := range []struct{ pods, claims int }{{6, 8}, {40, 60}} {
		for seed := range uint64(200) {
			rng := rand.New(rand.NewPCG(seed, uint64(size.pods)))
			var pods []*v1.Pod
			for i := range size.pods {
				node := "node-1"
				if i%5 == 4 {
					node = "node-2"
				}
				pods = append(pods, pod(fmt.Sprintf("p%d", i), node))
			}
			claims := claimIndex{}
			for c := range size.claims {
				name := fmt.Sprintf("c%d", c)
				cl := claim(name)
				// Mostly a pod's own claim; now and then one that several share.
				users := 1
				if rng.IntN(4) == 0 {
					users = 2 + rng.IntN(3)
				}
				for range users {
					p := pods[rng.IntN(len(pods))]
					if slices.ContainsFunc(p.Spec.ResourceClaims, func(pc v1.PodResourceClaim) bool { return pc.Name == name }) {
						continue
					}
					p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: name, ResourceClaimName: ptr.To(name)})
					if rng.IntN(6) != 0 {
						cl.Status.ReservedFor = append(cl.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
					}
				}
				switch rng.IntN(10) {
				case 0:
					cl.Status.ReservedFor = append(cl.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "g", UID: "pg"})
				case 1:
					cl.Status.Allocation = nil
				}
				claims[ClaimKey{Namespace: "ns", Name: name}] = cl
			}
			evicted := map[types.UID]*v1.Pod{}
			var staying []*v1.Pod
			for _, p := range pods {
				switch {
				case rng.IntN(4) != 0:
					evicted[p.UID] = p
				case p.Spec.NodeName == "node-1":
					staying = append(staying, p)
				}
			}
			got := describeReleases(ReleasesBy("node-1", evicted, func() []*v1.Pod { return staying }, claims))
			want := describeReleases(releasesByRule("node-1", evicted, staying, claims))
			if !slices.Equal(got, want) {
				t.Errorf("%d pods, %d claims, seed %d: releases\n%v\nwant\n%v", size.pods, size.claims, seed, got, want)
			}
		}
	}
}

// releasesByRule is ReleasesBy's rule written plainly: a claim an evicted
// pod on node uses is given back when it is allocated, reserved only for
// evicted pods and used by no staying pod; it needs its consumers and the
// evicted pods on node that use it.
func releasesByRule(node string, evicted map[types.UID]*v1.Pod, staying []*v1.Pod, claims Claims) []Release {
	usedBy := map[ClaimKey][]types.UID{}
	var keys []ClaimKey
	for _, p := range evicted {
		if p.Spec.NodeName != node {
			continue
		}
		for _, h := range appendHeld(nil, p, claims) {
			if _, ok := usedBy[h.Key]; !ok {
				keys = append(keys, h.Key)
			}
			usedBy[h.Key] = append(usedBy[h.Key], p.UID)
		}
	}
	stays := map[ClaimKey]bool{}
	for _, p := range staying {
		for _, h := range appendHeld(nil, p, claims) {
			stays[h.Key] = true
		}
	}
	var out []Release
	for _, key := range keys {
		c := claims.Get(key.Namespace, key.Name)
		if claims.Allocation(c) == nil || !ReservedOnlyFor(c, evicted) || stays[key] {
			continue
		}
		r := Release{Allocation: claims.Allocation(c)}
		for _, rf := range c.Status.ReservedFor {
			r.Needs = append(r.Needs, rf.UID)
		}
		for _, uid := range usedBy[key] {
			if !slices.Contains(r.Needs, uid) {
				r.Needs = append(r.Needs, uid)
			}
		}
		out = append(out, r)
	}
	return out
}

// describeReleases names each release's device and the pods it needs,
// sorted, so that releases found in any order compare.
func describeReleases(releases []Release) []string {
	var out []string
	for _, r := range releases {
		needs := make([]string, 0, len(r.Needs))
		for _, uid := range r.Needs {
			needs = append(needs, string(uid))
		}
		slices.Sort(needs)
		out = append(out, fmt.Sprintf("%s needs %v", r.Allocation.Devices.Results[0].Device, needs))
	}
	slices.Sort(out)
	return out
}

func TestReleasesAcrossNodesGiveBackWhatOnlyPodsEvictedAnywhereHold(t *testing.T) {
	a1, b1 := pod("a1", "node-1", "gpu-a1"), pod("b1", "node-1", "gpu-b1", "fabric")
	a2, b2 := pod("a2", "node-2", "gpu-a2"), pod("b2", "node-2", "fabric")
	stay2 := pod("stay2", "node-2", "gpu-stay2", "link")
	c1 := pod("c1", "node-1", "link")
	claims := claimSet{claims: []*resourceapi.ResourceClaim{
		claim("gpu-a1", a1), claim("gpu-b1", b1), claim("gpu-a2", a2), claim("fabric", b1, b2),
		claim("gpu-stay2", stay2), claim("link", c1, stay2),
	}}
	staying := map[string][]*v1.Pod{"node-1": {a1, b1, c1}, "node-2": {a2, b2, stay2}}
	for _, tc := range []struct {
		name    string
		evicted []*v1.Pod
		want    map[string][]types.UID // device -> the pods it needs
	}{
		{"each node's pods give back their own claims", []*v1.Pod{a1, a2},
			map[string][]types.UID{"gpu-a1": {"uid-a1"}, "gpu-a2": {"uid-a2"}}},
		{"a claim pods on two nodes use is given back once, needing both", []*v1.Pod{b1, b2},
			map[string][]types.UID{"gpu-b1": {"uid-b1"}, "fabric": {"uid-b1", "uid-b2"}}},
		{"a claim a pod on another node keeps is not given back", []*v1.Pod{b1},
			map[string][]types.UID{"gpu-b1": {"uid-b1"}}},
		{"a claim a staying pod on another node uses is not given back", []*v1.Pod{c1}, map[string][]types.UID{}},
		{"nothing evicted gives back nothing", nil, map[string][]types.UID{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evicted := map[types.UID]*v1.Pod{}
			for _, p := range tc.evicted {
				evicted[p.UID] = p
			}
			stayingOn := func(node string) []*v1.Pod {
				return slices.DeleteFunc(slices.Clone(staying[node]), func(p *v1.Pod) bool { return evicted[p.UID] != nil })
			}
			got := map[string][]types.UID{}
			for _, r := range ReleasesAcross(evicted, stayingOn, claims) {
				device := r.Allocation.Devices.Results[0].Device
				if _, twice := got[device]; twice {
					t.Errorf("%s given back twice", device)
				}
				got[device] = slices.Sorted(slices.Values(r.Needs))
				if !r.FreedBy(evicted) {
					t.Errorf("%s is not freed by the pods it was found for", device)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("given back %v, want %v", got, tc.want)
			}
		})
	}
}
