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
	"errors"
	"sort"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"
)

// checkRequests verifies rule 3, claim by claim: result entries name the
// claim's requests, each request got the devices it asked for, every device
// matches its class and request selectors, dedicated devices are not used
// twice in one claim and adminAccess is reported as requested.
func checkRequests(c *checker) []error {
	var errs []error
	for _, cv := range c.claims {
		errs = append(errs, checkRequestNames(cv)...)
		errs = append(errs, checkRequestFeatures(c, cv)...)
		errs = append(errs, checkDeviceCounts(c, cv)...)
		errs = append(errs, checkSelectorsMatch(c, cv)...)
		errs = append(errs, checkReuseWithinClaim(c, cv)...)
		errs = append(errs, checkAdminAccess(cv)...)
	}
	return errs
}

// checkRequestNames: every entry names "<request>" or, for firstAvailable,
// "<request>/<subrequest>"; all entries of a request name the same
// subrequest; at most AllocationResultsMaxSize entries.
func checkRequestNames(cv *claimView) []error {
	var errs []error
	if n := len(cv.entries); n > resourceapi.AllocationResultsMaxSize {
		errs = append(errs, cv.violation(CheckRequests, "", "", "%d devices allocated, at most %d are allowed", n, resourceapi.AllocationResultsMaxSize))
	}
	for _, e := range cv.entries {
		switch {
		case e.req == nil:
			errs = append(errs, cv.entryViolation(CheckRequests, e, "result #%d: %s", e.index, e.problem))
		case e.req.name != cv.chosen[e.req.base].name:
			errs = append(errs, cv.entryViolation(CheckRequests, e, "result #%d uses subrequest %q, but earlier results of request %q use %q",
				e.index, e.req.sub, e.req.base, cv.chosen[e.req.base].sub))
		}
	}
	return errs
}

// checkRequestFeatures: requests only use fields whose features are enabled.
func checkRequestFeatures(c *checker, cv *claimView) []error {
	var errs []error
	for _, r := range cv.claim.Spec.Devices.Requests {
		if len(r.FirstAvailable) > 0 && !c.features.PrioritizedList {
			errs = append(errs, cv.violation(CheckRequests, r.Name, "", "request has firstAvailable subrequests, but the PrioritizedList feature is disabled"))
		}
		if r.Exactly != nil && r.Exactly.AdminAccess != nil && !c.features.AdminAccess {
			errs = append(errs, cv.violation(CheckRequests, r.Name, "", "request sets adminAccess, but the AdminAccess feature is disabled"))
		}
	}
	return errs
}

// checkDeviceCounts: ExactCount requests get exactly count devices, All
// requests exactly the devices on the node that match (see allDevices).
func checkDeviceCounts(c *checker, cv *claimView) []error {
	var errs []error
	for _, r := range cv.claim.Spec.Devices.Requests {
		chosen := cv.chosen[r.Name]
		if chosen == nil {
			errs = append(errs, cv.violation(CheckRequests, r.Name, "", "no device allocated for the request"))
			continue
		}
		got := map[deviceID]int{}
		n := 0
		for _, e := range cv.entries {
			if e.req != nil && e.req.name == chosen.name {
				got[e.id]++
				n++
			}
		}
		switch chosen.mode {
		case resourceapi.DeviceAllocationModeExactCount:
			if int64(n) != chosen.count {
				errs = append(errs, cv.violation(CheckRequests, chosen.name, "", "%d devices allocated, the request wants exactly %d", n, chosen.count))
			}
		case resourceapi.DeviceAllocationModeAll:
			errs = append(errs, checkAllDevices(c, cv, chosen, got)...)
		default:
			errs = append(errs, cv.violation(CheckRequests, chosen.name, "", "unsupported allocation mode %q", chosen.mode))
		}
	}
	return errs
}

// checkAllDevices compares the devices allocated for an All request with the
// devices it must get.
func checkAllDevices(c *checker, cv *claimView, r *request, got map[deviceID]int) []error {
	var errs []error
	want, problems := c.allDevices(r)
	for _, p := range problems {
		errs = append(errs, cv.violation(CheckRequests, r.name, "", "asks for all devices, but %s", p))
	}
	if len(want) == 0 && len(problems) == 0 {
		errs = append(errs, cv.violation(CheckRequests, r.name, "", "asks for all devices, but no device on node %s matches", c.node.Name))
	}
	for _, id := range c.inv.order {
		switch {
		case want[id] && got[id] == 0:
			errs = append(errs, cv.violation(CheckRequests, r.name, id.String(), "asks for all matching devices, but this matching device is not allocated"))
		case !want[id] && got[id] > 0:
			errs = append(errs, cv.violation(CheckRequests, r.name, id.String(), "asks for all matching devices, but this device is not one of them"))
		}
	}
	// Devices missing from the slices are reported by checkDevices.
	return errs
}

// allDevices returns the devices an All request must get: every device of a
// pool usable on the node, as listed in the generation the node sees (see
// buildInventory), that is available on the node, selectable under the
// enabled features, matches class and request selectors and — with
// ConsumableCapacity — can serve the requested capacity at all. Devices that
// are in use or tainted are included: an All request then cannot be
// satisfied. problems lists why the set cannot be known (pools incomplete
// for the node, selectors that fail); pools that are obsolete for the node
// are not part of what it sees, as for allocators.
func (c *checker) allDevices(r *request) (map[deviceID]bool, []string) {
	want := map[deviceID]bool{}
	var problems []string
	for _, p := range c.inv.pools {
		if p.state == poolIncomplete {
			problems = append(problems, p.why)
		}
	}
	sort.Strings(problems)
	if _, err := c.class(r.className); err != nil {
		return want, append(problems, "its class cannot be looked up: "+err.Error())
	}
	for _, id := range c.inv.order {
		for _, d := range c.inv.devices[id] {
			if c.unavailable(d) != "" || (!c.features.DeviceBindingAndStatus && len(d.spec.BindingConditions) > 0) {
				continue
			}
			if err := c.matchSelectors(r, d); err != nil {
				if !errors.Is(err, errNoMatch) {
					problems = append(problems, "device "+id.String()+": "+err.Error())
				}
				continue
			}
			if c.features.ConsumableCapacity && !c.canServeCapacity(r.capacity, d) {
				continue
			}
			want[id] = true
		}
	}
	return want, problems
}

// checkSelectorsMatch: every device satisfies the selectors of the chosen
// request's class and of the request.
func checkSelectorsMatch(c *checker, cv *claimView) []error {
	var errs []error
	for _, e := range cv.usable() {
		if err := c.matchSelectors(e.req, e.dev); err != nil {
			msg := err.Error()
			if errors.Is(err, errNoMatch) {
				msg = strings.Replace(msg, errNoMatch.Error(), "device does not match the selectors", 1)
			}
			errs = append(errs, cv.entryViolation(CheckRequests, e, "%s", msg))
		}
	}
	return errs
}

// checkReuseWithinClaim: a device appears at most once per claim unless it
// allows multiple allocations (with ConsumableCapacity).
func checkReuseWithinClaim(c *checker, cv *claimView) []error {
	var errs []error
	seen := map[deviceID]bool{}
	for _, e := range cv.entries {
		if seen[e.id] && (e.dev == nil || !c.multi(e.dev)) {
			errs = append(errs, cv.entryViolation(CheckRequests, e, "result #%d allocates the device a second time in this claim, but it does not allow multiple allocations", e.index))
		}
		seen[e.id] = true
	}
	return errs
}

// checkAdminAccess: results report adminAccess true exactly when their
// request asked for it.
func checkAdminAccess(cv *claimView) []error {
	var errs []error
	for _, e := range cv.entries {
		if e.req == nil {
			continue
		}
		want, got := ptr.Deref(e.req.adminAccess, false), ptr.Deref(e.res.AdminAccess, false)
		if want != got {
			errs = append(errs, cv.entryViolation(CheckRequests, e, "result #%d reports adminAccess %t, the request asks for %t", e.index, got, want))
		}
	}
	return errs
}
