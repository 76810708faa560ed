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

package crossclaims

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
)

// Member is a pod of a PodGroup with its ResourceClaims, as Of takes a
// pod's: Claims[i] stands for the pod claim PodClaims[i].
type Member struct {
	Pod       *v1.Pod
	Claims    []*resourceapi.ResourceClaim
	PodClaims []string
}

// OfGroup reads the device constraints of a PodGroup and returns them
// over its members' claims: each constraint, in the order the annotation
// gives them, names the ResourceClaims of every member for the pod claims
// it covers, so that the devices of all the members are tied together
// (an empty requests list: every claim of every member). A claim several
// members share is named once.
//
// Without the annotation OfGroup returns nil, nil. The value is wrong,
// and the error says so naming the PodGroup, when it does not parse, when
// no member has a pod claim a constraint names, or when a member that has
// it lacks the request or subrequest named. A member without the pod claim
// is not covered: a group's launcher need not have its workers' GPUs. A
// constraint left covering no claim is dropped: the result may be shorter
// than the list.
func OfGroup(group *schedulingapi.PodGroup, members []Member) ([]allocator.CrossClaimConstraint, error) {
	constraints, found, err := deviceconstraints.Of(group)
	if !found {
		return nil, nil
	}
	if err == nil {
		err = checkMembers(constraints, members)
	}
	if err != nil {
		return nil, fmt.Errorf("PodGroup %s/%s: %w", group.Namespace, group.Name, err)
	}
	out := make([]allocator.CrossClaimConstraint, 0, len(constraints))
	for _, c := range constraints {
		con := allocator.CrossClaimConstraint{MatchAttribute: c.MatchAttribute, DistinctAttribute: c.DistinctAttribute}
		named := map[allocator.ClaimRequest]bool{}
		add := func(r allocator.ClaimRequest) {
			if !named[r] {
				named[r] = true
				con.Requests = append(con.Requests, r)
			}
		}
		for _, m := range members {
			for i, claim := range m.Claims {
				if len(c.Requests) == 0 {
					add(allocator.ClaimRequest{Claim: claim.Name})
				}
				for _, ref := range c.Requests {
					if ref.PodClaim == m.PodClaims[i] {
						add(allocator.ClaimRequest{Claim: claim.Name, Request: ref.Request, Subrequest: ref.Subrequest})
					}
				}
			}
		}
		if len(con.Requests) > 0 {
			out = append(out, con)
		}
	}
	return out, nil
}

// checkMembers checks the constraints against every member's claims
// (deviceconstraints.CheckPod): an unknown pod claim is a fault only when
// no member has it; every other fault of any member is one.
func checkMembers(constraints []deviceconstraints.Constraint, members []Member) error {
	var faults []error
	has := map[string]bool{}
	for _, m := range members {
		specs := make(map[string]*resourceapi.ResourceClaimSpec, len(m.Claims))
		for i, claim := range m.Claims {
			specs[m.PodClaims[i]] = &claim.Spec
		}
		for _, c := range m.Pod.Spec.ResourceClaims {
			has[c.Name] = true
		}
		for _, fault := range joined(deviceconstraints.CheckPod(constraints, m.Pod, specs)) {
			if !errors.Is(fault, deviceconstraints.ErrUnknownClaim) {
				faults = append(faults, fmt.Errorf("pod %s: %w", m.Pod.Name, fault))
			}
		}
	}
	for i, c := range constraints {
		for j, ref := range c.Requests {
			if !has[ref.PodClaim] {
				faults = append(faults, &deviceconstraints.Error{Constraint: i, Field: fmt.Sprintf("requests[%d]", j), Value: ref.String(),
					Err: fmt.Errorf("no pod of the group has resource claim %s: %w", ref.PodClaim, deviceconstraints.ErrUnknownClaim)})
			}
		}
	}
	return errors.Join(faults...)
}

// joined splits an errors.Join into its errors.
func joined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
