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
	var candidates []*resourceapi.ResourceSlice
	for _, slice := range slices {
		if node == nil || sliceMayHoldNode(slice, node) {
			candidates = append(candidates, slice)
		}
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

// sliceMayHoldNode reports a slice whose devices may be on the node.
func sliceMayHoldNode(slice *resourceapi.ResourceSlice, node *v1.Node) bool {
	spec := &slice.Spec
	switch {
	case spec.NodeName != nil && *spec.NodeName == node.Name:
		return true
	case spec.AllNodes != nil && *spec.AllNodes:
		return true
	case spec.NodeSelector != nil:
		return selects(spec.NodeSelector, node)
	}
	return perDevice(slice)
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
		return selects(device.NodeSelector, node)
	}
	return false
}

// selects reports a node selector matching the node; an invalid selector
// matches nothing.
func selects(sel *v1.NodeSelector, node *v1.Node) bool {
	ns, err := nodeaffinity.NewNodeSelector(sel)
	return err == nil && ns.Match(node)
}
