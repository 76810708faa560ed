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

package allocbench

import (
	"context"
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// OccupancyAsIs is the occupancy of a loaded cluster: what its allocated
// claims hold.
const OccupancyAsIs = "as-is"

// Workloads turns the input into workloads over one cluster: one per
// claim (scenario "claim:<namespace>/<name>"), or, when the input has no
// unallocated claims, one per DeviceClass asking for one device of it
// (scenario "class:<name>"). The nodes are the Node objects given plus a
// node for every slice's nodeName that is not among them (labelled only
// with its hostname).
func (in *Input) Workloads() ([]Workload, error) {
	if len(in.Slices) == 0 {
		return nil, errors.New("the input has no ResourceSlices (kubectl get resourceslices,deviceclasses -o yaml)")
	}
	c := inventorygen.Cluster{Nodes: in.nodes(), Slices: in.Slices, Classes: in.Classes}
	if len(c.Nodes) == 0 {
		return nil, errors.New("the input names no node: no ResourceSlice has spec.nodeName and there are no Node objects (add kubectl get nodes -o yaml)")
	}
	type pod struct {
		scenario, description string
		claim                 *resourceapi.ResourceClaim
	}
	var pods []pod
	for _, claim := range in.Claims {
		pods = append(pods, pod{
			scenario:    "claim:" + claim.Namespace + "/" + claim.Name,
			description: fmt.Sprintf("claim %s/%s from the input (%d requests)", claim.Namespace, claim.Name, len(claim.Spec.Devices.Requests)),
			claim:       claim,
		})
	}
	if len(pods) == 0 {
		if len(in.Classes) == 0 {
			return nil, errors.New("the input has neither claims nor DeviceClasses to make claims from")
		}
		for _, class := range in.Classes {
			pods = append(pods, pod{
				scenario:    "class:" + class.Name,
				description: "one device of DeviceClass " + class.Name,
				claim:       inventorygen.ExactClaim("one-"+class.Name, class.Name, 1),
			})
		}
	}
	out := make([]Workload, 0, len(pods))
	for _, p := range pods {
		out = append(out, Workload{
			Scenario:    p.scenario,
			Description: p.description,
			Occupancy:   OccupancyAsIs,
			Cluster:     c,
			Allocated:   in.Allocated,
			Claims:      []*resourceapi.ResourceClaim{p.claim},
		})
	}
	return out, nil
}

// Job wraps the input's workloads (built here, so that input errors are
// reported before anything is measured).
func (in *Input) Job(name string) (Job, error) {
	workloads, err := in.Workloads()
	if err != nil {
		return Job{}, fmt.Errorf("%s: %w", name, err)
	}
	return Job{
		Name:      name,
		Workloads: len(workloads),
		Build:     func(context.Context) ([]Workload, error) { return workloads, nil },
	}, nil
}

// nodes returns the Node objects followed by made-up nodes for the
// nodeNames of slices not among them, in order of appearance.
func (in *Input) nodes() []*v1.Node {
	return append(slices.Clone(in.Nodes), clusterstate.NodesNamedBySlices(in.Slices, in.Nodes)...)
}
