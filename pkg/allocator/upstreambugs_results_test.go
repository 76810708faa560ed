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

// Upstream's bugs of All mode and of the results (see upstreambugs_test.go).

import (
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// ubAll is an All-mode request for the devices of class "dev" selected.
func ubAll(name string, selectors ...string) resourceapi.DeviceRequest {
	r := ubRequest(name, 0, selectors...)
	r.Exactly.AllocationMode, r.Exactly.Count = resourceapi.DeviceAllocationModeAll, 0
	return r
}

// TestAllModeOverDevicesThatConsumeCountersAllocatesInsteadOfPanicking:
// kubernetes/kubernetes#138882 (fixed by #138885). Symptom: a request with
// allocationMode All that selected a device consuming shared counters
// made kube-scheduler panic in Filter (the All-mode candidates lacked
// their pool, and the counter check dereferenced it). Here the answer must
// be right as well: All gets every selected device only if the counters
// cover them all.
func TestAllModeOverDevicesThatConsumeCountersAllocatesInsteadOfPanicking(t *testing.T) {
	mem := func(q string) map[string]string { return map[string]string{"memory": q} }
	// halves is node n's pool of n devices of kind half, 4Gi each, and a
	// device of kind big of 8Gi, out of a counter set of total.
	halves := func(n int, total string) []*resourceapi.ResourceSlice {
		w := ubDevices()
		for i := range n {
			w.Device("half-"+string(rune('0'+i)), nil).Attribute("kind", "half").ConsumesCounters("gpu", mem("4Gi"))
		}
		w.Device("big", nil).Attribute("kind", "big").ConsumesCounters("gpu", mem("8Gi"))
		return ubPool(w, "gpu", mem(total))
	}
	shared := ubPool(ubDevices().Device("whole", nil).Attribute("kind", "whole").AllowMultipleAllocations().ConsumesCounters("gpu", mem("8Gi")),
		"gpu", mem("8Gi"))
	for _, tc := range []struct {
		name   string
		slices []*resourceapi.ResourceSlice
		state  structured.AllocatedState
		claims []*resourceapi.ResourceClaim
		want   []string
	}{
		{"All takes every partition the counters cover", halves(2, "8Gi"), structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{ubClaim("c", ubAll("r", ubKind("half")))}, []string{"half-0", "half-1"}},
		{"All takes every device that consumes counters, whatever its kind", halves(1, "12Gi"), structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{ubClaim("c", ubAll("r"))}, []string{"half-0", "big"}},
		{"All does not fit when the counters cannot cover every partition", halves(3, "8Gi"), structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{ubClaim("c", ubAll("r", ubKind("half")))}, nil},
		{"All does not fit when an allocated device it does not select holds the counters", halves(2, "8Gi"),
			structured.AllocatedState{AllocatedDevices: sets.New(ubID("big"))},
			[]*resourceapi.ResourceClaim{ubClaim("c", ubAll("r", ubKind("half")))}, nil},
		{"All beside an ExactCount request shares the counters with it", halves(2, "16Gi"), structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{ubClaim("c", ubRequest("one", 1, ubKind("big")), ubAll("all", ubKind("half")))},
			[]string{"big", "half-0", "half-1"}},
		{"All beside an ExactCount request does not fit when together they exceed the counters", halves(2, "12Gi"), structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{ubClaim("c", ubRequest("one", 1, ubKind("big")), ubAll("all", ubKind("half")))}, nil},
		{"an All alternative the counters cannot cover falls back to the next alternative", halves(3, "8Gi"), structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{ubClaim("c", ubFirstAvailable("r", ubAllSub("all", "", "", ubKind("half")), ubSub("one", 1, ubKind("half"))))},
			[]string{"half-0"}},
		{"All takes a share of a multi-allocatable device that consumes counters", shared, structured.AllocatedState{},
			[]*resourceapi.ResourceClaim{ubClaim("c", ubAll("r"))}, []string{"whole"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ubCase{state: tc.state, slices: tc.slices, claims: tc.claims}.pin(t, tc.want)
		})
	}
}

// ubTolerating adds tolerations to request r (its first alternative, or
// the exact request) and returns it.
func ubTolerating(r resourceapi.DeviceRequest, tolerations ...resourceapi.DeviceToleration) resourceapi.DeviceRequest {
	if r.Exactly != nil {
		r.Exactly.Tolerations = tolerations
	} else {
		r.FirstAvailable[len(r.FirstAvailable)-1].Tolerations = tolerations
	}
	return r
}

// ubTolerationsOf returns the tolerations of claim's request (or
// "request/subrequest") named name.
func ubTolerationsOf(claim *resourceapi.ResourceClaim, name string) []resourceapi.DeviceToleration {
	base, sub, _ := strings.Cut(name, "/")
	for _, r := range claim.Spec.Devices.Requests {
		switch {
		case r.Name != base:
		case r.Exactly != nil:
			return r.Exactly.Tolerations
		default:
			for _, s := range r.FirstAvailable {
				if s.Name == sub {
					return s.Tolerations
				}
			}
		}
	}
	return nil
}

// TestATolerationOfANoExecuteTaintIsCopiedIntoTheResult:
// kubernetes/kubernetes#134434 (fixed by #134479). Symptom: a claim that
// tolerated a device's NoExecute taint got the device, but the allocation
// result lacked the toleration, so the eviction controller evicted the pod
// at once. Every result must carry exactly its request's tolerations, also
// on devices without a taint (a taint added later is judged by them).
func TestATolerationOfANoExecuteTaintIsCopiedIntoTheResult(t *testing.T) {
	noExecute := resourceapi.DeviceToleration{Key: "maintenance", Operator: resourceapi.DeviceTolerationOpExists,
		Effect: resourceapi.DeviceTaintEffectNoExecute}
	forFiveMinutes := resourceapi.DeviceToleration{Key: "maintenance", Operator: resourceapi.DeviceTolerationOpEqual, Value: "planned",
		Effect: resourceapi.DeviceTaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	// tainted is node n's pool of d0 (tainted NoExecute maintenance=planned)
	// and n untainted devices d1, d2, ...
	tainted := func(n int) []*resourceapi.ResourceSlice {
		w := ubDevices().Device("d0", nil).Attribute("kind", "tainted").Taint("maintenance", "planned", resourceapi.DeviceTaintEffectNoExecute)
		for i := range n {
			w.Device("d"+string(rune('1'+i)), nil).Attribute("kind", "clean")
		}
		return []*resourceapi.ResourceSlice{w.Obj()}
	}
	untainted := func(n int) []*resourceapi.ResourceSlice {
		w := ubDevices()
		for i := range n {
			w.Device("d"+string(rune('1'+i)), nil).Attribute("kind", "clean")
		}
		return []*resourceapi.ResourceSlice{w.Obj()}
	}
	for _, tc := range []struct {
		name   string
		slices []*resourceapi.ResourceSlice
		claims []*resourceapi.ResourceClaim
		want   []string
	}{
		{"a tolerated NoExecute taint: the result carries the toleration", tainted(1),
			[]*resourceapi.ResourceClaim{ubClaim("c", ubTolerating(ubRequest("r", 1), noExecute))}, []string{"d0"}},
		{"a toleration with a value and seconds is copied as it is", tainted(1),
			[]*resourceapi.ResourceClaim{ubClaim("c", ubTolerating(ubRequest("r", 1), forFiveMinutes))}, []string{"d0"}},
		{"an untolerated NoExecute taint keeps the device out", tainted(1),
			[]*resourceapi.ResourceClaim{ubClaim("c", ubRequest("r", 1))}, []string{"d1"}},
		{"the chosen alternative's toleration is copied", tainted(0),
			[]*resourceapi.ResourceClaim{ubClaim("c", ubTolerating(ubFirstAvailable("r", ubSub("clean", 1, ubKind("clean")), ubSub("any", 1)), noExecute))},
			[]string{"d0"}},
		{"every device of an All request carries the toleration", tainted(2),
			[]*resourceapi.ResourceClaim{ubClaim("c", ubTolerating(ubAll("r"), noExecute))}, []string{"d0", "d1", "d2"}},
		{"a device without taints carries the toleration too", untainted(1),
			[]*resourceapi.ResourceClaim{ubClaim("c", ubTolerating(ubRequest("r", 1), noExecute))}, []string{"d1"}},
		{"several devices without taints carry it too", untainted(3),
			[]*resourceapi.ResourceClaim{ubClaim("c", ubTolerating(ubRequest("r", 3), noExecute))}, []string{"d1", "d2", "d3"}},
		{"each claim's results carry that claim's tolerations", tainted(1),
			[]*resourceapi.ResourceClaim{ubClaim("c1", ubTolerating(ubRequest("r", 1, ubKind("clean")), forFiveMinutes)),
				ubClaim("c2", ubTolerating(ubRequest("r", 1), noExecute)), ubClaim("c3", ubRequest("r", 1))},
			nil},
		{"each claim's results carry that claim's tolerations, and one without gets none", tainted(2),
			[]*resourceapi.ResourceClaim{ubClaim("c1", ubTolerating(ubRequest("r", 1, ubKind("clean")), forFiveMinutes)),
				ubClaim("c2", ubTolerating(ubRequest("r", 1), noExecute)), ubClaim("c3", ubRequest("r", 1))},
			[]string{"d1", "d0", "d2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ubCase{slices: tc.slices, claims: tc.claims}.pin(t, tc.want)
			for ci, res := range o.results {
				for _, r := range res.Devices.Results {
					if want := ubTolerationsOf(tc.claims[ci], r.Request); !apiequality.Semantic.DeepEqual(r.Tolerations, want) {
						t.Errorf("claim %s, device %s: tolerations %+v, want the request's %+v", tc.claims[ci].Name, r.Device, r.Tolerations, want)
					}
				}
			}
		})
	}
}
