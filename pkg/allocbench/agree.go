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
	"strings"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured"
)

// maxExamples bounds the mismatches described per workload.
const maxExamples = 5

// Agreement is the outcome of asking both allocators about every node of
// a workload before anything is timed.
type Agreement struct {
	// NodesCompared is the number of nodes asked.
	NodesCompared int `json:"nodesCompared"`
	// FitNodes counts nodes where both found an allocation; ErrorNodes
	// those where both returned the same error.
	FitNodes   int `json:"fitNodes"`
	ErrorNodes int `json:"errorNodes"`
	// Mismatches counts nodes where the outcomes differ: fit against no
	// fit, different devices or results, different errors, or our Fits
	// disagreeing with our Allocate.
	Mismatches int `json:"mismatches"`
	// Examples describes the first mismatches.
	Examples []string `json:"examples,omitempty"`
}

// firstPass is what the agreement pass measured besides agreement: the
// time each allocator took to answer for every node once. For ours that
// includes filling its caches (the first pod after start-up); for
// upstream it is a pod's Filter work without NewAllocator.
type firstPass struct {
	upstream, ours time.Duration
}

// agree asks both pod allocators about every node, in node order, and
// compares the outcomes. It also warms our caches, so that the timed
// calls that follow see the steady state of a running scheduler.
func (p *Pair) agree(ctx context.Context, prog *progress) (Agreement, firstPass, error) {
	var a Agreement
	var fp firstPass
	claims := p.w.Claims
	for _, node := range p.w.Cluster.Nodes {
		if err := ctx.Err(); err != nil {
			return a, fp, err
		}
		start := time.Now()
		upRes, upErr := p.up.Allocate(ctx, node, claims)
		fp.upstream += time.Since(start)
		start = time.Now()
		ourRes, ourErr := p.ours.Allocate(ctx, node, claims)
		fp.ours += time.Since(start)
		fits, fitsErr := p.ours.Fits(ctx, node, claims)

		a.NodesCompared++
		prog.tick("  comparing both allocators: %d of %d nodes", a.NodesCompared, len(p.w.Cluster.Nodes))
		diff := outcomeDiff(upRes, upErr, ourRes, ourErr)
		if diff == "" && ((fitsErr == nil) != (ourErr == nil) || fits != (ourRes != nil)) {
			diff = fmt.Sprintf("our Fits says %v (error %v) but our Allocate %s", fits, fitsErr, describe(ourRes, ourErr))
		}
		switch {
		case diff != "":
			a.Mismatches++
			if len(a.Examples) < maxExamples {
				a.Examples = append(a.Examples, fmt.Sprintf("node %s: %s", node.Name, diff))
			}
		case upErr != nil:
			a.ErrorNodes++
		case upRes != nil:
			a.FitNodes++
		}
	}
	return a, fp, nil
}

// outcomeDiff describes how two outcomes of Allocate differ, or returns
// "" when they are the same. Share IDs are random: only their presence
// is compared.
func outcomeDiff(upRes []resourceapi.AllocationResult, upErr error, ourRes []resourceapi.AllocationResult, ourErr error) string {
	same := (upErr == nil) == (ourErr == nil)
	if same && upErr != nil {
		same = upErr.Error() == ourErr.Error() &&
			errors.Is(upErr, structured.ErrFailedAllocationOnNode) == errors.Is(ourErr, structured.ErrFailedAllocationOnNode)
	}
	if same && upErr == nil {
		same = (upRes == nil) == (ourRes == nil) &&
			apiequality.Semantic.DeepEqual(normalizeShareIDs(upRes), normalizeShareIDs(ourRes))
	}
	if same {
		return ""
	}
	return fmt.Sprintf("upstream %s, ours %s", describe(upRes, upErr), describe(ourRes, ourErr))
}

// describe summarizes an outcome in one line: the error, "no fit", or the
// allocated devices per claim.
func describe(res []resourceapi.AllocationResult, err error) string {
	switch {
	case err != nil:
		return fmt.Sprintf("error %q", err)
	case res == nil:
		return "no fit"
	}
	var claims []string
	for _, r := range res {
		var devices []string
		for _, d := range r.Devices.Results {
			devices = append(devices, d.Request+"="+d.Driver+"/"+d.Pool+"/"+d.Device)
		}
		claims = append(claims, "["+strings.Join(devices, " ")+"]")
	}
	return "fit " + strings.Join(claims, " ")
}

// normalizeShareIDs returns a copy of results with every share ID
// replaced by the same one.
func normalizeShareIDs(results []resourceapi.AllocationResult) []resourceapi.AllocationResult {
	if results == nil {
		return nil
	}
	out := make([]resourceapi.AllocationResult, len(results))
	share := types.UID("share")
	for i := range results {
		results[i].DeepCopyInto(&out[i])
		for j := range out[i].Devices.Results {
			if out[i].Devices.Results[j].ShareID != nil {
				out[i].Devices.Results[j].ShareID = &share
			}
		}
	}
	return out
}
