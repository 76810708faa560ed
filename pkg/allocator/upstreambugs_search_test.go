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

package allocator_test

// Upstream's bugs of the search's rollback (see upstreambugs_test.go).

import (
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// ubAttr is attribute name of ubDriver, fully qualified, for constraints.
func ubAttr(name string) *resourceapi.FullyQualifiedName {
	return ptr.To(resourceapi.FullyQualifiedName(ubDriver + "/" + name))
}

// ubConstrained adds constraint c to claim and returns the claim.
func ubConstrained(claim *resourceapi.ResourceClaim, c resourceapi.DeviceConstraint) *resourceapi.ResourceClaim {
	claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, c)
	return claim
}

// TestARejectedOrBacktrackedCandidateGivesBackItsCountersAndConstraints:
// kubernetes/kubernetes#140436 (fixed by #140431). Symptom: a candidate
// rejected after its shared counters were reserved (for a taint or a
// claim constraint), or a share undone by backtracking, kept its counter
// reservation or its constraint entry, so the allocator saw a counter set
// exhausted or a constraint broken and left a schedulable pod pending.
func TestARejectedOrBacktrackedCandidateGivesBackItsCountersAndConstraints(t *testing.T) {
	one := map[string]string{"c": "1"}
	for _, tc := range []struct {
		name   string
		slices []*resourceapi.ResourceSlice
		claims []*resourceapi.ResourceClaim
		want   []string
	}{
		{"a device refused for an untolerated NoSchedule taint leaves the counter to the next device",
			ubPool(ubDevices().Device("d1", nil).Taint("broken", "", resourceapi.DeviceTaintEffectNoSchedule).ConsumesCounters("cs", one).
				Device("d2", nil).ConsumesCounters("cs", one), "cs", one),
			[]*resourceapi.ResourceClaim{ubClaim("c", ubRequest("r", 1))}, []string{"d2"}},
		{"a device refused for an untolerated NoExecute taint leaves the counter to the next device",
			ubPool(ubDevices().Device("d1", nil).Taint("broken", "", resourceapi.DeviceTaintEffectNoExecute).ConsumesCounters("cs", one).
				Device("d2", nil).ConsumesCounters("cs", one), "cs", one),
			[]*resourceapi.ResourceClaim{ubClaim("c", ubRequest("r", 1))}, []string{"d2"}},
		{"devices refused by matchAttribute leave the counters to the devices that match",
			ubPool(ubDevices().Device("d1", nil).Attribute("color", "red").ConsumesCounters("cs", one).
				Device("d2", nil).Attribute("color", "blue").ConsumesCounters("cs", one).
				Device("d3", nil).Attribute("color", "blue").ConsumesCounters("cs", one), "cs", map[string]string{"c": "2"}),
			[]*resourceapi.ResourceClaim{ubConstrained(ubClaim("c", ubRequest("r", 2)), resourceapi.DeviceConstraint{MatchAttribute: ubAttr("color")})},
			[]string{"d2", "d3"}},
		{"devices refused by distinctAttribute leave the counters to a device that differs",
			ubPool(ubDevices().Device("d1", nil).Attribute("color", "red").ConsumesCounters("cs", one).
				Device("d2", nil).Attribute("color", "red").ConsumesCounters("cs", one).
				Device("d3", nil).Attribute("color", "blue").ConsumesCounters("cs", one), "cs", map[string]string{"c": "2"}),
			[]*resourceapi.ResourceClaim{ubConstrained(ubClaim("c", ubRequest("r", 2)), resourceapi.DeviceConstraint{DistinctAttribute: ubAttr("color")})},
			[]string{"d1", "d3"}},
		{"a share undone by backtracking gives back the counter its first share reserved",
			ubPool(ubDevices().Device("d1", nil).Attribute("kind", "shared").AllowMultipleAllocations().ConsumesCounters("cs", one).
				Device("d2", nil).Attribute("kind", "shared").
				Device("d3", nil).Attribute("kind", "counter-only").ConsumesCounters("cs", one), "cs", one),
			[]*resourceapi.ResourceClaim{ubClaim("c", ubRequest("r0", 1, ubKind("shared")), ubRequest("r1", 1, ubKind("counter-only")))},
			[]string{"d2", "d3"}},
		{"a second share undone by backtracking leaves the counter with the share that remains",
			ubPool(ubDevices().Device("d1", nil).Attribute("kind", "shared").Attribute("color", "red").AllowMultipleAllocations().ConsumesCounters("cs", one).
				Device("d2", nil).Attribute("kind", "fallback").Attribute("color", "blue").
				Device("d3", nil).Attribute("kind", "gate").Attribute("color", "blue").
				Device("d4", nil).Attribute("kind", "counter-only").ConsumesCounters("cs", one), "cs", one),
			[]*resourceapi.ResourceClaim{
				ubClaim("c0", ubRequest("r0", 1, ubKind("shared"))),
				ubConstrained(ubClaim("c1",
					ubRequest("r1", 1, ubKind("shared")+" || "+ubKind("fallback")), ubRequest("r2", 1, ubKind("gate")), ubRequest("r3", 1, ubKind("shared"))),
					resourceapi.DeviceConstraint{MatchAttribute: ubAttr("color"), Requests: []string{"r1", "r2"}}),
				// The counter stays taken by d1's shares: d4 must not get it.
				ubClaim("c2", ubRequest("r4", 1, ubKind("counter-only")+" || "+ubKind("fallback"))),
			},
			// c2 cannot have d4 (d1 holds the counter) nor d2 (c1 has it):
			// nothing fits.
			nil},
		{"a second share undone by backtracking lets a later request share the device again",
			ubPool(ubDevices().Device("d1", nil).Attribute("kind", "shared").Attribute("color", "red").AllowMultipleAllocations().ConsumesCounters("cs", one).
				Device("d2", nil).Attribute("kind", "fallback").Attribute("color", "blue").
				Device("d3", nil).Attribute("kind", "gate").Attribute("color", "blue"), "cs", one),
			[]*resourceapi.ResourceClaim{
				ubClaim("c0", ubRequest("r0", 1, ubKind("shared"))),
				ubConstrained(ubClaim("c1",
					ubRequest("r1", 1, ubKind("shared")+" || "+ubKind("fallback")), ubRequest("r2", 1, ubKind("gate")), ubRequest("r3", 1, ubKind("shared"))),
					resourceapi.DeviceConstraint{MatchAttribute: ubAttr("color"), Requests: []string{"r1", "r2"}}),
			},
			[]string{"d1", "d2", "d3", "d1"}},
		{"an All alternative refused for capacity after joining a constraint leaves the constraint to the fallback",
			[]*resourceapi.ResourceSlice{ubDevices().Device("d1", map[string]string{"mem": "2"}).Attribute("kind", "cap").AllowMultipleAllocations().
				Device("d2", nil).Attribute("kind", "fallback").Obj()},
			[]*resourceapi.ResourceClaim{
				ubClaim("c0", ubWithCapacity(ubRequest("r0", 1, ubKind("cap")), "mem", "2")),
				ubConstrained(ubClaim("c1", ubFirstAvailable("r",
					ubAllSub("all", "mem", "2", ubKind("cap")), ubSub("one", 1, ubKind("fallback")))),
					resourceapi.DeviceConstraint{MatchAttribute: ubAttr("kind")}),
			},
			[]string{"d1", "d2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ubCase{slices: tc.slices, claims: tc.claims}.pin(t, tc.want)
		})
	}
}

// ubSub is an ExactCount subrequest for count devices of class "dev".
func ubSub(name string, count int64, selectors ...string) resourceapi.DeviceSubRequest {
	e := ubRequest(name, count, selectors...).Exactly
	return resourceapi.DeviceSubRequest{Name: name, DeviceClassName: e.DeviceClassName, AllocationMode: e.AllocationMode,
		Count: e.Count, Selectors: e.Selectors}
}

// ubAllSub is an All-mode subrequest asking each device for q of the
// named capacity (none if name is empty).
func ubAllSub(name, capacity, q string, selectors ...string) resourceapi.DeviceSubRequest {
	s := ubSub(name, 0, selectors...)
	s.AllocationMode, s.Count = resourceapi.DeviceAllocationModeAll, 0
	if capacity != "" {
		s.Capacity = ubWithCapacity(ubRequest("x", 1), capacity, q).Exactly.Capacity
	}
	return s
}

// ubFirstAvailable is a request of alternatives.
func ubFirstAvailable(name string, subs ...resourceapi.DeviceSubRequest) resourceapi.DeviceRequest {
	return resourceapi.DeviceRequest{Name: name, FirstAvailable: subs}
}

// ubNUMA adds the list-typed int attribute numa (DRAListTypeAttributes)
// to the device added last.
func ubNUMA(w *objects.SliceWrapper, values ...int64) *objects.SliceWrapper {
	d := &w.Spec.Devices[len(w.Spec.Devices)-1]
	if d.Attributes == nil {
		d.Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{}
	}
	d.Attributes["numa"] = resourceapi.DeviceAttribute{IntValues: values}
	return w
}

// TestAListIntersectionIsRestoredWhenTheSearchBacktracks:
// kubernetes/kubernetes#140326 (issue #140300). Symptom: with
// DRAListTypeAttributes, matchAttribute kept the intersection of a device
// the search had taken back, so with numa [1,2], [1], [2], [2] and three
// devices wanted, [1,2], [2], [2] was never found and the pod stayed
// pending.
func TestAListIntersectionIsRestoredWhenTheSearchBacktracks(t *testing.T) {
	features := defaultFeatures
	features.ListTypeAttributes = true
	// numa builds node n's devices d1, d2, ... with these lists; kinds
	// name a kind attribute per device ("" none).
	numa := func(kinds []string, lists ...[]int64) []*resourceapi.ResourceSlice {
		w := ubDevices()
		for i, l := range lists {
			w.Device("d"+string(rune('1'+i)), nil)
			ubNUMA(w, l...)
			if kinds != nil && kinds[i] != "" {
				w.Attribute("kind", kinds[i])
			}
		}
		return []*resourceapi.ResourceSlice{w.Obj()}
	}
	l := func(v ...int64) []int64 { return v }
	match := resourceapi.DeviceConstraint{MatchAttribute: ubAttr("numa")}
	distinct := resourceapi.DeviceConstraint{DistinctAttribute: ubAttr("numa")}
	for _, tc := range []struct {
		name   string
		slices []*resourceapi.ResourceSlice
		claims []*resourceapi.ResourceClaim
		want   []string
	}{
		{"three devices of one request share numa 2 once [1] is taken back",
			numa(nil, l(1, 2), l(1), l(2), l(2)),
			[]*resourceapi.ResourceClaim{ubConstrained(ubClaim("c", ubRequest("r", 3)), match)}, []string{"d1", "d3", "d4"}},
		{"a later request's devices share numa 2 with the first request's once [1] is taken back",
			numa(nil, l(1, 2), l(1), l(2), l(2)),
			[]*resourceapi.ResourceClaim{ubConstrained(ubClaim("c", ubRequest("a", 1), ubRequest("b", 2)), match)}, []string{"d1", "d3", "d4"}},
		{"a claim backtracked into by the next claim finds numa 2 again",
			numa([]string{"x", "only", "x", "x"}, l(1, 2), l(1), l(2), l(2)),
			[]*resourceapi.ResourceClaim{ubConstrained(ubClaim("c1", ubRequest("r", 2)), match), ubClaim("c2", ubRequest("r", 1, ubKind("only")))},
			[]string{"d1", "d3", "d2"}},
		{"distinctAttribute forgets a taken-back device's list",
			numa(nil, l(1), l(2, 3), l(3), l(2)),
			[]*resourceapi.ResourceClaim{ubConstrained(ubClaim("c", ubRequest("r", 3)), distinct)}, []string{"d1", "d3", "d4"}},
		{"no three devices share an element, backtracking or not",
			numa(nil, l(1, 2), l(1), l(2), l(3)),
			[]*resourceapi.ResourceClaim{ubConstrained(ubClaim("c", ubRequest("r", 3)), match)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ubCase{features: features, slices: tc.slices, claims: tc.claims}.pin(t, tc.want)
		})
	}
}
