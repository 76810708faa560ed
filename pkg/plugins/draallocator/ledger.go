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
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
)

// The ledger of uncounted node resources (DRANodeAllocatableResources).
// "In flight" is claim allocations between Reserve and PreBind; what the
// ledger holds is "uncounted": node resources that assumed pods' devices
// take and the scheduler's node accounting does not count yet. When kube-scheduler
// assumes a pod on a node, it copies the pod's node-allocatable statuses
// from the in-tree plugin's cycle state into the assumed pod, so that the
// node's requested cpu and memory include what the pod's devices take
// until the bound pod, carrying the statuses PreBind wrote, replaces it in
// the cache. It cannot read ours: our assumed pods carry no statuses, and
// during that window every other pod would see the node's cpu and memory
// overstated. The ledger holds, per assumed pod, what its statuses add;
// Filter subtracts it from the node's free resources for as long as the
// node holds that assumed copy of the pod.

// ledgerEntry is what one assumed pod's statuses add on its node.
type ledgerEntry struct {
	pod types.UID
	// resourceVersion identifies the assumed copy: the bound pod, which
	// the cache counts with its statuses, comes with a newer one.
	resourceVersion string
	node            string
	delta           nodeallocatable.Amounts
}

// ledger holds the entries of all profiles' assumed pods.
type ledger struct {
	mu      sync.Mutex
	entries map[types.UID]ledgerEntry
}

func newLedger() *ledger {
	return &ledger{entries: map[types.UID]ledgerEntry{}}
}

// add records an assumed pod's delta, replacing an earlier entry.
func (l *ledger) add(e ledgerEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries[e.pod] = e
}

// remove forgets a pod's entry and reports whether it had one.
func (l *ledger) remove(pod types.UID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.entries[pod]
	delete(l.entries, pod)
	return ok
}

// sweep drops the entries the scheduler's snapshot no longer holds as
// assumed: the pod is gone from its node (deleted) or the node holds a
// newer copy of it (the bound pod, which the node accounting counts). Only
// a snapshot just copied from the scheduler's cache may be swept: pod-group
// preemption removes victims from the snapshot for a while, and their
// entries must outlive that.
func (l *ledger) sweep(nodes fwk.NodeInfoLister) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for uid, e := range l.entries {
		if nodeInfo, err := nodes.Get(e.node); err != nil || !holdsCopy(nodeInfo, e) {
			delete(l.entries, uid)
		}
	}
}

// view returns the entries by node, for a scheduling cycle; nil when
// there are none. Filter counts those the node info it is given holds.
func (l *ledger) view() ledgerView {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) == 0 {
		return nil
	}
	v := ledgerView{}
	for _, e := range l.entries {
		v[e.node] = append(v[e.node], e)
	}
	return v
}

// ledgerView is a cycle's copy of the ledger, by node name.
type ledgerView map[string][]ledgerEntry

// uncounted sums the deltas of the node's entries whose assumed copy the
// node info holds. Checking the node info given to Filter keeps this right
// when it differs from the snapshot: in preemption's dry runs without
// victims, with nominated pods added.
func (v ledgerView) uncounted(nodeInfo fwk.NodeInfo) nodeallocatable.Amounts {
	var sum nodeallocatable.Amounts
	if v == nil {
		return sum
	}
	for _, e := range v[nodeInfo.Node().Name] {
		if holdsCopy(nodeInfo, e) {
			sum = sum.Plus(e.delta)
		}
	}
	return sum
}

// holdsCopy reports whether the node info holds the entry's copy of its
// pod.
func holdsCopy(nodeInfo fwk.NodeInfo, e ledgerEntry) bool {
	for _, p := range nodeInfo.GetPods() {
		if pod := p.GetPod(); pod.UID == e.pod {
			return pod.ResourceVersion == e.resourceVersion
		}
	}
	return false
}
