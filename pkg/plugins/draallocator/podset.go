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

	"k8s.io/apimachinery/pkg/types"
)

// podSet is a set of pods by UID, safe for concurrent use, that forgets
// everything once it holds limit pods: a pod deleted while recorded is
// never taken, and the set must not grow without bound.
type podSet struct {
	limit int
	mu    sync.Mutex
	uids  map[types.UID]struct{}
}

func newPodSet(limit int) *podSet { return &podSet{limit: limit, uids: map[types.UID]struct{}{}} }

// add records a pod.
func (p *podSet) add(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.uids) >= p.limit {
		clear(p.uids)
	}
	p.uids[uid] = struct{}{}
}

// has reports whether a pod is recorded.
func (p *podSet) has(uid types.UID) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.uids[uid]
	return ok
}

// take forgets a pod and reports whether it was recorded.
func (p *podSet) take(uid types.UID) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.uids[uid]
	delete(p.uids, uid)
	return ok
}
