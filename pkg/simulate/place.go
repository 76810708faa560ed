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

package simulate

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
	"github.com/dra-scheduler/dra-scheduler/pkg/podshape"
)

// Placement is where a pod goes: its node and what each claim gets.
type Placement struct {
	// Pod is the pod's namespace/name.
	Pod string
	// Copy numbers a Count's copies from 1; 0 for CanSchedule and Place.
	Copy   int
	Node   string
	Claims []PlacedClaim
	// Score is the node's score under the scheduler's scoring strategy.
	Score int64

	results []resourceapi.AllocationResult
	demand  nodeallocatable.Amounts
}

// PlacedClaim is what one of the pod's claims holds once placed.
type PlacedClaim struct {
	PodClaim string
	// Name is the ResourceClaim's, or for one made from a template the
	// prefix the resourceclaim controller will give it.
	Name string
	// Allocated claims had their devices before the placement.
	Allocated bool
	// Devices are "<request>: <driver>/<pool>/<device>".
	Devices []string
}

// Unfit is why a pod fits on no node.
type Unfit struct {
	// Problems keep the scheduler from trying any node: a missing claim,
	// template or class, a claim in use, a wrong device constraints
	// annotation.
	Problems []string
	// Groups are the nodes by reason, most nodes first.
	Groups []ReasonGroup
}

// Reason sums the answer up as the scheduler's message does: "0/4 nodes
// are available: 2 Too many pods, 1 node(s) were unschedulable.", or the
// first problem.
func (u *Unfit) Reason(nodes int) string {
	if len(u.Problems) > 0 {
		return u.Problems[0]
	}
	parts := make([]string, 0, len(u.Groups))
	for _, g := range u.Groups {
		parts = append(parts, strconv.Itoa(g.Count)+" "+g.Reason)
	}
	return "0/" + strconv.Itoa(nodes) + " nodes are available: " + strings.Join(parts, ", ") + "."
}

// ReasonGroup is the nodes that refuse a pod for one reason.
type ReasonGroup struct {
	Reason string
	Count  int
	// Examples are the first nodes by name, with what each request of the
	// pod finds there when devices are the reason.
	Examples []NodeExample
}

// NodeExample is what a pod's requests find on one node.
type NodeExample struct {
	Node string
	// PodClaims name the claims of Requests (RequestReport.Claim indexes
	// them).
	PodClaims []string
	Requests  []allocator.RequestReport
}

// explainBudget bounds the search that explains why devices do not fit on
// a node, as the plugin bounds it.
const explainBudget = time.Second

// try asks node about q: the placement, or the reason the scheduler gives
// for refusing the node, in its plugins' order: the node checks,
// NodeResourcesFit, then devices.
func (f *Fork) try(ctx context.Context, q *question, node *v1.Node) (*Placement, string, error) {
	if reason := q.check.Reject(node); reason != "" {
		return nil, reason, nil
	}
	if !f.snap.settings.IgnoreNodeResources {
		if reasons := nodeResourcesReasons(node, f.used(node.Name), q.demand); len(reasons) > 0 {
			return nil, strings.Join(reasons, ", "), nil
		}
	}
	a := q.allocator(f.alloc)
	var results []resourceapi.AllocationResult
	if len(q.toAllocate) > 0 {
		var err error
		if results, err = a.Allocate(ctx, node, q.toAllocate); err != nil {
			if ctx.Err() != nil {
				return nil, "", err
			}
			return nil, "error: " + err.Error(), nil
		}
		if results == nil {
			return nil, a.ExplainBefore(ctx, node, q.toAllocate, time.Now().Add(explainBudget)).String(), nil
		}
	}
	p := &Placement{Pod: q.pod.Namespace + "/" + q.pod.Name, Node: node.Name, results: results, demand: q.demand}
	p.Score = Score(f.snap.settings.Scoring, a, node, q.toAllocate, results)
	next := 0
	for _, cl := range q.claims {
		pc := PlacedClaim{PodClaim: cl.PodClaim, Name: cl.Name, Allocated: cl.State == podshape.ClaimAllocated, Devices: cl.Devices}
		if cl.ToAllocate() {
			pc.Devices, next = podshape.DescribeResults(results[next].Devices.Results), next+1
		}
		p.Claims = append(p.Claims, pc)
	}
	return p, "", nil
}

// Score ranks a node where claims fit with results as the plugin's
// scoring strategy does: higher is better.
func Score(scoring string, a *allocator.Allocator, node *v1.Node, claims []*resourceapi.ResourceClaim, results []resourceapi.AllocationResult) int64 {
	switch scoring {
	case ScoreMostAllocated, ScoreLeastAllocated:
		used, total := a.Occupancy([]*v1.Node{node}, results)
		if total == 0 {
			return 0
		}
		s := int64(used) * 100 / int64(total)
		if scoring == ScoreLeastAllocated {
			s = 100 - s
		}
		return s
	}
	return allocator.FirstAvailableRank(claims, results)
}

// CanSchedule answers where pod would go now: the node the scoring
// strategy ranks first (the first by name of those tied), with its
// devices; or, when it fits nowhere, why. Nothing is placed.
func (f *Fork) CanSchedule(ctx context.Context, pod *v1.Pod, opts ...Option) (*Placement, *Unfit, error) {
	q, err := f.ask(ctx, pod, opts)
	if err != nil {
		return nil, nil, err
	}
	if len(q.problems) > 0 {
		return nil, &Unfit{Problems: q.problems}, nil
	}
	var best *Placement
	var reasons reasonGroups
	for _, node := range f.snap.nodes {
		p, reason, err := f.try(ctx, q, node)
		switch {
		case err != nil:
			return nil, nil, err
		case p == nil:
			if err := reasons.add(ctx, f, q, node, reason, maxExamples); err != nil {
				return nil, nil, err
			}
		case best == nil || p.Score > best.Score:
			best = p
		}
	}
	if best == nil {
		return nil, &Unfit{Groups: reasons.sorted()}, nil
	}
	return best, nil, nil
}

// Place is CanSchedule, and then places the pod where it fits.
func (f *Fork) Place(ctx context.Context, pod *v1.Pod, opts ...Option) (*Placement, *Unfit, error) {
	p, unfit, err := f.CanSchedule(ctx, pod, opts...)
	if p != nil {
		f.commit(*p)
	}
	return p, unfit, err
}

// maxExamples bounds a reason group's examples.
const maxExamples = 3

// reasonGroups collects nodes by reason.
type reasonGroups map[string]*ReasonGroup

// add counts node under reason; the first examples nodes of a reason get
// the pod's request counts there.
func (r *reasonGroups) add(ctx context.Context, f *Fork, q *question, node *v1.Node, reason string, examples int) error {
	if *r == nil {
		*r = reasonGroups{}
	}
	g := (*r)[reason]
	if g == nil {
		g = &ReasonGroup{Reason: reason}
		(*r)[reason] = g
	}
	g.Count++
	if len(g.Examples) >= examples {
		return nil
	}
	ex := NodeExample{Node: node.Name}
	if len(q.toAllocate) > 0 && q.check.Reject(node) == "" {
		d, err := q.allocator(f.alloc).Diagnose(ctx, node, q.toAllocate)
		if err != nil && ctx.Err() != nil {
			return err
		}
		ex.PodClaims, ex.Requests = q.podClaims, d.Requests
	}
	g.Examples = append(g.Examples, ex)
	return nil
}

// sorted returns the groups, most nodes first, then by reason.
func (r reasonGroups) sorted() []ReasonGroup {
	out := make([]ReasonGroup, 0, len(r))
	for _, g := range r {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}
