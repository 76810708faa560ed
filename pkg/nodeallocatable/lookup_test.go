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

package nodeallocatable

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// slice builds a slice of driver's pool holding the named devices, placed
// by place.
func slice(name, pool string, place func(*resourceapi.ResourceSliceSpec), devices ...resourceapi.Device) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourceapi.ResourceSliceSpec{
		Driver: driver, Pool: resourceapi.ResourcePool{Name: pool}, Devices: devices,
	}}
	place(&s.Spec)
	return s
}

func onNode(name string) func(*resourceapi.ResourceSliceSpec) {
	return func(s *resourceapi.ResourceSliceSpec) { s.NodeName = ptr.To(name) }
}

func zoneSelector(zone string) *v1.NodeSelector {
	return &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
		{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{zone}},
	}}}}
}

func TestSliceDevices(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"zone": "a"}}}
	named := func(name string) resourceapi.Device { return resourceapi.Device{Name: name} }
	perDeviceOn := func(name string, node string) resourceapi.Device {
		return resourceapi.Device{Name: name, NodeName: ptr.To(node)}
	}
	slices := []*resourceapi.ResourceSlice{
		slice("other-node", "pool-other", onNode("node-2"), named("dev-0")),
		slice("own", "pool-own", onNode("node-1"), named("dev-0")),
		slice("everywhere", "pool-net", func(s *resourceapi.ResourceSliceSpec) { s.AllNodes = ptr.To(true) }, named("nic-0")),
		slice("zone-a", "pool-zone", func(s *resourceapi.ResourceSliceSpec) { s.NodeSelector = zoneSelector("a") }, named("fabric-0")),
		slice("zone-b", "pool-zone-b", func(s *resourceapi.ResourceSliceSpec) { s.NodeSelector = zoneSelector("b") }, named("fabric-0")),
		slice("per-device", "pool-pd", func(s *resourceapi.ResourceSliceSpec) { s.PerDeviceNodeSelection = ptr.To(true) },
			perDeviceOn("mine", "node-1"), perDeviceOn("theirs", "node-2"), resourceapi.Device{Name: "shared", AllNodes: ptr.To(true)}),
		// The same device twice (an inconsistent pool): the first slice in
		// input order wins, whether the node's own or a shared one.
		slice("dup-all-first", "pool-dup", func(s *resourceapi.ResourceSliceSpec) { s.AllNodes = ptr.To(true) }, named("d")),
		slice("dup-own-second", "pool-dup", onNode("node-1"), named("d")),
		slice("dup2-own-first", "pool-dup2", onNode("node-1"), named("d")),
		slice("dup2-all-second", "pool-dup2", func(s *resourceapi.ResourceSliceSpec) { s.AllNodes = ptr.To(true) }, named("d")),
	}
	// One index serves every node.
	index := IndexSlices(slices)
	for _, tc := range []struct {
		name     string
		node     *v1.Node
		pool     string
		device   string
		wantFrom string // the slice the device comes from; "" for an error
		wantErr  string
	}{
		{name: "a device of the node's own slice is found", node: node, pool: "pool-own", device: "dev-0", wantFrom: "own"},
		{name: "a device of another node's slice is not", node: node, pool: "pool-other", device: "dev-0", wantErr: "device dev-0 not found in pool pool-other for driver dra.example.com"},
		{name: "a device of a slice for all nodes is found", node: node, pool: "pool-net", device: "nic-0", wantFrom: "everywhere"},
		{name: "a device of a slice whose selector matches the node is found", node: node, pool: "pool-zone", device: "fabric-0", wantFrom: "zone-a"},
		{name: "a device of a slice whose selector does not match is not", node: node, pool: "pool-zone-b", device: "fabric-0", wantErr: "not found in pool pool-zone-b"},
		{name: "a per-device slice's device on the node is found", node: node, pool: "pool-pd", device: "mine", wantFrom: "per-device"},
		{name: "a per-device slice's device for all nodes is found", node: node, pool: "pool-pd", device: "shared", wantFrom: "per-device"},
		{name: "a per-device slice's device on another node is an error", node: node, pool: "pool-pd", device: "theirs", wantErr: "device theirs does not match node"},
		{name: "without a node every slice counts", node: nil, pool: "pool-other", device: "dev-0", wantFrom: "other-node"},
		{name: "a shared slice before the node's own wins", node: node, pool: "pool-dup", device: "d", wantFrom: "dup-all-first"},
		{name: "the node's own slice before a shared one wins", node: node, pool: "pool-dup2", device: "d", wantFrom: "dup2-own-first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, lookup := range []DeviceLookup{SliceDevices(slices, tc.node), index.On(tc.node)} {
				got, err := lookup(&resourceapi.DeviceRequestAllocationResult{Driver: driver, Pool: tc.pool, Device: tc.device})
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("lookup: %v, %v; want an error saying %q", got, err, tc.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if from := sliceOf(slices, got); from != tc.wantFrom {
					t.Errorf("device from slice %q, want %q", from, tc.wantFrom)
				}
			}
		})
	}
}

// sliceOf names the slice that holds the device.
func sliceOf(slices []*resourceapi.ResourceSlice, d *resourceapi.Device) string {
	for _, s := range slices {
		for i := range s.Spec.Devices {
			if &s.Spec.Devices[i] == d {
				return s.Name
			}
		}
	}
	return ""
}
