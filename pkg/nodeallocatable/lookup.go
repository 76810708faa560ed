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
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// SliceDevices is the DeviceLookup the in-tree plugin uses on a node: the
// first device of the result's driver, pool and name among the slices
// that may hold the node's devices — slices of the node, of all nodes, of
// nodes its selector matches, and slices that select nodes per device (a
// device of such a slice that does not select the node is an error). A
// nil node takes every slice. Pool generations are not compared, as
// in-tree.
func SliceDevices(slices []*resourceapi.ResourceSlice, node *v1.Node) DeviceLookup {
	return IndexSlices(slices).On(node)
}

// Slices are ResourceSlices indexed by the nodes they may hold devices
// of, to look devices up on many nodes (SliceDevices on each would scan
// every slice per node). Read-only once built.
type Slices struct {
	all []*resourceapi.ResourceSlice
	// local holds, per node name, the indexes (into all, ascending) of
	// the slices of that node.
	local map[string][]int
	// shared are the other slices' indexes, ascending, with their
	// compiled node selector (nil: all nodes, or per device).
	shared []sharedSlice
}

type sharedSlice struct {
	index    int
	selector *nodeaffinity.NodeSelector
}

// IndexSlices indexes the slices; a slice of no node, all nodes, selected
// nodes or per-device selection cannot hold any node's devices. An
// invalid node selector selects nothing.
func IndexSlices(slices []*resourceapi.ResourceSlice) *Slices {
	x := &Slices{all: slices, local: map[string][]int{}}
	for i, slice := range slices {
		spec := &slice.Spec
		switch {
		case spec.NodeName != nil:
			x.local[*spec.NodeName] = append(x.local[*spec.NodeName], i)
		case spec.AllNodes != nil && *spec.AllNodes, perDevice(slice):
			x.shared = append(x.shared, sharedSlice{index: i})
		case spec.NodeSelector != nil:
			if sel, err := nodeaffinity.NewNodeSelector(spec.NodeSelector); err == nil {
				x.shared = append(x.shared, sharedSlice{index: i, selector: sel})
			}
		}
	}
	return x
}

// On is SliceDevices on the node (every slice when node is nil).
func (x *Slices) On(node *v1.Node) DeviceLookup {
	candidates := x.all
	if node != nil {
		candidates = x.candidates(node)
	}
	return func(result *resourceapi.DeviceRequestAllocationResult) (*resourceapi.Device, error) {
		for _, slice := range candidates {
			if slice.Spec.Driver != result.Driver || slice.Spec.Pool.Name != result.Pool {
				continue
			}
			for i := range slice.Spec.Devices {
				device := &slice.Spec.Devices[i]
				if device.Name != result.Device {
					continue
				}
				if perDevice(slice) && !deviceSelects(device, node) {
					return nil, fmt.Errorf("device %s does not match node", result.Device)
				}
				return device, nil
			}
		}
		return nil, fmt.Errorf("device %s not found in pool %s for driver %s", result.Device, result.Pool, result.Driver)
	}
}

// candidates are the slices that may hold the node's devices, in input
// order (the first match wins, as in-tree).
func (x *Slices) candidates(node *v1.Node) []*resourceapi.ResourceSlice {
	local := x.local[node.Name]
	out := make([]*resourceapi.ResourceSlice, 0, len(local)+len(x.shared))
	j := 0
	for _, s := range x.shared {
		if s.selector != nil && !s.selector.Match(node) {
			continue
		}
		for ; j < len(local) && local[j] < s.index; j++ {
			out = append(out, x.all[local[j]])
		}
		out = append(out, x.all[s.index])
	}
	for ; j < len(local); j++ {
		out = append(out, x.all[local[j]])
	}
	return out
}

func perDevice(slice *resourceapi.ResourceSlice) bool {
	return slice.Spec.PerDeviceNodeSelection != nil && *slice.Spec.PerDeviceNodeSelection
}

// deviceSelects reports whether a device of a per-device slice is on the
// node (any node when node is nil).
func deviceSelects(device *resourceapi.Device, node *v1.Node) bool {
	switch {
	case node == nil:
		return true
	case device.NodeName != nil && *device.NodeName == node.Name:
		return true
	case device.AllNodes != nil && *device.AllNodes:
		return true
	case device.NodeSelector != nil:
		ns, err := nodeaffinity.NewNodeSelector(device.NodeSelector)
		return err == nil && ns.Match(node)
	}
	return false
}
