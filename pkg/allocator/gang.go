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

package allocator

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// GangMember is one pod of a gang whose devices are planned jointly: the
// claims it still needs allocated and the nodes it may go to.
type GangMember struct {
	// Name is the caller's key for the member, unique within the gang:
	// GangPlan.Nodes maps it to the member's node. The allocator only
	// compares it; the scheduler plugin passes the pod's UID, kubectl dra
	// explain the pod's name.
	Name string
	// Claims are the member's own claims to allocate. A claim shared with
	// another member must not be among them: each member's claims are
	// allocated once per member.
	Claims []*resourceapi.ResourceClaim
	// Class groups interchangeable members: members of one class must
	// have claims of the same specs and the same Nodes. The search places
	// a class's members in node order, which keeps it from trying every
	// ordering of identical pods.
	Class string
	// Nodes are the nodes the member may go to, most preferred first.
	Nodes []*v1.Node
}

// GangPod is a pod of a group, as the callers of PlanGang see it.
type GangPod struct {
	// Name becomes the member's Name (see GangMember.Name).
	Name string
	// Claims are the pod's claims still to allocate, shared ones included.
	Claims []*resourceapi.ResourceClaim
	// Nodes are the nodes the pod may go to whatever its devices.
	Nodes []*v1.Node
}

// GangMembers turns a group's pods into plan members, in the order given.
// A claim several pods have (a PodGroup's) is left out of every member:
// it is allocated once, for all of them. A pod left with no claim is no
// member: withoutDevices counts those, which fit wherever they go.
func GangMembers(pods []GangPod) (members []GangMember, withoutDevices int) {
	users := map[string]int{}
	for _, p := range pods {
		for _, c := range p.Claims {
			users[c.Namespace+"/"+c.Name]++
		}
	}
	for _, p := range pods {
		var own []*resourceapi.ResourceClaim
		for _, c := range p.Claims {
			if users[c.Namespace+"/"+c.Name] == 1 {
				own = append(own, c)
			}
		}
		if len(own) == 0 {
			withoutDevices++
			continue
		}
		members = append(members, GangMember{Name: p.Name, Claims: own, Class: gangClass(own, p.Nodes), Nodes: p.Nodes})
	}
	return members, withoutDevices
}

// gangClass is a Class for a member with these claims and eligible nodes:
// members whose claims have the same specs and who may go to the same
// nodes are interchangeable. The nodes stand for every constraint that
// decides them (node selector, affinity, tolerations, allocated claims).
func gangClass(claims []*resourceapi.ResourceClaim, nodes []*v1.Node) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, c := range claims {
		_ = enc.Encode(c.Spec)
	}
	h := sha256.New()
	for _, n := range nodes {
		h.Write([]byte(n.Name))
		h.Write([]byte{0})
	}
	b.WriteString(hex.EncodeToString(h.Sum(nil)))
	return b.String()
}

// GangPlan assigns gang members to nodes such that, on every node, the
// claims of all the members assigned there allocate together.
type GangPlan struct {
	// Nodes maps each placed member's Name to its node.
	Nodes map[string]string
	// Complete reports whether every member is placed.
	Complete bool
	// Exhausted reports that the search ran out of its budget: a plan
	// that is not complete may then exist all the same.
	Exhausted bool
	// Allocations counts the allocator calls the search made.
	Allocations int
}

// defaultGangBudget is the allocator calls PlanGang makes at most.
const defaultGangBudget = 20000

// PlanGang searches for an assignment of every member to one of its nodes
// such that on each node the members' claims fit together (one Fits over
// all their claims, so firstAvailable alternatives, shared counters,
// constraints and capacity are decided jointly). Classes are placed largest
// demand first; members of one class in non-decreasing node order; a
// class that cannot all be placed even one after another on the nodes'
// remaining room ends that branch. The search is exhaustive within budget
// allocator calls (defaultGangBudget when budget is 0). Without a
// complete assignment the plan places what a single first-fit pass can.
// Errors are the allocator's (a claim that cannot be allocated anywhere
// for reasons of its own) or ctx's.
func (a *Allocator) PlanGang(ctx context.Context, members []GangMember, budget int) (GangPlan, error) {
	if budget <= 0 {
		budget = defaultGangBudget
	}
	if a.cross != nil {
		members = a.crossClassed(members)
	}
	g := &gangSearch{a: a, ctx: ctx, budget: budget, members: orderMembers(members),
		fitMemo: map[string]bool{}, claimSets: map[string][]*resourceapi.ResourceClaim{}, onNode: map[string][]int{}}
	g.at = make([]int, len(g.members))
	complete := g.place(0)
	if g.err != nil {
		return GangPlan{}, g.err
	}
	if !complete {
		g.firstFitPass()
		if g.err != nil {
			return GangPlan{}, g.err
		}
	}
	plan := GangPlan{Nodes: map[string]string{}, Complete: complete, Exhausted: g.exhausted, Allocations: g.calls}
	for i, m := range g.members {
		if g.at[i] >= 0 {
			plan.Nodes[m.Name] = m.Nodes[g.at[i]].Name
		}
	}
	return plan, nil
}

// orderMembers sorts members by class, classes of most requested devices
// first, then by class name; members of a class keep their order.
func orderMembers(members []GangMember) []GangMember {
	demand := map[string]int64{}
	for _, m := range members {
		if _, ok := demand[m.Class]; !ok {
			demand[m.Class] = requestedDevices(m.Claims)
		}
	}
	out := slices.Clone(members)
	slices.SortStableFunc(out, func(x, y GangMember) int {
		if c := cmp.Compare(demand[y.Class], demand[x.Class]); c != 0 {
			return c
		}
		return cmp.Compare(x.Class, y.Class)
	})
	return out
}

// requestedDevices adds up the devices the claims ask for: exact counts,
// one for All (its size is the node's), the first subrequest's count for
// firstAvailable.
func requestedDevices(claims []*resourceapi.ResourceClaim) int64 {
	var n int64
	for _, c := range claims {
		for _, r := range c.Spec.Devices.Requests {
			switch {
			case r.Exactly != nil && r.Exactly.AllocationMode == resourceapi.DeviceAllocationModeExactCount:
				n += r.Exactly.Count
			case len(r.FirstAvailable) > 0 && r.FirstAvailable[0].AllocationMode == resourceapi.DeviceAllocationModeExactCount:
				n += r.FirstAvailable[0].Count
			default:
				n++
			}
		}
	}
	return n
}

// gangSearch is one PlanGang's depth-first search.
type gangSearch struct {
	a       *Allocator
	ctx     context.Context
	members []GangMember
	// at is each member's node, an index into its Nodes; -1 unplaced.
	at []int
	// onNode lists the members placed on each node, in member order.
	onNode map[string][]int
	// fitMemo answers "do these classes fit together on this node?",
	// keyed by node and the classes' multiset: members of a class are
	// interchangeable.
	fitMemo map[string]bool
	// claimSets keeps one claims slice per multiset of classes, so the
	// allocator prepares it once for all nodes.
	claimSets map[string][]*resourceapi.ResourceClaim

	calls, budget int
	exhausted     bool
	err           error
}

// place places members[i:], reporting whether all found room.
func (g *gangSearch) place(i int) bool {
	if i == len(g.members) {
		return true
	}
	m := g.members[i]
	start := 0
	runStart := i > 0 && g.members[i-1].Class != m.Class || i == 0
	if !runStart {
		start = g.at[i-1]
	} else if !g.classFitsOneByOne(i) {
		return false
	}
	for j := start; j < len(m.Nodes); j++ {
		fits := g.fitsWith(m.Nodes[j], i)
		if g.stopped() {
			return false
		}
		if !fits {
			continue
		}
		g.put(i, j)
		if g.place(i + 1) {
			return true
		}
		g.remove(i)
		if g.stopped() {
			return false
		}
	}
	g.at[i] = -1
	return false
}

// classFitsOneByOne reports whether the run of members of members[i]'s
// class, starting at i, can all be placed given the members before i,
// each on the first node with room: for interchangeable members that
// pass places as many as any arrangement can, so a shortfall ends the
// branch. It leaves no member placed.
func (g *gangSearch) classFitsOneByOne(i int) bool {
	class := g.members[i].Class
	var placed []int
	defer func() {
		for _, k := range slices.Backward(placed) {
			g.remove(k)
		}
	}()
	j := 0
	for k := i; k < len(g.members) && g.members[k].Class == class; k++ {
		nodes := g.members[k].Nodes
		for ; j < len(nodes); j++ {
			fits := g.fitsWith(nodes[j], k)
			if g.stopped() {
				return false
			}
			if fits {
				break
			}
		}
		if j == len(nodes) {
			return false
		}
		g.put(k, j)
		placed = append(placed, k)
	}
	return true
}

// firstFitPass places, in order, every member it can on its first node
// with room, keeping nothing of the failed search: a partial plan.
func (g *gangSearch) firstFitPass() {
	for i := range g.members {
		g.at[i] = -1
	}
	g.onNode = map[string][]int{}
	g.liftBudget()
	for i, m := range g.members {
		for j, node := range m.Nodes {
			fits := g.fitsWith(node, i)
			if g.err != nil {
				return
			}
			if fits {
				g.put(i, j)
				break
			}
		}
	}
}

// liftBudget lifts the budget for the first-fit pass, which makes at
// most one call per member and node; Exhausted still tells that the
// search ran out.
func (g *gangSearch) liftBudget() {
	g.budget = g.calls + 1<<30
}

// put places member i on its node j.
func (g *gangSearch) put(i, j int) {
	g.at[i] = j
	name := g.members[i].Nodes[j].Name
	g.onNode[name] = append(g.onNode[name], i)
}

// remove unplaces member i, the last placed on its node.
func (g *gangSearch) remove(i int) {
	name := g.members[i].Nodes[g.at[i]].Name
	on := g.onNode[name]
	g.onNode[name] = on[:len(on)-1]
	g.at[i] = -1
}

// stopped reports whether the search must end: out of budget, or an error.
func (g *gangSearch) stopped() bool { return g.exhausted || g.err != nil }

// fitsWith reports whether member i fits on node beside the members
// placed there.
func (g *gangSearch) fitsWith(node *v1.Node, i int) bool {
	members := append(slices.Clone(g.onNode[node.Name]), i)
	key := g.classKey(members)
	memoKey := node.Name + "\x00" + key
	if fits, ok := g.fitMemo[memoKey]; ok {
		return fits
	}
	if g.calls >= g.budget {
		g.exhausted = true
		return false
	}
	if err := g.ctx.Err(); err != nil {
		g.err = err
		return false
	}
	claims, ok := g.claimSets[key]
	if !ok {
		for _, k := range members {
			claims = append(claims, g.members[k].Claims...)
		}
		g.claimSets[key] = claims
	}
	g.calls++
	fits, err := g.a.Fits(g.ctx, node, claims)
	if err != nil {
		g.err = fmt.Errorf("node %s, members %s: %w", node.Name, g.names(members), err)
		return false
	}
	g.fitMemo[memoKey] = fits
	return fits
}

// classKey is the multiset of the members' classes, in member order
// (members are sorted by class, and each node's list is in member order).
func (g *gangSearch) classKey(members []int) string {
	var b strings.Builder
	for _, k := range members {
		b.WriteString(strconv.Itoa(len(g.members[k].Class)))
		b.WriteByte(':')
		b.WriteString(g.members[k].Class)
	}
	return b.String()
}

func (g *gangSearch) names(members []int) string {
	names := make([]string, len(members))
	for i, k := range members {
		names[i] = g.members[k].Name
	}
	return strings.Join(names, ", ")
}
