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
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
)

// claimIndex is a Claims over a map, as the scheduler's claim cache
// answers: by key, whatever the number of claims.
type claimIndex map[ClaimKey]*resourceapi.ResourceClaim

func (c claimIndex) Get(namespace, name string) *resourceapi.ResourceClaim {
	return c[ClaimKey{Namespace: namespace, Name: name}]
}

func (c claimIndex) Allocation(claim *resourceapi.ResourceClaim) *resourceapi.AllocationResult {
	return claim.Status.Allocation
}

// BenchmarkReleasesBy is a preemption dry run's first question on a full
// node: every pod on it evicted, each holding a claim of its own, and as
// many pods staying that hold claims of their own too (staying: none
// where the preemptor outranks every pod).
func BenchmarkReleasesBy(b *testing.B) {
	for _, tc := range []struct{ evicted, staying int }{{8, 0}, {4, 4}, {64, 0}} {
		b.Run(fmt.Sprintf("evicted=%d/staying=%d", tc.evicted, tc.staying), func(b *testing.B) {
			claims := claimIndex{}
			evicted := map[types.UID]*v1.Pod{}
			var staying []*v1.Pod
			for i := range tc.evicted + tc.staying {
				name := fmt.Sprintf("p%d", i)
				p := pod(name, "node-1", "c-"+name)
				claims[ClaimKey{Namespace: "ns", Name: "c-" + name}] = claim("c-"+name, p)
				if i < tc.evicted {
					evicted[p.UID] = p
				} else {
					staying = append(staying, p)
				}
			}
			for b.Loop() {
				if got := ReleasesBy("node-1", evicted, func() []*v1.Pod { return staying }, claims); len(got) != tc.evicted {
					b.Fatalf("%d releases, want %d", len(got), tc.evicted)
				}
			}
		})
	}
}

// BenchmarkReleasesAcross is a pod group preemption's question: every
// lower-priority pod of the cluster removed, four one-claim pods on each
// of its nodes.
func BenchmarkReleasesAcross(b *testing.B) {
	for _, nodes := range []int{100, 1000} {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", nodes, 4*nodes), func(b *testing.B) {
			claims := claimIndex{}
			evicted := map[types.UID]*v1.Pod{}
			for n := range nodes {
				for i := range 4 {
					name := fmt.Sprintf("p%d-%d", n, i)
					p := pod(name, fmt.Sprintf("node-%d", n), "c-"+name)
					claims[ClaimKey{Namespace: "ns", Name: "c-" + name}] = claim("c-"+name, p)
					evicted[p.UID] = p
				}
			}
			for b.Loop() {
				if got := ReleasesAcross(evicted, func(string) []*v1.Pod { return nil }, claims); len(got) != len(evicted) {
					b.Fatalf("%d releases, want %d", len(got), len(evicted))
				}
			}
		})
	}
}
