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
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Twin claims. A gang's pods take their claims from one template, and a
// gang's joint check (PlanGang, the plugin's Filter beside siblings) asks
// for many identical claims in one call. The depth-first search then
// visits every ordering of the same devices among them: on a node of 4
// GPUs in dynamic MIG mode, 8 claims that prefer a whole GPU and accept a
// half took 65,000 steps to find that only halves fit, 9 took 830,000 to
// find that nothing does.
//
// A claim is the twin of the claim just before it in the call when both
// have the same spec and that spec's requests each ask for a count of
// devices (with or without firstAvailable alternatives), without
// constraints, admin access or capacity, and never more devices than a
// result holds (countedClaim). A twin's pick is where its first
// request's search stands: the alternative and the position of its first
// device, in the order the search walks. The search lets a twin pick only
// at or after its predecessor's pick. This changes no answer and no
// result: the search returns the first feasible assignment in its walk
// order, read claim by claim, and swapping the devices of two twins keeps
// an assignment feasible, so in the first feasible assignment a twin's
// devices come at or after its predecessor's — and so does its pick. The
// argument needs the walk to be the same for every twin: FirstFit walks
// the candidates in upstream's order, other policies in an order computed
// once per call and selector chain (policy.go), so both do. Skipping
// cannot hide an error either: every step of the search the twin skips,
// its predecessor took before its own pick, with no more devices in use
// than the twin has, so a selector that failed on a device there would
// have ended the search at the predecessor.

// twinPick is where a claim's search stands: the alternative of its first
// request and the position of that request's first device.
type twinPick struct {
	sub, pos int
}

// findTwins marks each claim that is the twin of the claim before it.
func findTwins(claims []*resourceapi.ResourceClaim) []bool {
	var twins []bool
	for ci := 1; ci < len(claims); ci++ {
		if !countedClaim(claims[ci]) || !equality.Semantic.DeepEqual(claims[ci].Spec.Devices, claims[ci-1].Spec.Devices) {
			continue
		}
		if twins == nil {
			twins = make([]bool, len(claims))
		}
		twins[ci] = true
	}
	return twins
}

// countedClaim reports a claim whose requests (one or more) each ask for
// a count of devices in every alternative, without constraints, admin
// access or capacity, and that can never take more devices than a result
// holds.
func countedClaim(claim *resourceapi.ResourceClaim) bool {
	d := &claim.Spec.Devices
	if len(d.Requests) == 0 || len(d.Constraints) != 0 {
		return false
	}
	counted := func(mode resourceapi.DeviceAllocationMode, count int64, capacity *resourceapi.CapacityRequirements) bool {
		return (mode == resourceapi.DeviceAllocationModeExactCount || mode == "") && count >= 1 && capacity == nil
	}
	// most is the most devices the claim can take: it must stay within the
	// result size limit, or the search's errMaxSize (which ends an
	// alternative early) could leave candidates the predecessor never
	// walked before those the twin skips.
	var most int64
	for i := range d.Requests {
		req := &d.Requests[i]
		if e := req.Exactly; e != nil {
			if len(req.FirstAvailable) != 0 || !counted(e.AllocationMode, e.Count, e.Capacity) || (e.AdminAccess != nil && *e.AdminAccess) {
				return false
			}
			most += e.Count
			continue
		}
		if len(req.FirstAvailable) == 0 {
			return false
		}
		var largest int64
		for _, sub := range req.FirstAvailable {
			if !counted(sub.AllocationMode, sub.Count, sub.Capacity) {
				return false
			}
			largest = max(largest, sub.Count)
		}
		most += largest
	}
	return most <= resourceapi.AllocationResultsMaxSize
}

// twinBound returns the least pick claim ci may make: its predecessor's
// current pick when ci is a twin, else the first pick.
func (c *call) twinBound(ci int) twinPick {
	if c.twins == nil || !c.twins[ci] {
		return twinPick{}
	}
	return c.claimStates[ci-1].pick
}
