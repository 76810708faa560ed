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
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints/crossclaims"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodecheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/podshape"
	"github.com/dra-scheduler/dra-scheduler/pkg/simulate"
)

// PodReport tells why a pod is pending and where it could run.
type PodReport struct {
	Pod           string `json:"pod"`
	SchedulerName string `json:"schedulerName"`
	// NodeName is set when the pod is bound already.
	NodeName string  `json:"nodeName,omitempty"`
	Claims   []Claim `json:"claims"`
	// Problems keep the scheduler from trying any node (a missing claim or
	// class, a claim in use, a wrong device constraints annotation or
	// allocated claims that break it); when there are any, nodes are not
	// asked.
	Problems []string `json:"problems,omitempty"`
	// Verdict is the answer in one sentence.
	Verdict string `json:"verdict"`
	// Now is the answer on the cluster as it is; Empty the same question
	// with nothing allocated, which tells "too big for any node" apart
	// from "all taken".
	Now   Answer `json:"now"`
	Empty Answer `json:"emptyCluster"`
	// Preemption is asked when the pod fits on no node now but on some
	// with nothing allocated: which pods would be evicted, and where.
	Preemption *Preemption `json:"preemption,omitempty"`
	// Gang is the answer for the pod's PodGroup, whose pending pods'
	// devices are planned together.
	Gang *Gang `json:"gang,omitempty"`
	// Notes are caveats about the input and what is not checked.
	Notes []string `json:"notes,omitempty"`
}

// Answer is where the pod's claims fit, and why not elsewhere.
type Answer struct {
	// Nodes counts the nodes asked; FitNodes lists those where the pod
	// fits, by name.
	Nodes    int      `json:"nodes"`
	FitNodes []string `json:"fitNodes"`
	// Candidates are the best nodes, as the plugin's scoring strategy
	// ranks them, with the devices the claims would get (Now only).
	Candidates []Candidate `json:"candidates,omitempty"`
	// NotFit groups the other nodes by reason, most nodes first.
	NotFit []ReasonGroup `json:"notFit,omitempty"`
	// ConstraintsNotMet counts the nodes of NotFit where the claims would
	// fit but for the pod's device constraints (annotation
	// dra-scheduler.io/device-constraints).
	ConstraintsNotMet int `json:"deviceConstraintsNotMet,omitempty"`
}

// Candidate is a node where the pod fits.
type Candidate struct {
	Node  string `json:"node"`
	Score int64  `json:"score"`
	// Devices are what each claim would get, as "<pod claim>/<request>:
	// <driver>/<pool>/<device>".
	Devices []string `json:"devices"`
	// NodeResources are what those devices and the pod's allocated ones
	// take of the node's resources besides the pod's own requests ("cpu
	// 4"), with DRANodeAllocatableResources.
	NodeResources []string `json:"nodeResources,omitempty"`
}

// ReasonGroup is the nodes that fail for one reason.
type ReasonGroup struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	// Examples are the first nodes (by name), with what each request
	// finds there.
	Examples []NodeDetail `json:"examples"`
}

// maxExamples bounds a group's examples.
const maxExamples = 3

// NodeDetail is what the requests find on one node.
type NodeDetail struct {
	Node     string         `json:"node"`
	Requests []RequestCount `json:"requests,omitempty"`
	// Closest says, where only the device constraints fail, what came
	// closest: the first constraint that fails there on its own and the
	// values its requests could have (crossclaims.Closest).
	Closest string `json:"closest,omitempty"`
}

// RequestCount is one request's devices on one node (allocator.RequestReport
// with the claim named).
type RequestCount struct {
	Claim     string   `json:"claim"`
	Request   string   `json:"request"`
	Class     string   `json:"class"`
	Selectors []string `json:"selectors,omitempty"`
	Need      int      `json:"need"`
	Matching  int      `json:"matching"`
	Allocated int      `json:"allocated"`
	// NodeOperationsRequired are matching devices that skip node
	// operations, which the node does not declare it supports
	// (DRAOptionalNodeOperations).
	NodeOperationsRequired int `json:"nodeOperationsRequired,omitempty"`
	Tainted                int `json:"tainted"`
	// CountersExhausted and CapacityExhausted are matching devices whose
	// shared counters or capacity are used up.
	CountersExhausted int `json:"countersExhausted"`
	CapacityExhausted int `json:"capacityExhausted"`
	Usable            int `json:"usable"`
}

// notChecked is the caveat every report carries.
const notChecked = "only node name, node affinity and selector, unschedulable nodes, node taints and devices are checked; CPU, memory, pod count, ports and inter-pod rules are not"

// Pod explains pod: which of its claims need devices, and on which nodes
// they fit now and on an empty cluster.
func (c *Cluster) Pod(ctx context.Context, pod *v1.Pod) (*PodReport, error) {
	r := &PodReport{
		Pod:           pod.Namespace + "/" + pod.Name,
		SchedulerName: pod.Spec.SchedulerName,
		NodeName:      pod.Spec.NodeName,
		Notes:         append(append([]string(nil), c.Notes...), notChecked),
	}
	r.Claims, r.Problems = c.podClaims(pod)
	if c.settings.NodeAllocatable {
		r.Notes = append(r.Notes, noteNodeAllocatable)
	}
	if names := c.draExtendedResources(pod); len(names) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("the pod also asks for extended resources that DeviceClasses provide (%s); the scheduler allocates a claim for them that this report does not include", strings.Join(names, ", ")))
	}
	cross, problem, err := c.deviceConstraints(ctx, pod, r.Claims)
	if err != nil {
		return nil, err
	}
	if problem != "" {
		r.Problems = append(r.Problems, problem)
	}
	if len(r.Problems) > 0 {
		r.Verdict = "the scheduler cannot try any node: " + r.Problems[0]
		return r, nil
	}
	nc, err := podshape.NodeCheck(pod, r.Claims, c.settings.NodeChecks)
	if err != nil {
		return nil, err
	}
	var toAllocate []*resourceapi.ResourceClaim
	var names []string
	for _, cl := range r.Claims {
		if cl.ToAllocate() {
			toAllocate = append(toAllocate, cl.Object)
			names = append(names, cl.PodClaim)
		}
	}
	q := question{nodeCheck: nc, claims: toAllocate, claimNames: names, all: r.Claims, cross: cross}
	if r.Now, err = c.answer(ctx, q, c.snap.State(), true); err != nil {
		return nil, err
	}
	if r.Empty, err = c.answer(ctx, q, structured.AllocatedState{}, false); err != nil {
		return nil, err
	}
	if r.NodeName == "" {
		if r.Gang, err = c.gang(ctx, pod, q); err != nil {
			return nil, err
		}
	}
	// A group's pods preempt as a group (Gang.Preemption), never alone.
	if r.NodeName == "" && r.Gang == nil && len(r.Now.FitNodes) == 0 && len(r.Empty.FitNodes) > 0 {
		if r.Preemption, err = c.preemption(ctx, pod, q, r.Empty.FitNodes); err != nil {
			return nil, err
		}
	}
	r.Verdict = verdict(r)
	if r.Gang != nil && r.NodeName == "" {
		r.Verdict += "; " + r.Gang.sentence()
	}
	return r, nil
}

// question is what every node is asked.
type question struct {
	nodeCheck  *nodecheck.Check
	claims     []*resourceapi.ResourceClaim
	claimNames []string
	// all are the pod's claims, those allocated included.
	all []Claim
	// cross are the pod's device constraints across its claims.
	cross crossClaims
}

// answer asks every node, with state as the allocated devices; rank says
// whether to rank candidates and keep their devices.
func (c *Cluster) answer(ctx context.Context, q question, state structured.AllocatedState, rank bool) (Answer, error) {
	plain := c.allocator(state)
	a := q.cross.on(plain)
	ans := Answer{Nodes: len(c.snap.Nodes()), FitNodes: []string{}}
	groups := map[string]*ReasonGroup{}
	fail := func(node, reason string, requests []RequestCount, closest ...func() (string, error)) error {
		g := groups[reason]
		if g == nil {
			g = &ReasonGroup{Reason: reason}
			groups[reason] = g
		}
		g.Count++
		if len(g.Examples) < maxExamples {
			ex := NodeDetail{Node: node, Requests: requests}
			for _, f := range closest {
				var err error
				if ex.Closest, err = f(); err != nil {
					return err
				}
			}
			g.Examples = append(g.Examples, ex)
		}
		return nil
	}
	for _, node := range c.snap.Nodes() {
		if reason := q.nodeCheck.Reject(node); reason != "" {
			fail(node.Name, reason, nil)
			continue
		}
		if len(q.claims) == 0 {
			ans.FitNodes = append(ans.FitNodes, node.Name)
			continue
		}
		d, err := a.Diagnose(ctx, node, q.claims)
		if err != nil {
			if ctx.Err() != nil {
				return Answer{}, err
			}
			fail(node.Name, "error: "+err.Error(), nil)
			continue
		}
		if !d.Fits() {
			reason := d.Explanation.String()
			onlyConstraints, err := q.unconstrainedFit(ctx, plain, node)
			if err != nil {
				return Answer{}, err
			}
			if !onlyConstraints {
				fail(node.Name, reason, q.counts(d.Requests))
				continue
			}
			ans.ConstraintsNotMet++
			closest := func() (string, error) {
				return crossclaims.Closest(ctx, plain, c.snap.Inventory(), node, q.claims, q.cross.constraints, q.cross.fixed, q.podClaimOf())
			}
			if err := fail(node.Name, reason+"; "+constraintsNotMet, q.counts(d.Requests), closest); err != nil {
				return Answer{}, err
			}
			continue
		}
		nodeResources, err := c.nodeResources(q, node, d.Results)
		if err != nil {
			// The scheduler fails the pod on such a node.
			fail(node.Name, "error: "+err.Error(), nil)
			continue
		}
		ans.FitNodes = append(ans.FitNodes, node.Name)
		if rank {
			ans.Candidates = append(ans.Candidates, Candidate{
				Node:          node.Name,
				Score:         simulate.Score(c.settings.Scoring, a, node, q.claims, d.Results),
				Devices:       q.devices(d.Results),
				NodeResources: nodeResources,
			})
		}
	}
	sort.SliceStable(ans.Candidates, func(i, j int) bool { return ans.Candidates[i].Score > ans.Candidates[j].Score })
	if len(ans.Candidates) > c.settings.Candidates {
		ans.Candidates = ans.Candidates[:c.settings.Candidates]
	}
	for _, g := range groups {
		ans.NotFit = append(ans.NotFit, *g)
	}
	sort.Slice(ans.NotFit, func(i, j int) bool {
		if ans.NotFit[i].Count != ans.NotFit[j].Count {
			return ans.NotFit[i].Count > ans.NotFit[j].Count
		}
		return ans.NotFit[i].Reason < ans.NotFit[j].Reason
	})
	return ans, nil
}

// podClaimOf maps the ResourceClaims asked about, and the allocated
// ones, to their pod claims.
func (q question) podClaimOf() map[string]string {
	out := make(map[string]string, len(q.all))
	for _, cl := range q.all {
		if cl.Object != nil {
			out[cl.Object.Name] = cl.PodClaim
		}
	}
	return out
}

// counts names the claims of the allocator's request reports.
func (q question) counts(reports []allocator.RequestReport) []RequestCount {
	out := make([]RequestCount, 0, len(reports))
	for _, r := range reports {
		out = append(out, RequestCount{
			Claim: q.claimNames[r.Claim], Request: r.Request, Class: r.Class, Selectors: r.Selectors, Need: r.Need,
			Matching: r.Matching, Allocated: r.Allocated, NodeOperationsRequired: r.NodeOperationsRequired, Tainted: r.Tainted,
			CountersExhausted: r.CountersExhausted, CapacityExhausted: r.CapacityExhausted, Usable: r.Usable,
		})
	}
	return out
}

// devices lists what each claim would get.
func (q question) devices(results []resourceapi.AllocationResult) []string {
	var out []string
	for i, res := range results {
		for _, d := range podshape.DescribeResults(res.Devices.Results) {
			out = append(out, q.claimNames[i]+"/"+d)
		}
	}
	return out
}

// draExtendedResources lists the extended resources the pod's containers
// ask for that a DeviceClass provides (its extendedResourceName, or the
// implicit deviceclass.resource.kubernetes.io/<class>), sorted.
func (c *Cluster) draExtendedResources(pod *v1.Pod) []string {
	provided := sets.New[string]()
	for _, class := range c.objs.Classes {
		provided.Insert(resourceapi.ResourceDeviceClassPrefix + class.Name)
		if class.Spec.ExtendedResourceName != nil {
			provided.Insert(*class.Spec.ExtendedResourceName)
		}
	}
	found := sets.New[string]()
	for _, cs := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, ctr := range cs {
			for _, list := range []v1.ResourceList{ctr.Resources.Requests, ctr.Resources.Limits} {
				for name := range list {
					if provided.Has(string(name)) {
						found.Insert(string(name))
					}
				}
			}
		}
	}
	return sets.List(found)
}

// verdict sums the report up in one sentence.
func verdict(r *PodReport) string {
	now, empty := len(r.Now.FitNodes), len(r.Empty.FitNodes)
	switch {
	case r.NodeName != "":
		return fmt.Sprintf("bound to node %s", r.NodeName)
	case now > 0:
		return fmt.Sprintf("fits on %d of %d nodes now", now, r.Now.Nodes)
	case empty > 0 && r.Preemption != nil && r.Preemption.Node != "":
		p := r.Preemption
		return fmt.Sprintf("fits on no node now; preemption would evict %d %s of lower priority on node %s (%s)",
			len(p.Victims), plural(len(p.Victims), "pod", "pods"), p.Node, victimList(p.Victims))
	case empty > 0:
		return fmt.Sprintf("fits on no node now, but on %d of %d nodes with nothing allocated: the devices it needs are taken or blocked", empty, r.Empty.Nodes)
	case r.Empty.ConstraintsNotMet > 0:
		n := r.Empty.ConstraintsNotMet
		return fmt.Sprintf("fits on none of %d nodes, even with nothing allocated: its device constraints (annotation %s) cannot be met on the %d %s where its claims would fit without them",
			r.Empty.Nodes, deviceconstraints.Annotation, n, plural(n, "node", "nodes"))
	default:
		return fmt.Sprintf("fits on none of %d nodes, even with nothing allocated: no node can hold its claims", r.Empty.Nodes)
	}
}
