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

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints/crossclaims"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
	"github.com/dra-scheduler/dra-scheduler/pkg/nodecheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/podshape"
)

// question is one pod as every node is asked about it: its claims
// resolved once, what a node must pass, what it takes of node resources.
type question struct {
	pod    *v1.Pod
	claims []podshape.Claim
	// problems keep the scheduler from trying any node.
	problems []string
	// toAllocate are the claims a placement allocates, of the pod claims
	// podClaims.
	toAllocate []*resourceapi.ResourceClaim
	podClaims  []string
	check      *nodecheck.Check
	// cross are the pod's device constraints across its claims, its
	// allocated claims as fixed choices.
	cross []allocator.CrossClaimConstraint
	fixed []*resourceapi.ResourceClaim
	// demand is what the pod takes of its node's resources.
	demand nodeallocatable.Amounts
}

// Option changes what a question looks up.
type Option func(*options)

type options struct {
	templates []*resourceapi.ResourceClaimTemplate
	claims    []*resourceapi.ResourceClaim
}

// WithObjects adds templates and claims the snapshot lacks, looked up
// before the snapshot's (a Kueue PodSet's, a manifest's).
func WithObjects(templates []*resourceapi.ResourceClaimTemplate, claims []*resourceapi.ResourceClaim) Option {
	return func(o *options) {
		o.templates = append(o.templates, templates...)
		o.claims = append(o.claims, claims...)
	}
}

// source looks claims and templates up in the options, then the snapshot.
type source struct {
	snap *Snapshot
	o    options
}

func (s source) Claim(namespace, name string) *resourceapi.ResourceClaim {
	for _, c := range s.o.claims {
		if c.Namespace == namespace && c.Name == name {
			return c
		}
	}
	return s.snap.Claim(namespace, name)
}

func (s source) Template(namespace, name string) *resourceapi.ResourceClaimTemplate {
	for _, t := range s.o.templates {
		if t.Namespace == namespace && t.Name == name {
			return t
		}
	}
	return s.snap.Template(namespace, name)
}

func (s source) ClassExists(name string) bool { return s.snap.ClassExists(name) }

// ask resolves pod's claims as the scheduler's PreFilter does.
func (f *Fork) ask(ctx context.Context, pod *v1.Pod, opts []Option) (*question, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	s := f.snap.settings
	po := podshape.Options{PodGroupClaims: s.PodGroupClaims}
	if s.NodeAllocatable {
		po.MappedDevices = f.snap.slices
	}
	q := &question{pod: pod}
	q.claims, q.problems = podshape.Resolve(pod, source{snap: f.snap, o: o}, po)
	if len(q.problems) > 0 {
		return q, nil
	}
	var objs []*resourceapi.ResourceClaim
	var podClaims []string
	for _, cl := range q.claims {
		objs, podClaims = append(objs, cl.Object), append(podClaims, cl.PodClaim)
		switch {
		case cl.ToAllocate():
			q.toAllocate, q.podClaims = append(q.toAllocate, cl.Object), append(q.podClaims, cl.PodClaim)
		case cl.State == podshape.ClaimAllocated:
			q.fixed = append(q.fixed, cl.Object)
		}
	}
	var err error
	if q.cross, err = crossclaims.Of(pod, objs, podClaims); err != nil {
		q.problems = append(q.problems, err.Error())
		return q, nil
	}
	broken, err := crossclaims.CheckFixed(ctx, f.alloc, q.cross, q.fixed)
	switch {
	case err != nil:
		return nil, fmt.Errorf("pod %s/%s: check the allocated claims against the device constraints: %w", pod.Namespace, pod.Name, err)
	case broken != "":
		q.problems = append(q.problems, broken)
		return q, nil
	}
	if q.check, err = podshape.NodeCheck(pod, q.claims, s.NodeChecks); err != nil {
		return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	q.demand = podDemand(pod, nil, s.NodeResources)
	return q, nil
}

// allocator returns a honouring the question's device constraints.
func (q *question) allocator(a *allocator.Allocator) *allocator.Allocator {
	if len(q.cross) == 0 {
		return a
	}
	return a.WithCrossClaimConstraints(q.cross, q.fixed)
}
