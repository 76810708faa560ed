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
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Cluster is an inventory: the nodes, the ResourceSlices published for them
// and the DeviceClasses. It is a value; the objects it points to are shared
// and must not be modified.
type Cluster struct {
	// Nodes in name order of creation (index order of the builder).
	Nodes []*v1.Node
	// Slices in publishing order (per node: counter slices, then device slices).
	Slices []*resourceapi.ResourceSlice
	// Classes the claims of this shape refer to.
	Classes []*resourceapi.DeviceClass
}

// ClassLister returns a lister over the cluster's DeviceClasses.
func (c Cluster) ClassLister() ClassLister {
	return NewClassLister(c.Classes...)
}

// Node returns the node with that name, or nil.
func (c Cluster) Node(name string) *v1.Node {
	for _, n := range c.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// Merge returns a cluster with the nodes, slices and classes of c followed by
// those of others. Nodes and classes are de-duplicated by name (the first
// occurrence wins), slices are concatenated.
func (c Cluster) Merge(others ...Cluster) Cluster {
	out := Cluster{
		Nodes:   slices.Clone(c.Nodes),
		Slices:  slices.Clone(c.Slices),
		Classes: slices.Clone(c.Classes),
	}
	for _, o := range others {
		for _, n := range o.Nodes {
			if out.Node(n.Name) == nil {
				out.Nodes = append(out.Nodes, n)
			}
		}
		out.Slices = append(out.Slices, o.Slices...)
		for _, cl := range o.Classes {
			if !slices.ContainsFunc(out.Classes, func(x *resourceapi.DeviceClass) bool { return x.Name == cl.Name }) {
				out.Classes = append(out.Classes, cl)
			}
		}
	}
	return out
}

// Devices lists every device of every slice in slice order.
func (c Cluster) Devices() []DeviceRef {
	var refs []DeviceRef
	for _, s := range c.Slices {
		for _, d := range s.Spec.Devices {
			refs = append(refs, DeviceRef{Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name, Device: d.Name})
		}
	}
	return refs
}

// SlicesForNode returns the slices whose nodeName is the given node, in
// order. Shared slices (node selector, allNodes) are not included.
func (c Cluster) SlicesForNode(name string) []*resourceapi.ResourceSlice {
	var out []*resourceapi.ResourceSlice
	for _, s := range c.Slices {
		if s.Spec.NodeName != nil && *s.Spec.NodeName == name {
			out = append(out, s)
		}
	}
	return out
}

// ClassLister implements structured.DeviceClassLister over a fixed list of
// classes, like an informer lister would: List returns them in the given
// order, Get of an unknown name returns a NotFound API error.
type ClassLister struct {
	classes []*resourceapi.DeviceClass
}

var _ structured.DeviceClassLister = ClassLister{}

// NewClassLister returns a lister over classes (later duplicates of a name
// are ignored by Get).
func NewClassLister(classes ...*resourceapi.DeviceClass) ClassLister {
	return ClassLister{classes: slices.Clone(classes)}
}

// List returns all classes.
func (l ClassLister) List() ([]*resourceapi.DeviceClass, error) {
	return slices.Clone(l.classes), nil
}

// Get returns the class with that name or a NotFound error
// (apierrors.IsNotFound reports true for it).
func (l ClassLister) Get(name string) (*resourceapi.DeviceClass, error) {
	for _, c := range l.classes {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclasses"), name)
}
