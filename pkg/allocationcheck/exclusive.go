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

	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// checkExclusive verifies rule 4: a device that is allocated without admin
// access and does not allow multiple allocations belongs to one claim only —
// it is neither allocated to another claim in these results nor already
// allocated (AllocatedDevices), shared (AllocatedSharedDeviceIDs) or
// consumed (AggregatedCapacity) according to the AllocatedState. A
// multi-allocatable device must not be in AllocatedDevices, which records
// only dedicated allocations.
//
// Admin access ignores all of this by definition; repeated use within one
// claim is checkRequests' business.
func checkExclusive(c *checker) []error {
	var errs []error
	owner := map[deviceID]*claimView{}
	for _, cv := range c.claims {
		for _, e := range cv.entries {
			if e.dev == nil || ptr.Deref(e.res.AdminAccess, false) {
				continue
			}
			if why := c.alreadyAllocated(e.id, c.multi(e.dev)); why != "" {
				errs = append(errs, cv.entryViolation(CheckExclusive, e, "%s", why))
			}
			if c.multi(e.dev) {
				continue
			}
			if first := owner[e.id]; first != nil && first != cv {
				errs = append(errs, cv.entryViolation(CheckExclusive, e, "device is also allocated to claim %s without admin access", first.ref))
				continue
			}
			owner[e.id] = cv
		}
	}
	return errs
}

// alreadyAllocated returns why the AllocatedState rules out allocating the
// device again, or "".
func (c *checker) alreadyAllocated(id deviceID, multi bool) string {
	state := c.in.Allocated
	sid := structured.MakeDeviceID(id.driver, id.pool, id.device)
	if state.AllocatedDevices.Has(sid) {
		return "device is already allocated (AllocatedState.AllocatedDevices)"
	}
	if multi {
		return ""
	}
	for shared := range state.AllocatedSharedDeviceIDs {
		if shared.GetDeviceID() == sid {
			return fmt.Sprintf("device is already shared (AllocatedState.AllocatedSharedDeviceIDs has %s) and does not allow multiple allocations", shared)
		}
	}
	if _, ok := state.AggregatedCapacity[sid]; ok {
		return "device already has consumed capacity (AllocatedState.AggregatedCapacity) and does not allow multiple allocations"
	}
	return ""
}
