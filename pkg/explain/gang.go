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
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
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
			if nc, err = newNodeCheck(p, resolved); err != nil {
				return nil, err
			}
			claims = nil
			for _, cl := range resolved {
				if cl.State == ClaimToAllocate || cl.State == ClaimNotCreated {
					claims = append(claims, cl.obj)
				}
			}
		}
		pods = append(pods, allocator.GangPod{Name: p.Name, Claims: claims, Nodes: nc.Eligible(c.nodes)})
	}
	members, withoutDevices := allocator.GangMembers(pods)
	g.Fit += withoutDevices
	// A gang needs its minCount; pods of another group run on their own.
	g.Need = 1
	if pg := c.podGroup(pod.Namespace, name); pg != nil && pg.Spec.SchedulingPolicy.Gang != nil {
		g.Need = int(pg.Spec.SchedulingPolicy.Gang.MinCount)
	}
	plan, err := c.allocator(c.state).PlanGang(ctx, members, 0)
	if err != nil {
		return nil, fmt.Errorf("plan the devices of pod group %s: %w", g.Group, err)
	}
	g.Fit += len(plan.Nodes)
	g.Nodes = perNode(plan.Nodes)
	return g, nil
}

// groupPods returns the pods of PodGroup namespace/name that are not
// bound, by name.
func (c *Cluster) groupPods(namespace, name string) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range c.objs.Pods {
		sg := p.Spec.SchedulingGroup
		if p.Namespace == namespace && p.Spec.NodeName == "" && sg != nil && sg.PodGroupName != nil && *sg.PodGroupName == name {
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
