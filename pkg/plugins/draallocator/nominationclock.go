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
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
)

// nominationClockLimit bounds the pods a nominationClock times; beyond
// it, it forgets them all and starts again.
const nominationClockLimit = 10000

// nominationClock tells since when each pending pod has been nominated to
// its current node, as the pod informer shows the pods' status. It orders
// preemptors of one priority nominated to one node: the one nominated
// first preempted for itself alone, and the later one's dry runs counted
// the first one's devices as taken, so the first one is served first
// (awaitRelease).
type nominationClock struct {
	mu    sync.Mutex
	since map[types.UID]nomination
	now   func() time.Time
}

// nomination is a pod's nominated node and when the clock first saw it
// there.
type nomination struct {
	node string
	at   time.Time
}

func newNominationClock() *nominationClock {
	return &nominationClock{since: map[types.UID]nomination{}, now: time.Now}
}

// watch subscribes c to the pod informer.
func (c *nominationClock) watch(factory informers.SharedInformerFactory, g *guard) error {
	return watchPods(factory, g, "their nominations", podEvents{
		add:    c.observe,
		update: func(_, pod *v1.Pod) { c.observe(pod) },
		delete: func(pod *v1.Pod) { c.forget(pod.UID) },
	})
}

// observe records a pod's nomination, or forgets the pod once it has none
// or is bound.
func (c *nominationClock) observe(pod *v1.Pod) {
	node := pod.Status.NominatedNodeName
	if node == "" || pod.Spec.NodeName != "" {
		c.forget(pod.UID)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.since[pod.UID]; ok && n.node == node {
		return
	}
	if len(c.since) >= nominationClockLimit {
		clear(c.since)
	}
	c.since[pod.UID] = nomination{node: node, at: c.now()}
}

// forget drops a pod.
func (c *nominationClock) forget(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.since, uid)
}

// nominatedBefore reports whether pod a was seen nominated to node before
// pod b was; false when either is not known nominated there.
func (c *nominationClock) nominatedBefore(a, b types.UID, node string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	na, okA := c.since[a]
	nb, okB := c.since[b]
	return okA && okB && na.node == node && nb.node == node && na.at.Before(nb.at)
}
