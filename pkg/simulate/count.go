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
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/podshape"
)

// Shape is what Count places copies of: one pod, each copy with claims of
// its own made from the pod's templates and pre-created claims' specs
// (claims already allocated are shared by every copy, as replicas share
// a resourceClaimName claim).
type Shape struct {
	Pod *v1.Pod
	// Self says that Pod exists and is pending: it is the first copy,
	// with its own claims.
	Self bool
	// Templates and Claims are looked up before the snapshot's
	// (WithObjects): those of a manifest not applied yet.
	Templates []*resourceapi.ResourceClaimTemplate
	Claims    []*resourceapi.ResourceClaim
}

// CountOptions bound a Count.
type CountOptions struct {
	// Limit stops counting once that many copies fit; 0 is no limit.
	Limit int
	// Examples is how many nodes of each reason get request counts; 0
	// is 3.
	Examples int
}

// Count is how many copies of a shape fit.
type Count struct {
	// Count is the number of copies placed.
	Count int
	// Limited says that counting stopped at CountOptions.Limit.
	Limited bool
	// Exact says that the scheduler, placing the copies one by one,
	// places exactly Count whatever node it picks for each; Inexact says
	// why not when it is false.
	Exact   bool
	Inexact []string
	// Nodes are the nodes with copies, in name order.
	Nodes []NodeCount
	// Placements are the copies, node by node in name order.
	Placements []Placement
	// Next is what stops one more copy: the reason of every node.
	Next Unfit
}

// NodeCount is how many copies one node takes.
type NodeCount struct {
	Node  string
	Count int
}

// maxCopiesPerNode bounds the copies one node is asked to take: a shape
// that takes nothing that runs out would fit for ever.
const maxCopiesPerNode = 1 << 16

// Count places copies of shape into f until none fits, node after node
// in name order: on each node, copies are placed while the node checks,
// its node resources and its devices allow, each copy's devices allocated
// as the scheduler's allocator and policy allocate them over what earlier
// copies took. f keeps the copies (Revert undoes them, from a level
// opened before).
func (f *Fork) Count(ctx context.Context, shape Shape, opts CountOptions) (*Count, error) {
	if shape.Pod == nil {
		return nil, fmt.Errorf("count: the shape has no pod")
	}
	if opts.Examples <= 0 {
		opts.Examples = maxExamples
	}
	q, err := f.ask(ctx, shape.Pod, []Option{WithObjects(shape.Templates, shape.Claims)})
	if err != nil {
		return nil, err
	}
	out := &Count{}
	if len(q.problems) > 0 {
		// No copy fits anywhere, as none is scheduled: exact.
		out.Exact = true
		out.Next.Problems = q.problems
		return out, nil
	}
	var reasons reasonGroups
	for _, node := range f.snap.nodes {
		n, reason, err := f.fill(ctx, q, node, out, opts.Limit, shape.Self)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			out.Nodes = append(out.Nodes, NodeCount{Node: node.Name, Count: n})
		}
		if out.Limited {
			break
		}
		if err := reasons.add(ctx, f, q, node, reason, opts.Examples); err != nil {
			return nil, err
		}
	}
	out.Next.Groups = reasons.sorted()
	out.Inexact = f.inexact(q)
	out.Exact = len(out.Inexact) == 0
	return out, nil
}

// fill places copies on node until one does not fit there, or the count
// reaches limit; it returns how many it placed and why the next does not
// fit.
func (f *Fork) fill(ctx context.Context, q *question, node *v1.Node, out *Count, limit int, self bool) (int, string, error) {
	for n := 0; ; n++ {
		if limit > 0 && out.Count >= limit {
			out.Limited = true
			return n, "", nil
		}
		if n >= maxCopiesPerNode {
			return n, "", fmt.Errorf("count: more than %d copies of pod %s/%s fit on node %s: the shape takes nothing that runs out there", maxCopiesPerNode, q.pod.Namespace, q.pod.Name, node.Name)
		}
		p, reason, err := f.try(ctx, q, node)
		if err != nil || p == nil {
			return n, reason, err
		}
		out.Count++
		p.Copy = out.Count
		if !self || p.Copy > 1 {
			p.nameCopiesClaims(q)
		}
		f.commit(*p)
		out.Placements = append(out.Placements, *p)
	}
}

// nameCopiesClaims names the claims the copy allocates as its own
// (podshape.CopyName).
func (p *Placement) nameCopiesClaims(q *question) {
	for i := range p.Claims {
		if !p.Claims[i].Allocated {
			p.Claims[i].Name = podshape.CopyName(q.pod, p.Claims[i].PodClaim, p.Copy)
		}
	}
}

// inexact says why the count may differ from what the scheduler places.
func (f *Fork) inexact(q *question) []string {
	var out []string
	if inv := f.snap.inv; inv.NodeLocal().Count() != inv.NumDevices() {
		out = append(out, "some devices are reachable from several nodes: which node the scheduler picks for a copy may change how many more fit")
	}
	spec := q.pod.Spec
	if a := spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		out = append(out, "inter-pod affinity is not checked")
	}
	if len(spec.TopologySpreadConstraints) > 0 {
		out = append(out, "topology spread constraints are not checked")
	}
	for _, c := range append(append([]v1.Container(nil), spec.InitContainers...), spec.Containers...) {
		for _, port := range c.Ports {
			if port.HostPort != 0 {
				out = append(out, "host ports are not checked")
				return out
			}
		}
	}
	return out
}
