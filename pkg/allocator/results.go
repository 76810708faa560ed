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
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// results turns the search's choices into AllocationResults (§6).
func (c *call) results() ([]resourceapi.AllocationResult, error) {
	return buildResults(c.a.features, c.node.Name, c.claimStates)
}

// buildResults turns the devices chosen for claims on node into
// AllocationResults (§6) under the allocator's features. It reads states but keeps no reference to them, so they may live
// on the caller's stack.
func buildResults(features structured.Features, node string, states []*claimState) ([]resourceapi.AllocationResult, error) {
	var out []resourceapi.AllocationResult
	var single *singleResult
	if len(states) == 1 && len(states[0].results) == 1 {
		single = &singleResult{}
		out = single.out[:]
	} else {
		out = make([]resourceapi.AllocationResult, len(states))
	}
	for ci, cs := range states {
		res := &out[ci]
		var selBlock *nodeNameSelectorBlock
		if single != nil {
			res.Devices.Results, selBlock = single.devices[:], &single.sel
		} else {
			res.Devices.Results = make([]resourceapi.DeviceRequestAllocationResult, len(cs.results))
		}
		for i, dr := range cs.results {
			d := dr.cand.dev
			// Filled in place, field by field: the result is fresh (zero),
			// and copying a whole struct into the heap costs a bulk write
			// barrier over all its pointer words while the GC marks.
			r := &res.Devices.Results[i]
			r.Request, r.Driver, r.Pool, r.Device = dr.req.name(), d.Driver, d.Pool, d.Name()
			if dr.req.tolerations != nil {
				r.Tolerations = dr.req.tolerations
			}
			if dr.share {
				id := uuid.NewUUID()
				r.ShareID = &id
			}
			if dr.adminAccess {
				r.AdminAccess = ptr.To(true)
			}
			if dr.consumed != nil {
				r.ConsumedCapacity = make(map[resourceapi.QualifiedName]resource.Quantity, len(dr.consumed))
				for k, v := range dr.consumed {
					r.ConsumedCapacity[k] = v.DeepCopy()
				}
			}
			if features.OptionalNodeOperations {
				r.SkipNodeOperations = d.Slice.Obj.Spec.SkipNodeOperations
			}
			if features.DeviceBindingAndStatus {
				r.BindingConditions = d.Spec.BindingConditions
				r.BindingFailureConditions = d.Spec.BindingFailureConditions
			}
		}
		res.Devices.Config = cs.config()
		sel, err := nodeSelector(cs.results, node, selBlock)
		if err != nil {
			return nil, fmt.Errorf("create NodeSelector for claim %s: %w", cs.obj.Name, err)
		}
		res.NodeSelector = sel
	}
	return out, nil
}

// singleResult is the whole result of the most common allocation, one
// claim of one device, in one allocation instead of three. Its slices are
// full (length equals capacity): appending to them copies.
type singleResult struct {
	out     [1]resourceapi.AllocationResult
	devices [1]resourceapi.DeviceRequestAllocationResult
	sel     nodeNameSelectorBlock
}

// chosen returns the request, or chosen subrequest, for request q.
func (cs *claimState) chosen(q int) *request { return cs.requests[q][cs.selected[q]] }

// config lists the class configurations of the classes used (grouped by
// class, in order of first use), then the claim configurations that apply,
// and drops the request list of entries that apply to every request (§6.2).
func (cs *claimState) config() []resourceapi.DeviceAllocationConfiguration {
	var out []resourceapi.DeviceAllocationConfiguration
	// Classes seen so far and where their entries are; claims have few
	// requests, so a list beats a map.
	type span struct {
		class      string
		start, end int
	}
	var seen []span
classes:
	for q := range cs.requests {
		r := cs.chosen(q)
		for _, sp := range seen {
			if sp.class == r.class.Name {
				for i := sp.start; i < sp.end; i++ {
					out[i].Requests = append(out[i].Requests, r.name())
				}
				continue classes
			}
		}
		start := len(out)
		for _, cfg := range r.class.Spec.Config {
			out = append(out, resourceapi.DeviceAllocationConfiguration{
				Source:              resourceapi.AllocationConfigSourceClass,
				Requests:            []string{r.name()},
				DeviceConfiguration: cfg.DeviceConfiguration,
			})
		}
		if len(r.class.Spec.Config) > 0 {
			seen = append(seen, span{r.class.Name, start, len(out)})
		}
	}
	if len(out) == 0 && len(cs.obj.Spec.Devices.Config) == 0 {
		return nil
	}
	for _, cfg := range cs.obj.Spec.Devices.Config {
		if len(cfg.Requests) == 0 || slices.ContainsFunc(cs.indexes(), func(q int) bool { return cs.named(cfg.Requests, q) }) {
			out = append(out, resourceapi.DeviceAllocationConfiguration{
				Source:              resourceapi.AllocationConfigSourceClaim,
				Requests:            cfg.Requests,
				DeviceConfiguration: cfg.DeviceConfiguration,
			})
		}
	}
	for i := range out {
		if len(out[i].Requests) == 0 {
			continue
		}
		if !slices.ContainsFunc(cs.indexes(), func(q int) bool { return !cs.named(out[i].Requests, q) }) {
			out[i].Requests = nil
		}
	}
	return out
}

// indexes lists the claim's request indexes.
func (cs *claimState) indexes() []int {
	out := make([]int, len(cs.requests))
	for q := range out {
		out[q] = q
	}
	return out
}

// named reports whether names names request q: by its own name or, for
// firstAvailable, by "<request>/<chosen subrequest>".
func (cs *claimState) named(names []string, q int) bool {
	r := cs.chosen(q)
	return slices.Contains(names, r.base) || (r.hasSubs && slices.Contains(names, r.name()))
}

// nodeSelector says where the claim's devices are available (§6.3): the
// node itself if any device is node-local, else the merged label selectors
// of the devices' slices, else nil. A node-name selector is built in block
// when one is given.
func nodeSelector(results []deviceResult, node string, block *nodeNameSelectorBlock) (*v1.NodeSelector, error) {
	var term v1.NodeSelectorTerm
	for _, dr := range results {
		d := dr.cand.dev
		nodeName, sel := d.NodeSelection()
		if nodeName != nil || ptr.Deref(d.Spec.BindsToNode, false) {
			if block == nil {
				block = &nodeNameSelectorBlock{}
			}
			return block.selector(node), nil
		}
		if sel == nil {
			continue
		}
		switch len(sel.NodeSelectorTerms) {
		case 0:
		case 1:
			term.MatchFields = mergeRequirements(term.MatchFields, sel.NodeSelectorTerms[0].MatchFields)
			term.MatchExpressions = mergeRequirements(term.MatchExpressions, sel.NodeSelectorTerms[0].MatchExpressions)
		default:
			return nil, fmt.Errorf("unsupported ResourceSlice.NodeSelector with %d terms", len(sel.NodeSelectorTerms))
		}
	}
	if len(term.MatchFields) == 0 && len(term.MatchExpressions) == 0 {
		return nil, nil
	}
	return &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{term}}, nil
}

// nodeNameSelectorBlock holds a selector for one node name and its parts
// in one allocation.
type nodeNameSelectorBlock struct {
	sel    v1.NodeSelector
	terms  [1]v1.NodeSelectorTerm
	fields [1]v1.NodeSelectorRequirement
	values [1]string
}

// selector fills the block with a selector of exactly the named node, by
// metadata.name.
func (b *nodeNameSelectorBlock) selector(node string) *v1.NodeSelector {
	b.values[0] = node
	f := &b.fields[0] // field by field, as in results
	f.Key, f.Operator, f.Values = "metadata.name", v1.NodeSelectorOpIn, b.values[:]
	b.terms[0].MatchFields = b.fields[:]
	b.sel.NodeSelectorTerms = b.terms[:]
	return &b.sel
}

// mergeRequirements appends the requirements of from that to lacks, where a
// requirement is the same if key, operator and the set of values are.
func mergeRequirements(to, from []v1.NodeSelectorRequirement) []v1.NodeSelectorRequirement {
	for _, req := range from {
		values := sets.New(req.Values...)
		if !slices.ContainsFunc(to, func(have v1.NodeSelectorRequirement) bool {
			return have.Key == req.Key && have.Operator == req.Operator && sets.New(have.Values...).Equal(values)
		}) {
			to = append(to, req)
		}
	}
	return to
}
