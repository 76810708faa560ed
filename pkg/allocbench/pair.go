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
	"fmt"
	"path"
	"reflect"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// nodeChecker is what Filter calls per node: upstream's structured
// allocator and ours share it.
type nodeChecker interface {
	Allocate(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim) ([]resourceapi.AllocationResult, error)
}

// Pair holds both allocators for one workload, each set up as its
// scheduler plugin keeps it: upstream rebuilds an allocator from all
// slices for every pod and keeps one CEL cache; ours keeps an inventory, a
// matcher and the allocated-device state across pods and creates a cheap
// allocator per pod. dra-bench allocator and pkg/allocator's Go
// benchmarks both measure through it, so they time the same set-up.
type Pair struct {
	w        *Workload
	features structured.Features
	classes  inventorygen.ClassLister
	state    structured.AllocatedState

	upCEL *cel.Cache
	// up is the allocator of "the" pod whose node checks are timed.
	up structured.Allocator

	inv      *inventory.Inventory
	matcher  *allocator.Matcher
	ourState *allocator.State
	// ours is our allocator of that pod.
	ours *allocator.Allocator
}

// NewPair builds both allocators' long-lived state and one pod's
// allocator of each.
func NewPair(ctx context.Context, w *Workload, features structured.Features) (*Pair, error) {
	celFeatures := cel.Features{EnableConsumableCapacity: features.ConsumableCapacity}
	p := &Pair{
		w:        w,
		features: features,
		classes:  w.Cluster.ClassLister(),
		state:    w.Allocated.State(),
		upCEL:    cel.NewCache(10, celFeatures),
		inv:      inventory.New(),
		matcher:  allocator.NewMatcher(cel.NewCache(10, celFeatures)),
	}
	for _, s := range w.Cluster.Slices {
		p.inv.Set(s)
	}
	p.ourState = allocator.NewState(p.inv, p.state)
	up, err := p.NewUpstream(ctx)
	if err != nil {
		return nil, err
	}
	p.up = up
	p.ours = p.NewOurs()
	return p, nil
}

// NewUpstream is one pod's upstream allocator: built from every slice,
// as the in-tree plugin's PreFilter does.
func (p *Pair) NewUpstream(ctx context.Context) (structured.Allocator, error) {
	a, err := structured.NewAllocator(ctx, p.features, p.state, p.classes, p.w.Cluster.Slices, p.upCEL)
	if err != nil {
		return nil, fmt.Errorf("upstream NewAllocator for %s: %w", p.w, err)
	}
	return a, nil
}

// NewOurs is one pod's allocator of ours, over the long-lived inventory,
// matcher and allocated-device state, as DRAAllocator's PreFilter creates
// it.
func (p *Pair) NewOurs() *allocator.Allocator {
	return allocator.New(p.features, p.ourState, p.classes, p.inv, p.matcher, allocator.FirstFit)
}

// upstreamFork names the implementation structured.NewAllocator chose
// (stable, incubating or experimental), from its package path.
func (p *Pair) upstreamFork() string {
	t := reflect.TypeOf(p.up)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return path.Base(t.PkgPath())
}

// UpstreamPod is what one pod costs the in-tree plugin: PreFilter builds
// an allocator from all slices, Filter allocates on every node.
func (p *Pair) UpstreamPod(ctx context.Context) error {
	a, err := p.NewUpstream(ctx)
	if err != nil {
		return err
	}
	for _, n := range p.w.Cluster.Nodes {
		_, _ = a.Allocate(ctx, n, p.w.Claims) // both allocators' errors are compared in agree
	}
	return nil
}

// OursPod is what one pod costs DRAAllocator: an allocator over the
// long-lived state, Fits on every node (Filter), Allocate on the last node
// that fits (Reserve), as pkg/allocator's BenchmarkPodTotal does.
func (p *Pair) OursPod(ctx context.Context) error {
	a := p.NewOurs()
	var chosen *v1.Node
	for _, n := range p.w.Cluster.Nodes {
		if ok, _ := a.Fits(ctx, n, p.w.Claims); ok {
			chosen = n
		}
	}
	if chosen != nil {
		_, _ = a.Allocate(ctx, chosen, p.w.Claims)
	}
	return nil
}
