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

package explain

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/podshape"
)

// Gang is the answer for the pod's PodGroup: DRAAllocator places a
// group's pods in one cycle, their devices planned jointly
// (allocator.PlanGang), and only if at least the group's minCount fit.
type Gang struct {
	// Group is the PodGroup, namespace/name.
	Group string `json:"group"`
	// Pending counts the group's pods not bound, the asked pod included.
	Pending int `json:"pending"`
	// Need is how many of them must fit: the gang's minCount, or one.
	Need int `json:"need"`
	// Fit is how many fit together: pods whose devices the plan places,
	// plus pods that need no devices.
	Fit int `json:"fit"`
	// Nodes says where the plan puts pods with devices ("node-a 2").
	Nodes []string `json:"nodes,omitempty"`
	// Key is the node label of the group's topology constraint, if it
	// has one: all its pods go to one domain (one value of the label).
	// Fit and Nodes are then the best domain's.
	Key string `json:"key,omitempty"`
	// Domains are the answers per domain of Key the group may go to (the
	// domain of its bound pods only, if it has some), by name.
	Domains []Domain `json:"domains,omitempty"`
	// Preemption is what pod group preemption would do when the group
	// cannot run now.
	Preemption *GangPreemption `json:"preemption,omitempty"`
}

// Domain is the answer for one domain of a group's topology constraint:
// its pods' devices planned over the domain's nodes only.
type Domain struct {
	// Name is the domain, the label's value.
	Name string `json:"name"`
	// Fit and Nodes are Gang's, in this domain.
	Fit   int      `json:"fit"`
	Nodes []string `json:"nodes,omitempty"`
}

// Runs reports whether enough of the group's pods fit together.
func (g *Gang) Runs() bool { return g.Fit >= g.Need }

// gang plans the devices of pod's group, pod's claims being q's; nil when
// the pod belongs to no PodGroup that the input holds.
func (c *Cluster) gang(ctx context.Context, pod *v1.Pod, q question) (*Gang, error) {
	sg := pod.Spec.SchedulingGroup
	if sg == nil || sg.PodGroupName == nil {
		return nil, nil
	}
	name := *sg.PodGroupName
	g := &Gang{Group: pod.Namespace + "/" + name}
	var pods []allocator.GangPod
	for _, p := range c.groupPods(pod.Namespace, name) {
		g.Pending++
		claims, nc := q.claims, q.nodeCheck
		if p != pod {
			resolved, problems := c.podClaims(p)
			if len(problems) > 0 {
				// The scheduler does not try such a pod: it does not fit.
				continue
			}
			var err error
			if nc, err = podshape.NodeCheck(p, resolved, c.settings.NodeChecks); err != nil {
				return nil, err
			}
			claims = nil
			for _, cl := range resolved {
				if cl.ToAllocate() {
					claims = append(claims, cl.Object)
				}
			}
		}
		pods = append(pods, allocator.GangPod{Name: p.Name, Claims: claims, Nodes: nc.Eligible(c.snap.Nodes())})
	}
	// A gang needs its minCount; pods of another group run on their own.
	g.Need = 1
	pg := c.podGroup(pod.Namespace, name)
	if pg != nil && pg.Spec.SchedulingPolicy.Gang != nil {
		// Its bound pods count toward minCount, as the scheduler counts
		// them.
		g.Need = max(int(pg.Spec.SchedulingPolicy.Gang.MinCount)-c.boundPods(pod.Namespace, name), 0)
	}
	if pg != nil && pg.Spec.SchedulingConstraints != nil && len(pg.Spec.SchedulingConstraints.Topology) > 0 {
		g.Key = pg.Spec.SchedulingConstraints.Topology[0].Key
		domains := c.domains(g.Key, pod.Namespace, name)
		if len(domains) == 0 && strings.Contains(g.Key, "/") {
			domains = c.attributeDomains(g.Key)
		}
		var preemptIn []gangDomain
		for _, d := range domains {
			gd := gangDomain{name: g.Key + "=" + d.name, nodes: d.nodes}
			if d.attribute {
				var nodes []*v1.Node
				for _, n := range c.snap.Nodes() {
					if d.nodes[n.Name] {
						nodes = append(nodes, n)
					}
				}
				gd.keep = func(a *allocator.Allocator) *allocator.Allocator { return a.KeptTo(g.Key, d.name, nodes) }
			}
			alloc := c.allocator(c.snap.State())
			if gd.keep != nil {
				alloc = gd.keep(alloc)
			}
			fit, nodes, err := c.planGang(ctx, alloc, g.Group, pods, d.nodes)
			if err != nil {
				return nil, err
			}
			g.Domains = append(g.Domains, Domain{Name: d.name, Fit: fit, Nodes: nodes})
			if fit > g.Fit || len(g.Domains) == 1 {
				g.Fit, g.Nodes = fit, nodes
			}
			preemptIn = append(preemptIn, gd)
		}
		return g, c.explainGangPreemption(ctx, pod, g, pods, preemptIn)
	}
	var err error
	if g.Fit, g.Nodes, err = c.planGang(ctx, c.allocator(c.snap.State()), g.Group, pods, nil); err != nil {
		return nil, err
	}
	return g, c.explainGangPreemption(ctx, pod, g, pods, []gangDomain{{name: "the cluster"}})
}

// explainGangPreemption sets g's Preemption when the group cannot run.
func (c *Cluster) explainGangPreemption(ctx context.Context, pod *v1.Pod, g *Gang, pods []allocator.GangPod, domains []gangDomain) error {
	if g.Runs() {
		return nil
	}
	var err error
	g.Preemption, err = c.gangPreemption(ctx, pod, g, pods, domains)
	return err
}

// planGang plans the pods' devices with alloc over their eligible nodes
// among within (nil: all): how many fit together, and where ("node-a 2").
func (c *Cluster) planGang(ctx context.Context, alloc *allocator.Allocator, group string, pods []allocator.GangPod, within map[string]bool) (fit int, nodes []string, err error) {
	if within != nil {
		restricted := make([]allocator.GangPod, len(pods))
		for i, p := range pods {
			p.Nodes = slices.DeleteFunc(slices.Clone(p.Nodes), func(n *v1.Node) bool { return !within[n.Name] })
			restricted[i] = p
		}
		pods = restricted
	}
	members, withoutDevices := allocator.GangMembers(pods)
	plan, err := alloc.PlanGang(ctx, members, 0)
	if err != nil {
		return 0, nil, fmt.Errorf("plan the devices of pod group %s: %w", group, err)
	}
	return withoutDevices + len(plan.Nodes), perNode(plan.Nodes), nil
}

// domain is one value of a topology key and the nodes in it; attribute
// when the key is a device attribute, not a node label.
type domain struct {
	name      string
	nodes     map[string]bool
	attribute bool
}

// attributeDomains returns the domains of the device attribute key, by
// name, as the scheduler generates them for a key no node carries as a
// label: a node is in every domain one of its devices is in.
func (c *Cluster) attributeDomains(key string) []domain {
	alloc := c.allocator(c.snap.State())
	byName := map[string]map[string]bool{}
	for _, n := range c.snap.Nodes() {
		for _, v := range alloc.DomainValues(n, key) {
			if byName[v] == nil {
				byName[v] = map[string]bool{}
			}
			byName[v][n.Name] = true
		}
	}
	out := make([]domain, 0, len(byName))
	for name, nodes := range byName {
		out = append(out, domain{name: name, nodes: nodes, attribute: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// domains returns the domains of the node label key, by name, as the
// scheduler generates them: the domain of the group's bound pods only,
// when it has some.
func (c *Cluster) domains(key, namespace, group string) []domain {
	pinned := ""
	for _, p := range c.objs.Pods {
		if p.Spec.NodeName == "" || !memberOf(p, namespace, group) {
			continue
		}
		if n := c.node(p.Spec.NodeName); n != nil {
			pinned = n.Labels[key]
		}
	}
	byName := map[string]map[string]bool{}
	for _, n := range c.snap.Nodes() {
		value, ok := n.Labels[key]
		if !ok || pinned != "" && value != pinned {
			continue
		}
		if byName[value] == nil {
			byName[value] = map[string]bool{}
		}
		byName[value][n.Name] = true
	}
	out := make([]domain, 0, len(byName))
	for name, nodes := range byName {
		out = append(out, domain{name: name, nodes: nodes})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// memberOf reports whether p is a pod of PodGroup namespace/name.
func memberOf(p *v1.Pod, namespace, name string) bool {
	sg := p.Spec.SchedulingGroup
	return p.Namespace == namespace && sg != nil && sg.PodGroupName != nil && *sg.PodGroupName == name
}

// boundPods counts the pods of PodGroup namespace/name that are bound.
func (c *Cluster) boundPods(namespace, name string) int {
	n := 0
	for _, p := range c.objs.Pods {
		if p.Spec.NodeName != "" && memberOf(p, namespace, name) {
			n++
		}
	}
	return n
}

// groupPods returns the pods of PodGroup namespace/name that are not
// bound, by name.
func (c *Cluster) groupPods(namespace, name string) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range c.objs.Pods {
		if p.Spec.NodeName == "" && memberOf(p, namespace, name) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// perNode reads a plan as "node-a 2", one entry per node, by name.
func perNode(plan map[string]string) []string {
	count := map[string]int{}
	for _, n := range plan {
		count[n]++
	}
	out := make([]string, 0, len(count))
	for n, k := range count {
		out = append(out, fmt.Sprintf("%s %d", n, k))
	}
	sort.Strings(out)
	return out
}

// sentence sums the group's answer up.
func (g *Gang) sentence() string {
	if g.Key != "" {
		return g.topologySentence()
	}
	where := "no node"
	if len(g.Nodes) > 0 {
		where = strings.Join(g.Nodes, ", ")
	}
	if !g.Runs() {
		return fmt.Sprintf("its pod group %s cannot run: the devices of only %d of its %d pending pods fit together (%s), it needs %d",
			g.Group, g.Fit, g.Pending, where, g.Need)
	}
	return fmt.Sprintf("its pod group %s fits: the devices of %d of its %d pending pods fit together (%s), it needs %d",
		g.Group, g.Fit, g.Pending, where, g.Need)
}

// topologySentence sums up the answer for a group with a topology
// constraint: each domain tried, and whether one fits.
func (g *Gang) topologySentence() string {
	if len(g.Domains) == 0 {
		return fmt.Sprintf("its pod group %s cannot run: no node carries its topology key %q as a label, and no device as an attribute", g.Group, g.Key)
	}
	parts := make([]string, 0, len(g.Domains))
	for _, d := range g.Domains {
		where := "no node"
		if len(d.Nodes) > 0 {
			where = strings.Join(d.Nodes, ", ")
		}
		parts = append(parts, fmt.Sprintf("%s=%s: %d of %d (%s)", g.Key, d.Name, d.Fit, g.Pending, where))
	}
	verdict := "cannot run in any one domain"
	if g.Runs() {
		verdict = "fits in one domain"
	}
	return fmt.Sprintf("its pod group %s %s of %s: the pending pods whose devices fit together there: %s; it needs %d",
		g.Group, verdict, g.Key, strings.Join(parts, "; "), g.Need)
}
