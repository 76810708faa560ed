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

// Package crossclaims turns a pod's dra-scheduler.io/device-constraints
// annotation (pkg/deviceconstraints) into the allocator's constraints
// across claims (allocator.CrossClaimConstraint), which name claims by
// their ResourceClaims. The scheduler plugin (pkg/plugins/draallocator)
// and kubectl dra explain (pkg/explain) both call it, so that explain
// answers exactly as the scheduler does. It sits apart from
// pkg/deviceconstraints, which reads the annotation and must not depend on
// the allocator.
package crossclaims

import (
	"context"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
)

// Of reads pod's device constraints, checks them against its claims, and
// returns them as constraints across the claims. claims are the pod's
// ResourceClaims (those not created yet as their template describes them),
// and podClaims[i] is the pod claim (spec.resourceClaims[].name) claims[i]
// stands for; both have the same length.
//
// Without the annotation Of returns nil, nil. A wrong annotation returns
// nil and the error of deviceconstraints.Of or deviceconstraints.CheckPod,
// whose message starts with "annotation dra-scheduler.io/device-constraints: ".
// Otherwise each constraint names the ResourceClaims of the pod claims it
// covers; an empty requests list covers every one of claims, each named
// bare (every request of it), and only those. A constraint left covering
// nothing is dropped; the result may then be empty.
func Of(pod *v1.Pod, claims []*resourceapi.ResourceClaim, podClaims []string) ([]allocator.CrossClaimConstraint, error) {
	constraints, found, err := deviceconstraints.Of(pod)
	if !found {
		return nil, nil
	}
	if err == nil {
		specs := make(map[string]*resourceapi.ResourceClaimSpec, len(claims))
		for i, claim := range claims {
			specs[podClaims[i]] = &claim.Spec
		}
		err = deviceconstraints.CheckPod(constraints, pod, specs)
	}
	if err != nil {
		return nil, err
	}
	byPodClaim := make(map[string]string, len(claims))
	for i, claim := range claims {
		byPodClaim[podClaims[i]] = claim.Name
	}
	out := make([]allocator.CrossClaimConstraint, 0, len(constraints))
	for _, c := range constraints {
		con := allocator.CrossClaimConstraint{MatchAttribute: c.MatchAttribute, DistinctAttribute: c.DistinctAttribute}
		if len(c.Requests) == 0 {
			// Every request of the pod's claims, and only of them: a gang's
			// joint check asks about its siblings' claims too.
			for _, claim := range claims {
				con.Requests = append(con.Requests, allocator.ClaimRequest{Claim: claim.Name})
			}
		}
		for _, ref := range c.Requests {
			if name, ok := byPodClaim[ref.PodClaim]; ok {
				con.Requests = append(con.Requests, allocator.ClaimRequest{Claim: name, Request: ref.Request, Subrequest: ref.Subrequest})
			}
		}
		if len(con.Requests) > 0 {
			out = append(out, con)
		}
	}
	return out, nil
}

// Broken is the message of a pod whose allocated claims break its device
// constraints by themselves, on every node; err is the allocator's answer
// for them. It is the scheduler plugin's message.
func Broken(err error) string {
	return "annotation " + deviceconstraints.Annotation + ": the pod's allocated claims break it: " + err.Error()
}

// CheckFixed reports whether the fixed choices (the pod's allocated
// claims) break the constraints by themselves, on every node: a with the
// constraints, asked about no claim, only adds the fixed choices. broken
// is Broken's message then, "" when they hold; err is only the context's.
func CheckFixed(ctx context.Context, a *allocator.Allocator, constraints []allocator.CrossClaimConstraint, fixed []*resourceapi.ResourceClaim) (broken string, err error) {
	if len(constraints) == 0 || len(fixed) == 0 {
		return "", nil
	}
	if _, err := a.WithCrossClaimConstraints(constraints, fixed).Fits(ctx, &v1.Node{}, nil); err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return Broken(err), nil
	}
	return "", nil
}
