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
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// A pod's side of its group's plan (gangplan.go): the siblings the plan
// puts on a node beside it, which Filter fits its claims with and Score
// and Reserve read, the node Score prefers, and the trial's placed
// members.

// gangMember is a pod's place in its placement's plan (stateData.gang).
type gangMember struct {
	plan *gangPlan
	uid  types.UID
}

// siblingsOn returns the claims of the members the plan puts on node,
// other than m and not placed yet, and how many members they are.
func (m *gangMember) siblingsOn(node string) (claims []*resourceapi.ResourceClaim, members int) {
	if m == nil {
		return nil, 0
	}
	p := m.plan
	p.mu.RLock()
	defer p.mu.RUnlock()
	for _, uid := range p.onNode[node] {
		if uid != m.uid && !p.placed[uid] {
			claims = append(claims, p.claims[uid]...)
			members++
		}
	}
	return claims, members
}

// setPlaced marks the member placed or not in the cycle's trial.
func (m *gangMember) setPlaced(placed bool) {
	if m == nil {
		return
	}
	m.plan.mu.Lock()
	defer m.plan.mu.Unlock()
	if placed {
		m.plan.placed[m.uid] = true
	} else {
		delete(m.plan.placed, m.uid)
	}
}

// plannedNode returns the node the plan puts the member on, "" when it
// has none (or m is nil).
func (m *gangMember) plannedNode() string {
	if m == nil {
		return ""
	}
	return m.plan.planned[m.uid] // written before the plan is shared
}

// preferPlannedNode makes the planned node win a tie for the best
// normalized score: one point above the nodes it ties with, or those one
// point below it when it has the maximum already. A node that scores
// higher keeps winning — Score ranks the devices a pod gets on each node,
// the plan's joint ones on its planned node, so a node where the pod
// keeps a better preference wins — and a planned node below the best is
// left alone, so that no node is raised to tie with a better one.
func preferPlannedNode(scores fwk.NodeScoreList, planned string) {
	i := slices.IndexFunc(scores, func(s fwk.NodeScore) bool { return s.Name == planned })
	if i < 0 {
		return
	}
	own, tied := scores[i].Score, false
	for j, s := range scores {
		if j != i && s.Score > own {
			return
		}
		tied = tied || (j != i && s.Score == own)
	}
	switch {
	case !tied:
	case own < fwk.MaxNodeScore:
		scores[i].Score++
	default:
		for j := range scores {
			if j != i && scores[j].Score == own {
				scores[j].Score--
			}
		}
	}
}

// fitBesideSiblings is Filter's answer for a pod of a planned group on a
// node the plan puts siblings on: the pod's claims must fit together with
// theirs. decided is false where the plan has no say (no plan, no sibling
// planned there, or an error the plain check reports the same way).
func (pl *DRAAllocator) fitBesideSiblings(ctx context.Context, s *stateData, pod *v1.Pod, node *v1.Node, claims []*resourceapi.ResourceClaim, timeout time.Duration) (_ *fwk.Status, decided bool) {
	siblings, n := s.gang.siblingsOn(node.Name)
	if n == 0 {
		return nil, false
	}
	// The devices, not only whether they fit: the joint search is the
	// expensive part, and Score and Reserve read the pod's share from the
	// cache instead of searching again.
	_, fit, err := s.searchDevices(ctx, node, claims, siblings, timeout)
	if err != nil {
		// The plain check reports it (an invalid pool, a time-out), for
		// the pod's claims alone.
		return nil, false
	}
	if fit {
		return nil, true
	}
	// Would the pod fit alone? Then the node is only kept for the plan.
	alone, err := s.alloc.FitsWithin(ctx, node, claims, timeout)
	if err != nil || !alone {
		return nil, false
	}
	klog.FromContext(ctx).V(5).Info("Node kept for the pod group's plan", "pod", klog.KObj(pod), "node", klog.KObj(node), "siblings", n)
	return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("node %s is planned for %d other %s of pod group %s, whose devices would not fit beside this pod's",
		node.Name, n, pluralPods(n), s.gang.plan.group)), true
}

func pluralPods(n int) string {
	if n == 1 {
		return "pod"
	}
	return "pods"
}
