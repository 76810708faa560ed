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

package inventory

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/utils/ptr"
)

// nodeSelection is a slice's or device's nodeName / allNodes / nodeSelector,
// with the selector parsed once.
type nodeSelection struct {
	nodeName string
	allNodes bool
	raw      *v1.NodeSelector
	selector *nodeaffinity.NodeSelector
	parseErr error
}

func newNodeSelection(nodeName *string, allNodes *bool, sel *v1.NodeSelector) nodeSelection {
	ns := nodeSelection{nodeName: ptr.Deref(nodeName, ""), allNodes: ptr.Deref(allNodes, false), raw: sel}
	if sel != nil {
		ns.selector, ns.parseErr = nodeaffinity.NewNodeSelector(sel)
	}
	return ns
}

// set reports whether any of the three fields selects nodes.
func (ns *nodeSelection) set() bool {
	return ns.nodeName != "" || ns.allNodes || ns.raw != nil
}

// matches reports whether node is selected: by name if a name is given,
// else all nodes if allNodes, else by the selector; nothing set matches
// nothing.
func (ns *nodeSelection) matches(node *v1.Node) (bool, error) {
	switch {
	case ns.nodeName != "":
		return node != nil && node.Name == ns.nodeName, nil
	case ns.allNodes:
		return true, nil
	case ns.raw != nil:
		if ns.parseErr != nil {
			return false, fmt.Errorf("failed to parse node selector %s: %w", ns.raw.String(), ns.parseErr)
		}
		return ns.selector.Match(node), nil
	}
	return false, nil
}

// DeviceMatchesNode applies a device's own node selection (for slices with
// perDeviceNodeSelection).
func (d *Device) DeviceMatchesNode(node *v1.Node) (bool, error) {
	return d.nodeSel.matches(node)
}

// NodeSelection returns the node name and node selector that say where the
// device is available, as given: the device's own with
// perDeviceNodeSelection, else its slice's.
func (d *Device) NodeSelection() (nodeName *string, selector *v1.NodeSelector) {
	if d.Slice.PerDeviceNodeSelection() {
		return d.Spec.NodeName, d.Spec.NodeSelector
	}
	return d.Slice.Obj.Spec.NodeName, d.Slice.Obj.Spec.NodeSelector
}

// LocalTo reports whether the device belongs to that node alone: its slice
// (or, with perDeviceNodeSelection, the device itself) names the node.
// Devices that a node selector or allNodes make reachable from several
// nodes are not local to any.
func (d *Device) LocalTo(node string) bool {
	name, _ := d.NodeSelection()
	return name != nil && *name != "" && *name == node
}
