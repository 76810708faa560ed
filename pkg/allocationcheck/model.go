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

package allocationcheck

import (
	"fmt"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
)

// request is one way of satisfying a claim's request: the request itself
// (exactly) or one of its firstAvailable subrequests.
type request struct {
	// name is how results refer to it: "<request>" or "<request>/<sub>".
	name string
	// base is the name of the claim's request.
	base string
	// sub is the subrequest name, "" for an exact request.
	sub         string
	className   string
	selectors   []resourceapi.DeviceSelector
	mode        resourceapi.DeviceAllocationMode
	count       int64
	adminAccess *bool
	tolerations []resourceapi.DeviceToleration
	capacity    *resourceapi.CapacityRequirements
	// derived are its derived attributes (DRADerivedAttributes).
	derived []resourceapi.DeviceDerivedAttribute
}

func exactRequest(r *resourceapi.DeviceRequest) *request {
	e := r.Exactly
	return &request{
		name: r.Name, base: r.Name, className: e.DeviceClassName, selectors: e.Selectors,
		mode: e.AllocationMode, count: e.Count, adminAccess: e.AdminAccess,
		tolerations: e.Tolerations, capacity: e.Capacity, derived: e.DerivedAttributes,
	}
}

func subRequest(r *resourceapi.DeviceRequest, s *resourceapi.DeviceSubRequest) *request {
	return &request{
		name: r.Name + "/" + s.Name, base: r.Name, sub: s.Name, className: s.DeviceClassName,
		selectors: s.Selectors, mode: s.AllocationMode, count: s.Count,
		tolerations: s.Tolerations, capacity: s.Capacity, derived: s.DerivedAttributes,
	}
}

// entry is one device of an allocation result, resolved against the claim
// and the slices.
type entry struct {
	index int
	res   *resourceapi.DeviceRequestAllocationResult
	id    deviceID
	// req is the (sub)request the entry names, nil if it names none.
	req *request
	// problem says why req is nil.
	problem string
	// dev is the device, nil if unknown or ambiguous.
	dev *device
}

// claimView pairs a claim with its result.
type claimView struct {
	index   int
	claim   *resourceapi.ResourceClaim
	ref     string
	result  *resourceapi.AllocationResult
	entries []*entry
	// chosen maps each request name to the alternative that was allocated:
	// the request itself, or the subrequest named by the request's first
	// resolvable result entry, or — without entries — the first subrequest
	// that wants no device. Missing if there is none.
	chosen map[string]*request
}

func (c *checker) newClaimView(index int, claim *resourceapi.ResourceClaim, result *resourceapi.AllocationResult) *claimView {
	cv := &claimView{index: index, claim: claim, ref: claimRef(claim), result: result, chosen: make(map[string]*request)}
	for i := range result.Devices.Results {
		res := &result.Devices.Results[i]
		e := &entry{index: i, res: res, id: deviceID{res.Driver, res.Pool, res.Device}}
		e.req, e.problem = lookupRequest(claim, res.Request)
		e.dev = c.resolve(e.id)
		if e.req != nil && cv.chosen[e.req.base] == nil {
			cv.chosen[e.req.base] = e.req
		}
		cv.entries = append(cv.entries, e)
	}
	for i := range claim.Spec.Devices.Requests {
		r := &claim.Spec.Devices.Requests[i]
		switch {
		case len(r.FirstAvailable) == 0 && r.Exactly != nil:
			cv.chosen[r.Name] = exactRequest(r)
		case cv.chosen[r.Name] == nil:
			// No results: only a subrequest that wants no device can have
			// been chosen; assume the first one.
			for j := range r.FirstAvailable {
				s := &r.FirstAvailable[j]
				if s.AllocationMode == resourceapi.DeviceAllocationModeExactCount && s.Count == 0 {
					cv.chosen[r.Name] = subRequest(r, s)
					break
				}
			}
		}
	}
	return cv
}

// lookupRequest finds the (sub)request that a result's request field names.
func lookupRequest(claim *resourceapi.ResourceClaim, name string) (*request, string) {
	base, sub, hasSub := strings.Cut(name, "/")
	r := findRequest(claim, base)
	if r == nil {
		return nil, fmt.Sprintf("the claim has no request %q", base)
	}
	if len(r.FirstAvailable) > 0 {
		if !hasSub {
			return nil, fmt.Sprintf("request %q has firstAvailable subrequests, the result must name one as %q", base, base+"/<subrequest>")
		}
		for i := range r.FirstAvailable {
			if r.FirstAvailable[i].Name == sub {
				return subRequest(r, &r.FirstAvailable[i]), ""
			}
		}
		return nil, fmt.Sprintf("request %q has no subrequest %q", base, sub)
	}
	if hasSub {
		return nil, fmt.Sprintf("request %q has no subrequests, the result must not name subrequest %q", base, sub)
	}
	if r.Exactly == nil {
		return nil, fmt.Sprintf("request %q has neither exactly nor firstAvailable", base)
	}
	return exactRequest(r), ""
}

func findRequest(claim *resourceapi.ResourceClaim, name string) *resourceapi.DeviceRequest {
	for i := range claim.Spec.Devices.Requests {
		if claim.Spec.Devices.Requests[i].Name == name {
			return &claim.Spec.Devices.Requests[i]
		}
	}
	return nil
}

func claimRef(claim *resourceapi.ResourceClaim) string {
	if claim.Namespace == "" {
		return claim.Name
	}
	return claim.Namespace + "/" + claim.Name
}

// violation builds a violation for this claim. request and dev may be empty.
func (cv *claimView) violation(check CheckID, request, dev string, format string, args ...any) error {
	return &Violation{
		Check: check, ClaimIndex: cv.index, Claim: cv.ref, Request: request, Device: dev,
		Message: fmt.Sprintf(format, args...),
	}
}

// entryViolation builds a violation about one result entry.
func (cv *claimView) entryViolation(check CheckID, e *entry, format string, args ...any) error {
	return cv.violation(check, e.res.Request, e.id.String(), format, args...)
}

// usable returns the entries whose request and device are both resolved.
func (cv *claimView) usable() []*entry {
	var out []*entry
	for _, e := range cv.entries {
		if e.req != nil && e.dev != nil {
			out = append(out, e)
		}
	}
	return out
}
