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

package inventorygen

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Small constructors shared by all generators. They keep the objects in the
// API server's defaulted form and derive every identifier deterministically.

// taintTime is the fixed timeAdded of generated taints (the API server would
// default it to the creation time).
var taintTime = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

func ptr[T any](v T) *T { return &v }

func stringAttr(s string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{StringValue: &s}
}

func intAttr(i int64) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{IntValue: &i}
}

func boolAttr(b bool) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{BoolValue: &b}
}

func versionAttr(v string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{VersionValue: &v}
}

func quantity(s string) resource.Quantity { return resource.MustParse(s) }

func quantityPtr(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

func capacityOf(s string) resourceapi.DeviceCapacity {
	return resourceapi.DeviceCapacity{Value: quantity(s)}
}

func counterOf(s string) resourceapi.Counter {
	return resourceapi.Counter{Value: quantity(s)}
}

// hashUUID derives a stable RFC 4122 style UUID (version 5 layout) from parts.
func hashUUID(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	sum[6] = (sum[6] & 0x0f) | 0x50
	sum[8] = (sum[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}

func uidOf(kind, name string) types.UID {
	return types.UID(hashUUID(kind, name))
}

// newNode returns a Ready node with the given labels.
func newNode(name string, labels map[string]string) *v1.Node {
	allLabels := map[string]string{v1.LabelHostname: name}
	for k, v := range labels {
		allLabels[k] = v
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: uidOf("Node", name), Labels: allLabels},
		Status: v1.NodeStatus{
			Capacity: v1.ResourceList{
				v1.ResourceCPU:    quantity("64"),
				v1.ResourceMemory: quantity("512Gi"),
				v1.ResourcePods:   quantity("110"),
			},
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
			Phase:      v1.NodeRunning,
		},
	}
}

// nodeOwner makes a slice owned by its node, as kubelet-registered drivers do.
func nodeOwner(node *v1.Node) []metav1.OwnerReference {
	return []metav1.OwnerReference{{
		APIVersion: "v1",
		Kind:       "Node",
		Name:       node.Name,
		UID:        node.UID,
		Controller: ptr(true),
	}}
}

// newSlice returns an empty slice of a pool (generation 1).
func newSlice(name, driver, pool string, sliceCount int64) *resourceapi.ResourceSlice {
	return &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: uidOf("ResourceSlice", name)},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: driver,
			Pool:   resourceapi.ResourcePool{Name: pool, Generation: 1, ResourceSliceCount: sliceCount},
		},
	}
}

// celSelectors turns CEL expressions into selectors.
func celSelectors(expressions ...string) []resourceapi.DeviceSelector {
	if len(expressions) == 0 {
		return nil
	}
	selectors := make([]resourceapi.DeviceSelector, 0, len(expressions))
	for _, e := range expressions {
		selectors = append(selectors, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: e}})
	}
	return selectors
}

// newClass returns a DeviceClass with the given selectors.
func newClass(name string, expressions ...string) *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: uidOf("DeviceClass", name)},
		Spec:       resourceapi.DeviceClassSpec{Selectors: celSelectors(expressions...)},
	}
}

// driverClass selects every device of one driver.
func driverClass(name, driver string) *resourceapi.DeviceClass {
	return newClass(name, fmt.Sprintf("device.driver == %q", driver))
}

// sortDevices orders devices by name, byte-wise, as drivers publish them.
func sortDevices(devices []resourceapi.Device) {
	slices.SortStableFunc(devices, func(a, b resourceapi.Device) int { return strings.Compare(a.Name, b.Name) })
}

// maxDevicesPerSlice is the API limit for a slice holding these devices.
func maxDevicesPerSlice(devices []resourceapi.Device) int {
	for _, d := range devices {
		if len(d.ConsumesCounters) > 0 || len(d.Taints) > 0 {
			return resourceapi.ResourceSliceMaxDevicesWithAdvancedFeatures
		}
	}
	return resourceapi.ResourceSliceMaxDevices
}

// nodePool describes one node-local pool to be split into slices.
type nodePool struct {
	node   *v1.Node
	driver string
	// counterSets go into dedicated slices (at most 8 per slice).
	counterSets []resourceapi.CounterSet
	// deviceGroups are published in this order, each group in its own
	// slice(s); a group is sorted by name and split when it exceeds the
	// per-slice limit.
	deviceGroups [][]resourceapi.Device
}

// slices publishes a node-local pool named after the node: counter-set
// slices first, then device slices, all with the pool's total slice count.
// Slice names are "<node>-<driver>-<kind>-<nnn>" so that their byte-wise
// order is the publishing order.
func (p nodePool) slices() []*resourceapi.ResourceSlice {
	type part struct {
		counters []resourceapi.CounterSet
		devices  []resourceapi.Device
	}
	var parts []part
	for start := 0; start < len(p.counterSets); start += resourceapi.ResourceSliceMaxCounterSets {
		end := min(start+resourceapi.ResourceSliceMaxCounterSets, len(p.counterSets))
		parts = append(parts, part{counters: p.counterSets[start:end]})
	}
	for _, group := range p.deviceGroups {
		group = slices.Clone(group)
		sortDevices(group)
		limit := maxDevicesPerSlice(group)
		for start := 0; start < len(group); start += limit {
			end := min(start+limit, len(group))
			parts = append(parts, part{devices: group[start:end:end]})
		}
	}
	out := make([]*resourceapi.ResourceSlice, 0, len(parts))
	counterIndex, deviceIndex := 0, 0
	for _, pt := range parts {
		var name string
		if pt.counters != nil {
			name = fmt.Sprintf("%s-%s-counters-%03d", p.node.Name, p.driver, counterIndex)
			counterIndex++
		} else {
			name = fmt.Sprintf("%s-%s-devices-%03d", p.node.Name, p.driver, deviceIndex)
			deviceIndex++
		}
		s := newSlice(name, p.driver, p.node.Name, int64(len(parts)))
		s.OwnerReferences = nodeOwner(p.node)
		s.Spec.NodeName = ptr(p.node.Name)
		s.Spec.SharedCounters = pt.counters
		s.Spec.Devices = pt.devices
		out = append(out, s)
	}
	return out
}
