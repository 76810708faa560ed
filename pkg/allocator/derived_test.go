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

// TestDerivedAttributes runs upstream's derived-attribute cases
// (allocator_testing.go, "derived-attributes-*") through both allocators
// with DerivedAttributes on, pinning the devices we must pick or the error.
func TestDerivedAttributes(t *testing.T) {
	const drv = "gpu.example.com"
	const attr resourceapi.FullyQualifiedName = "gpu.example.com/myAttr"
	slice := objects.MakeSlice("n-gpus", drv, "n").
		Device("dev-1", nil).Attribute("myAttr", "value-1").IntAttribute("numa", 1).
		Device("dev-2", nil).Attribute("myAttr", "value-2").Attribute("numa", "one").Obj()
	// twoRequests asks for one device per request under one matchAttribute
	// on attr; req-0 derives it with expr when expr is set.
	twoRequests := func(expr string) *resourceapi.ResourceClaim {
		c := objects.Claim("c", "ns", objects.ClaimSpec("req-0", "gpu", 1))
		c.Spec.Devices.Requests = append(c.Spec.Devices.Requests, objects.ClaimSpec("req-1", "gpu", 1).Devices.Requests[0])
		if expr != "" {
			c.Spec.Devices.Requests[0].Exactly.DerivedAttributes = []resourceapi.DeviceDerivedAttribute{{Name: attr, Expression: expr}}
		}
		c.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: ptr.To(attr)}}
		return c
	}
	// twoDevices asks for two devices matching on a derived attribute.
	twoDevices := func(expr string) *resourceapi.ResourceClaim {
		c := objects.Claim("c", "ns", objects.ClaimSpec("req-0", "gpu", 2))
		c.Spec.Devices.Requests[0].Exactly.DerivedAttributes = []resourceapi.DeviceDerivedAttribute{{Name: "derived/x", Expression: expr}}
		c.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: ptr.To[resourceapi.FullyQualifiedName]("derived/x")}}
		return c
	}
	on := defaultFeatures
	on.DerivedAttributes = true
	for _, tc := range []struct {
		name    string
		claim   *resourceapi.ResourceClaim
		want    []string // nil: does not fit
		wantErr string
	}{
		{"without a derivation the devices' own values differ", twoRequests(""), nil, ""},
		{"a derivation shadows the attribute for its own request only", twoRequests(`"value-2"`), []string{"dev-1", "dev-2"}, ""},
		{"devices whose derived values agree match", twoDevices(`device.driver`), []string{"dev-1", "dev-2"}, ""},
		{"derived values of different types never match", twoDevices(`device.attributes["gpu.example.com"].numa`), nil, ""},
		{"a derivation that fails at run time fails the claim with upstream's message", twoDevices(`device.attributes["gpu.example.com"].missingAttr`), nil,
			"evaluate derived attribute derived/x on device gpu.example.com/n/dev-1 failed: no such key: missingAttr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dc := diffCase{features: on, classes: inventorygen.NewClassLister(objects.DeviceClass("gpu", drv)),
				slices: []*resourceapi.ResourceSlice{slice}, claims: []*resourceapi.ResourceClaim{tc.claim},
				nodes: []*v1.Node{objects.MakeNode("n").Obj()}}
			pinnedOutcome(t, dc, tc.want, tc.wantErr)
		})
	}
	t.Run("without the feature a request with derived attributes is an error", func(t *testing.T) {
		dc := diffCase{features: defaultFeatures, classes: inventorygen.NewClassLister(objects.DeviceClass("gpu", drv)),
			slices: []*resourceapi.ResourceSlice{slice}, claims: []*resourceapi.ResourceClaim{twoDevices(`device.driver`)},
			nodes: []*v1.Node{objects.MakeNode("n").Obj()}}
		pinnedOutcome(t, dc, nil, "cannot handle request with derived attributes, the feature is disabled")
	})
}
