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

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// Whether the node may use a slice and a device: the slices the enabled
// features make allocators ignore, where a device's node availability is
// declared, which slices are relevant for the node when pools are
// gathered, and why a device is unavailable on it.

// ignoredSlice returns why the enabled features make an allocator ignore the
// slice, or "".
func (c *checker) ignoredSlice(s *resourceapi.ResourceSlice) string {
	return ignoredSlice(c.features, s)
}

func ignoredSlice(features structured.Features, s *resourceapi.ResourceSlice) string {
	if !features.PartitionableDevices {
		if s.Spec.PerDeviceNodeSelection != nil {
			return fmt.Sprintf("slice %s uses perDeviceNodeSelection, but the PartitionableDevices feature is disabled", s.Name)
		}
		if len(s.Spec.SharedCounters) > 0 {
			return fmt.Sprintf("slice %s defines shared counters, but the PartitionableDevices feature is disabled", s.Name)
		}
	}
	if !features.CompatibilityGroups && usesCompatibilityGroups(s) {
		return fmt.Sprintf("slice %s uses counter compatibility groups, but the CompatibilityGroups feature is disabled", s.Name)
	}
	return ""
}

// usesCompatibilityGroups reports whether a device of the slice consumes
// counters with compatibility groups.
func usesCompatibilityGroups(s *resourceapi.ResourceSlice) bool {
	for _, d := range s.Spec.Devices {
		for _, cc := range d.ConsumesCounters {
			if len(cc.CompatibilityGroups) > 0 {
				return true
			}
		}
	}
	return false
}

// nodeSource is where the node availability of a device is declared: the
// device itself with perDeviceNodeSelection, otherwise its slice.
type nodeSource struct {
	what         string // "slice x" or "device y in slice x"
	nodeName     string
	allNodes     bool
	nodeSelector *v1.NodeSelector
}

func sourceOf(d *device) nodeSource {
	if ptr.Deref(d.slice.Spec.PerDeviceNodeSelection, false) {
		return deviceSource(d.slice, d.spec)
	}
	return sliceSource(d.slice)
}

// sliceSource is the node selection of the slice itself.
func sliceSource(s *resourceapi.ResourceSlice) nodeSource {
	return nodeSource{
		what:         "slice " + s.Name,
		nodeName:     ptr.Deref(s.Spec.NodeName, ""),
		allNodes:     ptr.Deref(s.Spec.AllNodes, false),
		nodeSelector: s.Spec.NodeSelector,
	}
}

// deviceSource is the node selection of a device (with
// perDeviceNodeSelection).
func deviceSource(s *resourceapi.ResourceSlice, d *resourceapi.Device) nodeSource {
	return nodeSource{
		what:         fmt.Sprintf("device %s in slice %s", d.Name, s.Name),
		nodeName:     ptr.Deref(d.NodeName, ""),
		allNodes:     ptr.Deref(d.AllNodes, false),
		nodeSelector: d.NodeSelector,
	}
}

// declared reports whether the source says anything about nodes.
func (src nodeSource) declared() bool {
	return src.nodeName != "" || src.allNodes || src.nodeSelector != nil
}

// matches reports whether the source makes its devices available on node.
func (src nodeSource) matches(node *v1.Node) (bool, error) {
	switch {
	case src.nodeName != "":
		return src.nodeName == node.Name, nil
	case src.allNodes:
		return true, nil
	case src.nodeSelector != nil:
		sel, err := nodeaffinity.NewNodeSelector(src.nodeSelector)
		if err != nil {
			return false, fmt.Errorf("%s has an invalid node selector: %w", src.what, err)
		}
		return sel.Match(node), nil
	}
	return false, nil
}

// sliceRelevant reports whether an allocator considers the slice for the
// node when it gathers pools (§3.1): the enabled features do not make it
// ignore the slice, and the slice's nodeName, allNodes or nodeSelector
// matches the node, or — with perDeviceNodeSelection and none of those — any
// of its devices is available on the node. Invalid node selectors, which
// make upstream fail, make nothing relevant; unavailable reports them.
func sliceRelevant(features structured.Features, node *v1.Node, s *resourceapi.ResourceSlice) bool {
	if ignoredSlice(features, s) != "" {
		return false
	}
	if src := sliceSource(s); src.declared() {
		ok, err := src.matches(node)
		return ok && err == nil
	}
	if !ptr.Deref(s.Spec.PerDeviceNodeSelection, false) {
		return false
	}
	for i := range s.Spec.Devices {
		if ok, err := deviceSource(s, &s.Spec.Devices[i]).matches(node); ok && err == nil {
			return true
		}
	}
	return false
}

// unavailable returns why the device cannot be allocated on the node under
// the enabled features, or "": its pool must be usable for the node, its
// slice relevant for the node (which, for a usable pool, makes it one of the
// node's slices of the pool's generation) and, with perDeviceNodeSelection,
// the device itself available on the node.
func (c *checker) unavailable(d *device) string {
	switch d.pool.state {
	case poolIncomplete, poolObsolete:
		return d.pool.why
	}
	if why := c.ignoredSlice(d.slice); why != "" {
		return why
	}
	s := d.slice
	perDevice := ptr.Deref(s.Spec.PerDeviceNodeSelection, false)
	var sources []nodeSource
	if src := sliceSource(s); src.declared() || !perDevice {
		sources = append(sources, src)
	}
	if perDevice {
		sources = append(sources, deviceSource(s, d.spec))
	}
	for _, src := range sources {
		if !src.declared() {
			return fmt.Sprintf("%s declares neither nodeName, allNodes nor nodeSelector, so it is not available on node %s", src.what, c.node.Name)
		}
		ok, err := src.matches(c.node)
		if err != nil {
			return err.Error()
		}
		if !ok {
			return fmt.Sprintf("%s is not available on node %s", src.what, c.node.Name)
		}
	}
	return ""
}
