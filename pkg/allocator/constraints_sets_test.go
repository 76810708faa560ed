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

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestListTypeAttributeConstraints runs upstream's list-attribute cases
// (allocator_testing.go, "list-attributes-*") through both allocators with
// ListTypeAttributes on and pins the devices we must pick; the last cases
// have the feature off, where lists compare as scalars.
func TestListTypeAttributeConstraints(t *testing.T) {
	const drv, attr = "gpu.example.com", "gpu.example.com/links"
	type dev struct {
		name   string
		scalar string   // a string value, if set
		list   []string // else a list of strings
	}
	sliceOf := func(devs ...dev) *resourceapi.ResourceSlice {
		w := objects.MakeSlice("n-gpus", drv, "n")
		for _, d := range devs {
			w.Device(d.name, nil)
			if d.list != nil {
				w.StringsAttribute("links", d.list...)
			} else {
				w.Attribute("links", d.scalar)
			}
		}
		return w.Obj()
	}
	match := func(count int64) *resourceapi.ResourceClaim {
		c := objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", count))
		c.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: ptr.To[resourceapi.FullyQualifiedName](attr)}}
		return c
	}
	distinct := func(count int64) *resourceapi.ResourceClaim {
		c := objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", count))
		c.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{DistinctAttribute: ptr.To[resourceapi.FullyQualifiedName](attr)}}
		return c
	}
	on := defaultFeatures
	on.ListTypeAttributes = true
	l := func(v ...string) []string { return v }
	for _, tc := range []struct {
		name  string
		off   bool
		devs  []dev
		claim *resourceapi.ResourceClaim
		want  []string // nil: does not fit
	}{
		{"matchAttribute accepts lists with common elements", false,
			[]dev{{"d1", "", l("v1", "v2", "v3")}, {"d2", "", l("v2", "v3", "v4")}}, match(2), []string{"d1", "d2"}},
		{"matchAttribute needs one element common to all devices, not to each pair", false,
			[]dev{{"d1", "", l("v1", "v2")}, {"d2", "", l("v2", "v3")}, {"d3", "", l("v3", "v1")}}, match(3), nil},
		{"matchAttribute restores the intersection when it backtracks", false,
			[]dev{{"d1", "", l("v1", "v2")}, {"d2", "", l("v1")}, {"d3", "", l("v2")}, {"d4", "", l("v2")}}, match(3), []string{"d1", "d3", "d4"}},
		{"matchAttribute treats a scalar as a set of one", false,
			[]dev{{"d1", "v1", nil}, {"d2", "", l("v1", "v2")}}, match(2), []string{"d1", "d2"}},
		{"matchAttribute refuses disjoint lists", false,
			[]dev{{"d1", "", l("v1", "v2")}, {"d2", "", l("v3", "v4")}}, match(2), nil},
		{"matchAttribute never takes a device whose list is empty", false,
			[]dev{{"d1", "", l()}, {"d2", "", l("v1")}, {"d3", "", l("v1")}}, match(2), []string{"d2", "d3"}},
		{"distinctAttribute takes pairwise disjoint lists", false,
			[]dev{{"d1", "", l("v1", "v2")}, {"d2", "", l("v2", "v3")}, {"d3", "", l("v3", "v4")}}, distinct(2), []string{"d1", "d3"}},
		{"distinctAttribute refuses a scalar inside another device's list", false,
			[]dev{{"d1", "v1", nil}, {"d2", "", l("v1", "v2")}}, distinct(2), nil},
		{"without the feature two lists never match", true,
			[]dev{{"d1", "", l("v1", "v2")}, {"d2", "", l("v1", "v2")}}, match(2), nil},
		{"without the feature a first device with a list is accepted", true,
			[]dev{{"d1", "", l("v1", "v2")}}, match(1), []string{"d1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			features := on
			if tc.off {
				features = defaultFeatures
			}
			dc := diffCase{features: features, classes: inventorygen.NewClassLister(objects.DeviceClass("gpu", drv)),
				slices: []*resourceapi.ResourceSlice{sliceOf(tc.devs...)}, claims: []*resourceapi.ResourceClaim{tc.claim},
				nodes: []*v1.Node{objects.MakeNode("n").Obj()}}
			pinnedOutcome(t, dc, tc.want, "")
		})
	}
}
