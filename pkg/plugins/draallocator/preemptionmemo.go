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
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// A preemptor's cycle asks the same questions on node after node: Filter
// on every node whether preemption may help (preemptionMayHelp), then
// DefaultPreemption's dry runs on hundreds of nodes, removing and giving
// back the same pods step after step. preemptionMemo keeps what the
// answers share, for one cycle (in stateData, which every copy of the
// cycle state shares; dry runs run in parallel). A cycle sees each claim
// as it was when first asked, as it sees the cluster's snapshot.
type preemptionMemo struct {
	// claims holds eviction.HeldBy's answer by pod UID.
	claims sync.Map
	// vacatedOnce builds vacatedAlloc: the cycle's allocator with every
	// node's own devices free.
	vacatedOnce  sync.Once
	vacatedAlloc *allocator.Allocator
}

// held returns the claims pod holds, looked up in claims the first time.
func (m *preemptionMemo) held(pod *v1.Pod, claims eviction.Claims) []eviction.Held {
	if v, ok := m.claims.Load(pod.UID); ok {
		return v.([]eviction.Held)
	}
	held := eviction.HeldBy(pod, claims)
	m.claims.Store(pod.UID, held)
	return held
}

// vacated returns alloc with every node's own devices free
// (allocator.WhatIf's VacateNodes), built once: on any node it answers as
// alloc would with that node vacated, without a copy of the allocated
// devices per node. alloc must be the same on every call: the cycle's.
func (m *preemptionMemo) vacated(alloc *allocator.Allocator) *allocator.Allocator {
	m.vacatedOnce.Do(func() { m.vacatedAlloc = alloc.WhatIf(allocator.WhatIf{VacateNodes: true}) })
	return m.vacatedAlloc
}
