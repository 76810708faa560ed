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
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
)

// A pod group preemption's reprieve: DefaultPreemption gives the removed
// pods back one by one, most important first, and after each asks Filter
// for every pod of the group on its proposed node, in the same order,
// stopping at the first that no longer fits (a victim then). That is
// (victims) × (the group's pods) Filter calls, thousands of victims for a
// gang of 72 in a cluster of 1000 nodes; but giving one back changes the
// answers of the nodes its releases are on only. So the answers are kept
// per node, in the order asked (reprieveMemo): while no victim whose
// releases are on the node changed sides, the node's pods get their last
// answers again, as long as each pod before them on the node did too.
//
// Reserve and Unreserve run as often, on each pod the step found room for.
// Nothing of a step is ever written, and nobody but the step's next pods
// reads what it reserves; so the step's reservations are kept in the
// preemption's own reprieveHolds, not marked in flight with the framework
// and the tracker.

// reprieveMemo keeps the reprieve's answers per node.
type reprieveMemo struct {
	mu sync.Mutex
	// changes counts, per node, the removed pods given back or removed
	// again whose releases are on the node (changed).
	changes map[string]uint64
	nodes   map[string]*nodeReprieve
}

// nodeReprieve is the answers one node's pods got, in the order asked,
// while the node's count of changes was changes; next is the place of the
// next answer in the current step.
type nodeReprieve struct {
	changes uint64
	answers []reprieveAnswer
	next    int
}

// reprieveAnswer is a pod's answer that fits: the devices it gets. An
// answer that does not fit ends the step and is never kept (keep).
type reprieveAnswer struct {
	pod     types.UID
	results []resourceapi.AllocationResult
}

// reprieveHolds are the devices the group's pods hold in a reprieve step:
// each claim's allocation with the pods reserving it (more than one for a
// claim the group's pods share).
type reprieveHolds struct {
	mu     sync.Mutex
	claims map[types.UID]*reprieveHeldClaim
	// byPod are the claims each pod holds.
	byPod map[types.UID][]types.UID
}

// reprieveHeldClaim is one claim's allocation in a reprieve step and the pods
// that reserved it.
type reprieveHeldClaim struct {
	allocation *resourceapi.AllocationResult
	pods       sets.Set[types.UID]
}

// hold records that pod reserves claim's allocation in the step.
func (h *reprieveHolds) hold(claim, pod types.UID, allocation *resourceapi.AllocationResult) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.claims == nil {
		h.claims, h.byPod = map[types.UID]*reprieveHeldClaim{}, map[types.UID][]types.UID{}
	}
	c := h.claims[claim]
	if c == nil {
		c = &reprieveHeldClaim{allocation: allocation, pods: sets.New[types.UID]()}
		h.claims[claim] = c
	}
	if !c.pods.Has(pod) {
		c.pods.Insert(pod)
		h.byPod[pod] = append(h.byPod[pod], claim)
	}
}

// giveBack ends what pod holds; a claim goes once no pod holds it.
func (h *reprieveHolds) giveBack(pod types.UID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, claim := range h.byPod[pod] {
		if c := h.claims[claim]; c != nil {
			c.pods.Delete(pod)
			if c.pods.Len() == 0 {
				delete(h.claims, claim)
			}
		}
	}
	delete(h.byPod, pod)
}

// allocations returns the allocations held, each claim's once, in the
// order of the claims' UIDs.
func (h *reprieveHolds) allocations() []*resourceapi.AllocationResult {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*resourceapi.AllocationResult, 0, len(h.claims))
	for _, uid := range slices.Sorted(maps.Keys(h.claims)) {
		out = append(out, h.claims[uid].allocation)
	}
	return out
}

// inReprieve reports whether DefaultPreemption gives victims back: Filter
// answers by fitGangReprieve, and Reserve holds devices in holds.
func (g *gangPreemption) inReprieve() bool {
	return g != nil && g.reprieving.Load()
}

// giveBackHolds is Unreserve's for pod during a reprieve: it ends what the
// pod holds (none outside one).
func (g *gangPreemption) giveBackHolds(pod *v1.Pod) {
	if g != nil {
		g.holds.giveBack(pod.UID)
	}
}

// changed records that the removed pod uid was given back, or removed
// again, for the nodes its releases are on.
func (g *gangPreemption) changed(uid types.UID) {
	if g == nil {
		return
	}
	m := &g.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.changes == nil {
		m.changes = map[string]uint64{}
	}
	for _, i := range g.releasesOf[uid] {
		for _, needs := range g.releases[i].Needs {
			if pod := g.removed[needs]; pod != nil {
				m.changes[pod.Spec.NodeName]++
			}
		}
	}
}

// recall returns the pod's last answer on node if it holds still, and the
// place of the pod's answer in the node's step either way.
func (m *reprieveMemo) recall(pod types.UID, node string) (answer *reprieveAnswer, at int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.nodes[node]
	if n == nil || n.changes != m.changes[node] {
		return nil, 0
	}
	at = n.next
	if len(n.answers) > 0 && n.answers[0].pod == pod {
		// The node's first pod: a new step.
		at = 0
	}
	n.next = at + 1
	if at < len(n.answers) && n.answers[at].pod == pod {
		return &n.answers[at], at
	}
	return nil, at
}

// keep stores the pod's answer at its place; the answers after it, found
// beside another answer, go. An answer that may not hold still (keeps
// false) is not stored, and neither are those after it.
func (m *reprieveMemo) keep(node string, at int, answer reprieveAnswer, keeps bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.nodes == nil {
		m.nodes = map[string]*nodeReprieve{}
	}
	n := m.nodes[node]
	if n == nil || n.changes != m.changes[node] {
		n = &nodeReprieve{changes: m.changes[node]}
		m.nodes[node] = n
		at = 0
	}
	n.next = at + 1
	if at > len(n.answers) {
		return
	}
	n.answers = n.answers[:at]
	if keeps {
		n.answers = append(n.answers, answer)
	}
}

// fitInRerun is Filter's claimsFitter in a pod group preemption's re-run:
// fitClaims, and fitGangReprieve once DefaultPreemption gives victims
// back.
func (pl *DRAAllocator) fitInRerun(ctx context.Context, cs fwk.CycleState, s *stateData, d *dryRun, pod *v1.Pod, nodeInfo fwk.NodeInfo, claims []*resourceapi.ResourceClaim, start time.Time) *fwk.Status {
	if s.gangPreemption.inReprieve() {
		return pl.fitGangReprieve(ctx, cs, s, d, pod, nodeInfo, claims)
	}
	return pl.fitClaims(ctx, cs, s, d, pod, nodeInfo, claims, start)
}

// fitGangReprieve is Filter's answer for a pod of the group once
// DefaultPreemption gives victims back: whether its claims fit on the
// node over the devices allocated and in flight now, with what the
// victims still removed free, and what the group's pods given room
// earlier in this step hold (reprieveHolds) and pods nominated to the
// node take. The
// devices it finds are the ones Reserve takes. Without pods nominated to
// the node, the node's last answer for the pod is given again while it
// holds still (reprieveMemo).
func (pl *DRAAllocator) fitGangReprieve(ctx context.Context, cs fwk.CycleState, s *stateData, d *dryRun, pod *v1.Pod, nodeInfo fwk.NodeInfo, claims []*resourceapi.ResourceClaim) *fwk.Status {
	logger := klog.FromContext(ctx)
	node := nodeInfo.Node()
	var reprieved, added map[types.UID]*v1.Pod
	if d != nil {
		reprieved, added = d.reprieved, d.added
	}
	g := s.gangPreemption
	memo := len(added) == 0
	at := 0
	if memo {
		var answer *reprieveAnswer
		if answer, at = g.memo.recall(pod.UID, node.Name); answer != nil {
			return pl.reprieveAnswered(logger, s, pod, node, answer.results)
		}
	}
	givenBack := func(uid types.UID) bool { _, ok := reprieved[uid]; return ok }
	unrestricted := g.allocOn(pl.newAllocator(), node.Name, givenBack, g.holds.allocations())
	take, preempting := pl.nominatedDevices(ctx, unrestricted, added, nil, nodeInfo)
	if preempting != nil {
		return nodeUnresolvable(logger, fmt.Sprintf("node %s is held for pod %s, nominated there, whose preemption is under way", node.Name, klog.KObj(preempting)), pod, node)
	}
	alloc := pl.keptToAttributeDomain(cs, unrestricted).WhatIf(allocator.WhatIf{Take: take})
	results, err := alloc.AllocateWithin(ctx, node, claims, pl.filterTimeout())
	if err != nil {
		results = nil
	}
	if memo {
		// Devices another node's pod can take too (network-attached ones)
		// may not hold still: the other node's answers change apart.
		// A pod that does not fit ends the step; it is asked again.
		g.memo.keep(node.Name, at, reprieveAnswer{pod: pod.UID, results: results}, results != nil && onlyOnNode(pl.feed.inv, node.Name, results))
	}
	return pl.reprieveAnswered(logger, s, pod, node, results)
}

// reprieveAnswered is Filter's status for the devices a reprieve found
// (none: nil), kept for Reserve.
func (pl *DRAAllocator) reprieveAnswered(logger klog.Logger, s *stateData, pod *v1.Pod, node *v1.Node, results []resourceapi.AllocationResult) *fwk.Status {
	if results == nil {
		// Nobody reads why: DefaultPreemption only tells whether a
		// reprieved victim still leaves room.
		return nodeUnresolvable(logger, reprieveReason, pod, node)
	}
	s.keepFound(node.Name, results)
	return nil
}

// onlyOnNode reports whether every device of results is one of node's own
// (its slices name it).
func onlyOnNode(inv *inventory.Inventory, node string, results []resourceapi.AllocationResult) bool {
	for _, r := range results {
		for _, d := range r.Devices.Results {
			devices := inv.LookupID(structured.MakeDeviceID(d.Driver, d.Pool, d.Device))
			if len(devices) == 0 {
				return false
			}
			for _, dev := range devices {
				if name := dev.Slice.Obj.Spec.NodeName; name == nil || *name != node {
					return false
				}
			}
		}
	}
	return true
}
