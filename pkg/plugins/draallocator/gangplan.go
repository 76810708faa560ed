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
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodecheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// Gangs planned jointly (issue 32, docs/design/gang-allocation.md). In a
// pod-group cycle kube-scheduler places the group's pods one at a time;
// allocating each pod's most preferred devices can strand a sibling (one
// GPU as one whole device or two halves: the first pod takes the whole).
// The first PreFilter of a placement plans the group: allocator.PlanGang
// assigns the group's unscheduled pods to nodes so that, on each node, the
// claims of the pods assigned there fit together. Filter then allocates a
// pod's claims jointly with those of the siblings the plan puts on the
// node and not placed yet (the pod's first, so it keeps its preference
// where that leaves room), and rejects a node where they would not fit
// beside it; the rest of the plan stays feasible whichever node passing
// Filter the framework picks. Reserve and Unreserve of the cycle's trial
// mark pods placed and unplaced.

// gangPlanKey is where a placement's plan lives in its placement cycle
// state (topology-aware scheduling tries several placements in one
// pod-group cycle, each with a state of its own).
const gangPlanKey fwk.StateKey = Name + "/gang-plan"

// gangPlan is one placement's plan. Filter reads it concurrently; the
// cycle's Reserve and Unreserve write it.
type gangPlan struct {
	// group names the PodGroup, for messages.
	group string
	// planned maps members to their node; claims are each member's
	// claims the plan allocates.
	planned map[types.UID]string
	claims  map[types.UID][]*resourceapi.ResourceClaim
	// onNode lists the members planned on each node, by UID: Filter asks
	// on every node.
	onNode map[string][]types.UID
	// short, when set, is why the group cannot run: the plan places fewer
	// pods than the PodGroup's minCount.
	short string
	// domain is the placement's topology domain (zero without a topology
	// constraint); answer is what the plan found there.
	domain topologyDomain
	answer string
	// choice is the value the plan chose for the group's match across
	// nodes (deviceconstraintsgroup.go); nil for none.
	choice *groupMatchChoice

	mu sync.RWMutex
	// placed are the members the cycle placed (trial-reserved).
	placed map[types.UID]bool
}

// Clone returns the same plan: the placement's pods share it.
func (p *gangPlan) Clone() fwk.StateData { return p }

// joinGangPlan gives the pod of a pod-group cycle its place in the
// placement's plan, planning the group at the placement's first pod. A
// status fails the pod: the group cannot place enough pods' devices.
func (pl *DRAAllocator) joinGangPlan(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, s *stateData) *fwk.Status {
	gcs := cs.GetPodGroupSchedulingCycle()
	if gcs == nil || pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil || len(s.toAllocateClaims) == 0 {
		return nil
	}
	logger := klog.FromContext(ctx)
	store := planStore(cs)
	plan, err := stateAs[*gangPlan](store.Read(gangPlanKey))
	if err != nil && !errors.Is(err, fwk.ErrNotFound) {
		return statusError(logger, err)
	}
	if plan == nil {
		if plan, err = pl.planGang(ctx, cs, pod, s); err != nil {
			return statusError(logger, err)
		}
		store.Write(gangPlanKey, plan)
		recordDomain(gcs, plan)
	}
	if plan.short != "" {
		return statusUnresolvable(logger, plan.short, "pod", klog.KObj(pod))
	}
	s.takePlanChoice(plan.choice)
	s.gang = &gangMember{plan: plan, uid: pod.UID}
	return nil
}

// stateStore is a cycle state a plan can be kept in.
type stateStore interface {
	Read(key fwk.StateKey) (fwk.StateData, error)
	Write(key fwk.StateKey, val fwk.StateData)
}

// planStore is where the plan of the pod's placement lives: the placement
// cycle state, which kube-scheduler makes anew for every placement it
// tries and keeps with the pods' states to the commit; the pod-group
// cycle state only where a cycle has no placement state.
func planStore(cs fwk.CycleState) stateStore {
	if p := cs.GetPlacementCycleState(); p != nil {
		return p
	}
	return cs.GetPodGroupSchedulingCycle()
}

// placementLister is kube-scheduler's snapshot as the pod-group cycle
// sees it: restricted to the nodes of the placement being tried.
// PreFilter's node list is every node; Filter only sees these.
type placementLister interface {
	ListNodesInPlacement() ([]fwk.NodeInfo, error)
}

// placementNodes lists the nodes of the placement being tried, or every
// node of the snapshot where it cannot tell (no placement: the same).
func placementNodes(lister fwk.SharedLister) ([]fwk.NodeInfo, error) {
	if p, ok := lister.(placementLister); ok {
		return p.ListNodesInPlacement()
	}
	return lister.NodeInfos().List()
}

// currentPlacement is kube-scheduler's snapshot telling the placement
// being tried (nil: none, or one of every node).
type currentPlacement interface {
	GetPlacement() *fwk.Placement
}

// topologyDomain is the domain of a group's topology constraint that a
// placement is tried in: the constraint's key and the domain's value (the
// placement's name). The zero value is none: no topology constraint.
type topologyDomain struct{ key, value string }

// String is the domain as messages name it: "rack=r1".
func (d topologyDomain) String() string { return d.key + "=" + d.value }

// placementDomain returns the domain being tried for a group with a
// topology constraint; the zero topologyDomain otherwise. Placements are
// named for their domain's value (ours and upstream's generator's).
func placementDomain(pg *schedulingapi.PodGroup, lister fwk.SharedLister) topologyDomain {
	c := pg.Spec.SchedulingConstraints
	p, ok := lister.(currentPlacement)
	if c == nil || len(c.Topology) == 0 || !ok || p.GetPlacement() == nil || p.GetPlacement().Name == "" {
		return topologyDomain{}
	}
	return topologyDomain{key: c.Topology[0].Key, value: p.GetPlacement().Name}
}

// nodeObjects returns the nodes of infos.
func nodeObjects(infos []fwk.NodeInfo) []*v1.Node {
	nodes := make([]*v1.Node, 0, len(infos))
	for _, ni := range infos {
		nodes = append(nodes, ni.Node())
	}
	return nodes
}

// planGang plans the pod's group over the nodes of the placement being
// tried with the pod's allocator (every allocation and in-flight one the
// pod sees), within what is left of the pod-group cycle's budget
// (groupbudget.go); in a pod group preemption's re-run, over the devices
// free now first (planFreeFirst).
func (pl *DRAAllocator) planGang(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, s *stateData) (*gangPlan, error) {
	logger := klog.FromContext(ctx)
	name := *pod.Spec.SchedulingGroup.PodGroupName
	lister := pl.handle.SnapshotSharedLister()
	plan := &gangPlan{group: pod.Namespace + "/" + name,
		planned: map[types.UID]string{}, claims: map[types.UID][]*resourceapi.ResourceClaim{}, onNode: map[string][]types.UID{},
		placed: map[types.UID]bool{}}
	pods := map[types.UID]*v1.Pod{pod.UID: pod}
	// Pods of the group scheduled already (bound, assumed, or reserved
	// earlier in this placement's trial) count toward its minCount; they
	// are not members of the plan.
	scheduled := 0
	if state, err := lister.PodGroupStates().Get(pod.Namespace, name); err == nil {
		for _, p := range state.UnscheduledPods() {
			pods[p.UID] = p
		}
		scheduled = state.ScheduledPodsCount()
	}
	nodeInfos, err := placementNodes(lister)
	if err != nil {
		return nil, fmt.Errorf("list the placement's nodes: %w", err)
	}
	nodes := nodeObjects(nodeInfos)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	if s.gangPreemption != nil {
		// Over the devices as they are, without the removed pods' freed.
		orderForFewestVictims(pl.newAllocator(), nodes)
	} else {
		pl.orderForPlan(s.alloc, nodes)
	}

	members, withoutDevices, err := pl.gangMembers(pods, pod, s, nodes)
	if err != nil {
		return nil, fmt.Errorf("plan the devices of pod group %s: %w", plan.group, err)
	}
	planCtx, cancel, budget := pl.groupPlanContext(ctx, cs.GetPodGroupSchedulingCycle())
	defer cancel()
	result, choice, err := pl.planGroupDevices(s, pods, nodes, func(alloc *allocator.Allocator) (allocator.GangPlan, error) {
		if s.gangPreemption != nil {
			return planFreeFirst(planCtx, pl.freeNow(cs), alloc, members)
		}
		return alloc.PlanGang(planCtx, members, 0)
	})
	plan.choice = choice
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		plan.short = fmt.Sprintf("pod group %s: planning its devices took longer than the %v allowed (groupPlanTimeout) in this attempt; it is tried again later",
			plan.group, budget)
		plan.answer = fmt.Sprintf("planning ran out of the %v allowed (groupPlanTimeout)", budget)
		logger.V(2).Info("Ran out of time planning a pod group's devices", "podGroup", plan.group, "members", len(members), "budget", budget)
		return plan, nil
	}
	if err != nil {
		return nil, fmt.Errorf("plan the devices of pod group %s: %w", plan.group, err)
	}
	// Members of one class go next to each other on a node: their claims
	// are then twins in Filter's joint call (pkg/allocator/twins.go).
	slices.SortStableFunc(members, func(a, b allocator.GangMember) int { return strings.Compare(a.Class, b.Class) })
	for _, m := range members {
		uid := types.UID(m.Name)
		plan.claims[uid] = m.Claims
		if node, ok := result.Nodes[m.Name]; ok {
			plan.planned[uid] = node
			plan.onNode[node] = append(plan.onNode[node], uid)
		}
	}
	// A gang needs its minCount; pods of another group run on their own.
	need, domain := 1, topologyDomain{}
	if pg, err := lister.PodGroups().Get(pod.Namespace, name); err == nil {
		if pg.Spec.SchedulingPolicy.Gang != nil {
			need = max(int(pg.Spec.SchedulingPolicy.Gang.MinCount)-scheduled, 0)
		}
		domain = placementDomain(pg, lister)
	}
	needs := fmt.Sprintf("it needs %d", need)
	if scheduled > 0 {
		needs = fmt.Sprintf("it needs %d besides its %d scheduled", need, scheduled)
	}
	plan.domain = domain
	got := len(result.Nodes) + withoutDevices
	plan.answer = fmt.Sprintf("the devices of %d of its pods fit together (%s), %s", got, plannedPerNode(result.Nodes), needs)
	if got < need {
		group := plan.group
		if domain != (topologyDomain{}) {
			group += " in " + domain.String()
		}
		plan.short = fmt.Sprintf("pod group %s: the devices of only %d of its pods fit together (%s), %s",
			group, got, plannedPerNode(result.Nodes), needs)
	}
	logger.V(4).Info("Planned the devices of a pod group", "podGroup", plan.group, "members", len(members),
		"placed", len(result.Nodes), "complete", result.Complete, "budgetExhausted", result.Exhausted, "allocations", result.Allocations)
	return plan, nil
}

// gangMembers returns the group's pods as plan members (identified by
// UID, in UID order; allocator.GangMembers leaves out claims several pods
// share) and counts those that need no devices. The pod's own claims to
// allocate are s's; a sibling's are its claims not allocated and not in
// flight. A pod's nodes are those nodecheck lets it use, its allocated
// claims' included.
func (pl *DRAAllocator) gangMembers(pods map[types.UID]*v1.Pod, pod *v1.Pod, s *stateData, nodes []*v1.Node) (members []allocator.GangMember, withoutDevices int, err error) {
	var gang []allocator.GangPod
pods:
	for uid, p := range pods {
		all := s.claimObjects()
		if uid != pod.UID {
			if all, err = pl.podClaims(p); err != nil {
				// The pod's own PreFilter will say what is missing;
				// the plan goes on without it.
				continue
			}
		}
		check := nodecheck.New(p, nodecheck.Features{TolerationComparisonOperators: pl.gates.EnableTaintTolerationComparisonOperators})
		var claims []*resourceapi.ResourceClaim
		for _, c := range all {
			if a := pl.allocationOf(c); a != nil {
				if err := check.AddAllocation(c.Namespace+"/"+c.Name, a); err != nil {
					if uid == pod.UID {
						return nil, 0, fmt.Errorf("pod %s: %w", klog.KObj(p), err)
					}
					continue pods // as above: that pod's own cycle fails
				}
			} else if uid != pod.UID {
				claims = append(claims, c)
			}
		}
		if uid == pod.UID {
			claims = s.toAllocateClaims
		}
		gang = append(gang, allocator.GangPod{Name: string(uid), Claims: claims, Nodes: check.Eligible(nodes)})
	}
	slices.SortFunc(gang, func(a, b allocator.GangPod) int { return strings.Compare(a.Name, b.Name) })
	members, withoutDevices = allocator.GangMembers(gang)
	return members, withoutDevices, nil
}

// orderForPlan sorts nodes (in name order) in the order the scoring
// strategy would rank them for a pod alone, so that the plan puts the
// group where Score would: MostAllocated the fullest nodes first (by the
// share of their devices in use), LeastAllocated the emptiest. With
// FirstAvailable, which ranks the alternatives a pod gets, names decide:
// the joint check on each node already gives each pod its best
// alternative that strands no sibling.
func (pl *DRAAllocator) orderForPlan(a *allocator.Allocator, nodes []*v1.Node) {
	strategy := pl.args.ScoringStrategy.Type
	if strategy != config.MostAllocated && strategy != config.LeastAllocated {
		return
	}
	share := make(map[string]float64, len(nodes))
	for _, n := range nodes {
		if used, total := a.Occupancy([]*v1.Node{n}, nil); total > 0 {
			share[n.Name] = float64(used) / float64(total)
		}
	}
	slices.SortStableFunc(nodes, func(x, y *v1.Node) int {
		if strategy == config.MostAllocated {
			return cmp.Compare(share[y.Name], share[x.Name])
		}
		return cmp.Compare(share[x.Name], share[y.Name])
	})
}

// plannedPerNode reads like "node-a 2, node-b 1", or "no node".
func plannedPerNode(nodes map[string]string) string {
	count := map[string]int{}
	for _, n := range nodes {
		count[n]++
	}
	if len(count) == 0 {
		return "no node"
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, count[n])
	}
	return strings.Join(parts, ", ")
}
