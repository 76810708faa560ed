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

package deviceconstraints

import (
	"errors"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// CheckPod checks that what constraints name exists: every pod claim in
// pod.Spec.ResourceClaims, every request in that claim's spec, every
// subrequest among its request's firstAvailable subrequests.
//
// specs maps a pod claim name (spec.resourceClaims[].name) to the spec of
// the claim it stands for: the ResourceClaim's spec, or the spec of the
// ResourceClaimTemplate the claim is (or will be) made from. A pod claim
// the pod has but specs lacks (or maps to nil) is skipped: the caller has
// not resolved it yet, and can check again once it has. A pod claim the pod
// does not have is an error whatever specs holds.
//
// For a PodGroup, check each member pod whose claims its constraints must
// all name.
//
// CheckPod reports every fault, not only the first: its error joins one
// *Error per fault (errors.As finds the first), each wrapping
// ErrUnknownClaim, ErrUnknownRequest or ErrUnknownSubrequest. It assumes the
// constraints valid (as Parse returns them) and checks nothing else.
func CheckPod(constraints []Constraint, pod *v1.Pod, specs map[string]*resourceapi.ResourceClaimSpec) error {
	var podClaims []string
	if pod != nil {
		for _, claim := range pod.Spec.ResourceClaims {
			podClaims = append(podClaims, claim.Name)
		}
	}
	var faults []error
	for i, c := range constraints {
		for j, ref := range c.Requests {
			if err := checkRef(ref, podClaims, specs); err != nil {
				faults = append(faults, &Error{Constraint: i, Field: requestsField(j), Value: ref.String(), Err: err})
			}
		}
	}
	return errors.Join(faults...)
}

// checkRef checks ref against the pod's claim names and the specs known.
func checkRef(ref RequestRef, podClaims []string, specs map[string]*resourceapi.ResourceClaimSpec) error {
	if !slices.Contains(podClaims, ref.PodClaim) {
		return because(ErrUnknownClaim, "pod has no resource claim %s %s", ref.PodClaim, listNames(podClaims))
	}
	spec := specs[ref.PodClaim]
	if spec == nil || ref.Request == "" {
		return nil
	}
	requests := spec.Devices.Requests
	var requestNames []string
	var request *resourceapi.DeviceRequest
	for k := range requests {
		requestNames = append(requestNames, requests[k].Name)
		if requests[k].Name == ref.Request {
			request = &requests[k]
		}
	}
	if request == nil {
		return because(ErrUnknownRequest, "claim %s has no request %s %s", ref.PodClaim, ref.Request, listNames(requestNames))
	}
	if ref.Subrequest == "" {
		return nil
	}
	var subrequestNames []string
	for _, subrequest := range request.FirstAvailable {
		if subrequest.Name == ref.Subrequest {
			return nil
		}
		subrequestNames = append(subrequestNames, subrequest.Name)
	}
	return because(ErrUnknownSubrequest, "claim %s request %s has no subrequest %s %s",
		ref.PodClaim, ref.Request, ref.Subrequest, listNames(subrequestNames))
}

// listNames says, for a message, which names exist, in their order.
func listNames(names []string) string {
	if len(names) == 0 {
		return "(it has none)"
	}
	return "(it has: " + strings.Join(names, ", ") + ")"
}
