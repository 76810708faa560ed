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
	"sort"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/structured"
)

// checkCapacity verifies rule 8 (consumable capacity).
//
//   - Without ConsumableCapacity, no request may have capacity requirements.
//   - An entry for a device that does not allow multiple allocations has no
//     shareID and no consumedCapacity; if its request has capacity
//     requirements, the device can serve them (it has the capacity and some
//     amount at least as large as requested is allowed by its requestPolicy
//     and fits its value).
//   - An entry for a multi-allocatable device has a non-empty shareID, unique
//     among the device's shares (old and new), and a consumedCapacity with
//     exactly one entry per capacity of the device. Requested capacities
//     consume at least the requested amount and a value the requestPolicy
//     allows (a value equal to the policy's default always is); capacities
//     that are not requested consume the policy's default, or the whole value
//     without one.
//   - Per multi-allocatable device and capacity, AggregatedCapacity plus all
//     new consumedCapacity does not exceed the capacity's value.
func checkCapacity(c *checker) []error {
	var errs []error
	for _, cv := range c.claims {
		errs = append(errs, checkCapacityFeature(c, cv)...)
		for _, e := range cv.usable() {
			if c.multi(e.dev) {
				errs = append(errs, checkShare(c, cv, e)...)
			} else {
				errs = append(errs, checkDedicatedCapacity(c, cv, e)...)
			}
		}
	}
	errs = append(errs, checkShareIDsUnique(c)...)
	errs = append(errs, checkCapacitySums(c)...)
	return errs
}

// checkCapacitySums: per multi-allocatable device and capacity, the
// AggregatedCapacity plus every new share's consumedCapacity fits the
// capacity's value. A violation names the last share of the device.
func checkCapacitySums(c *checker) []error {
	var errs []error
	used := map[deviceID]map[resourceapi.QualifiedName]*resource.Quantity{}
	type share struct {
		cv *claimView
		e  *entry
	}
	last := map[deviceID]share{}
	for _, cv := range c.claims {
		for _, e := range cv.usable() {
			if !c.multi(e.dev) {
				continue
			}
			if used[e.id] == nil {
				used[e.id] = baseConsumption(c.in.Allocated, e.id)
			}
			for name, q := range e.res.ConsumedCapacity {
				if used[e.id][name] == nil {
					used[e.id][name] = resource.NewQuantity(0, resource.DecimalSI)
				}
				used[e.id][name].Add(q)
			}
			last[e.id] = share{cv, e}
		}
	}
	for _, id := range sortedDevices(used) {
		s := last[id]
		for _, name := range sortedNames(used[id]) {
			capacity, ok := s.e.dev.spec.Capacity[name]
			if ok && used[id][name].Cmp(capacity.Value) > 0 {
				errs = append(errs, s.cv.entryViolation(CheckCapacity, s.e,
					"capacity %s is over-consumed: %s consumed by all shares (previous allocations included), the device has %s",
					name, used[id][name], &capacity.Value))
			}
		}
	}
	return errs
}

// checkCapacityFeature: capacity requirements need ConsumableCapacity.
func checkCapacityFeature(c *checker, cv *claimView) []error {
	if c.features.ConsumableCapacity {
		return nil
	}
	var errs []error
	for _, r := range cv.claim.Spec.Devices.Requests {
		if r.Exactly != nil && r.Exactly.Capacity != nil {
			errs = append(errs, cv.violation(CheckCapacity, r.Name, "", "request has capacity requirements, but the ConsumableCapacity feature is disabled"))
		}
		for _, s := range r.FirstAvailable {
			if s.Capacity != nil {
				errs = append(errs, cv.violation(CheckCapacity, r.Name+"/"+s.Name, "", "subrequest has capacity requirements, but the ConsumableCapacity feature is disabled"))
			}
		}
	}
	return errs
}

func checkDedicatedCapacity(c *checker, cv *claimView, e *entry) []error {
	var errs []error
	if e.res.ShareID != nil {
		errs = append(errs, cv.entryViolation(CheckCapacity, e, "result #%d has shareID %s, but the device is not multi-allocatable", e.index, *e.res.ShareID))
	}
	if e.res.ConsumedCapacity != nil {
		errs = append(errs, cv.entryViolation(CheckCapacity, e, "result #%d has consumedCapacity, but the device is not multi-allocatable", e.index))
	}
	if c.features.ConsumableCapacity {
		if why := c.capacityShortfall(e.req.capacity, e.dev); why != "" {
			errs = append(errs, cv.entryViolation(CheckCapacity, e, "%s", why))
		}
	}
	return errs
}

// checkShare checks one share of a multi-allocatable device.
func checkShare(c *checker, cv *claimView, e *entry) []error {
	var errs []error
	if e.res.ShareID == nil || *e.res.ShareID == "" {
		errs = append(errs, cv.entryViolation(CheckCapacity, e, "result #%d has no shareID, but the device is multi-allocatable", e.index))
	}
	var requested map[resourceapi.QualifiedName]resource.Quantity
	if e.req.capacity != nil {
		requested = e.req.capacity.Requests
	}
	for _, name := range sortedNames(requested) {
		if _, ok := e.dev.spec.Capacity[name]; !ok {
			errs = append(errs, cv.entryViolation(CheckCapacity, e, "the request asks for capacity %s, which the device does not have", name))
		}
	}
	for _, name := range sortedNames(e.res.ConsumedCapacity) {
		if _, ok := e.dev.spec.Capacity[name]; !ok {
			errs = append(errs, cv.entryViolation(CheckCapacity, e, "result #%d consumes capacity %s, which the device does not have", e.index, name))
		}
	}
	for _, name := range sortedNames(e.dev.spec.Capacity) {
		capacity := e.dev.spec.Capacity[name]
		got, ok := e.res.ConsumedCapacity[name]
		if !ok {
			errs = append(errs, cv.entryViolation(CheckCapacity, e, "result #%d has no consumedCapacity for capacity %s", e.index, name))
			continue
		}
		if got.Sign() < 0 {
			errs = append(errs, cv.entryViolation(CheckCapacity, e, "consumed capacity %s is negative: %s", name, &got))
			continue
		}
		want, isRequested := requested[name]
		if !isRequested {
			expected := capacity.Value
			if capacity.RequestPolicy != nil && capacity.RequestPolicy.Default != nil {
				expected = *capacity.RequestPolicy.Default
			}
			if got.Cmp(expected) != 0 {
				errs = append(errs, cv.entryViolation(CheckCapacity, e, "capacity %s is not requested, so the share must consume %s, it consumes %s", name, &expected, &got))
			}
			continue
		}
		if got.Cmp(want) < 0 {
			errs = append(errs, cv.entryViolation(CheckCapacity, e, "capacity %s: the share consumes %s, less than the requested %s", name, &got, &want))
		}
		if why := c.policyViolation(got, capacity.RequestPolicy); why != "" {
			errs = append(errs, cv.entryViolation(CheckCapacity, e, "capacity %s: consumed %s violates the request policy: %s", name, &got, why))
		}
	}
	return errs
}

// checkShareIDsUnique: no two shares of one device, old or new, have the
// same shareID.
func checkShareIDsUnique(c *checker) []error {
	var errs []error
	seen := map[structured.SharedDeviceID]bool{}
	for id := range c.in.Allocated.AllocatedSharedDeviceIDs {
		seen[id] = true
	}
	for _, cv := range c.claims {
		for _, e := range cv.usable() {
			if !c.multi(e.dev) || e.res.ShareID == nil || *e.res.ShareID == "" {
				continue
			}
			sid := structured.MakeSharedDeviceID(structured.MakeDeviceID(e.id.driver, e.id.pool, e.id.device), e.res.ShareID)
			if seen[sid] {
				errs = append(errs, cv.entryViolation(CheckCapacity, e, "shareID %s is already used by another share of the device", *e.res.ShareID))
			}
			seen[sid] = true
		}
	}
	return errs
}

func baseConsumption(state structured.AllocatedState, id deviceID) map[resourceapi.QualifiedName]*resource.Quantity {
	out := map[resourceapi.QualifiedName]*resource.Quantity{}
	for name, q := range state.AggregatedCapacity[structured.MakeDeviceID(id.driver, id.pool, id.device)] {
		if q != nil {
			c := q.DeepCopy()
			out[name] = &c
		}
	}
	return out
}

// capacityShortfall returns why a device cannot serve capacity requirements
// at all, or "".
func (c *checker) capacityShortfall(req *resourceapi.CapacityRequirements, d *device) string {
	if req == nil {
		return ""
	}
	for _, name := range sortedNames(req.Requests) {
		want := req.Requests[name]
		capacity, ok := d.spec.Capacity[name]
		if !ok {
			return fmt.Sprintf("the request asks for capacity %s, which the device does not have", name)
		}
		if _, why := c.smallestConsumption(want, capacity); why != "" {
			return fmt.Sprintf("the device cannot serve %s of capacity %s: %s", &want, name, why)
		}
	}
	return ""
}

func (c *checker) canServeCapacity(req *resourceapi.CapacityRequirements, d *device) bool {
	return c.capacityShortfall(req, d) == ""
}

func sortedNames[V any](m map[resourceapi.QualifiedName]V) []resourceapi.QualifiedName {
	out := make([]resourceapi.QualifiedName, 0, len(m))
	for name := range m {
		out = append(out, name)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
