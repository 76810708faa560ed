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

package allocbench

import (
	"io"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// Input is what YAML files describe: an inventory as `kubectl get
// resourceslices,deviceclasses -o yaml` prints it, optionally nodes and
// claims. It is derived from the objects read (clusterstate.Objects)
// after every Add.
type Input struct {
	// Nodes are the Node objects found (for node labels); nodes named by
	// slices but not listed are made up by Workloads.
	Nodes []*v1.Node
	// Slices and Classes form the inventory.
	Slices  []*resourceapi.ResourceSlice
	Classes []*resourceapi.DeviceClass
	// Claims are the unallocated ResourceClaims, followed by a claim per
	// ResourceClaimTemplate (named after the template), each in file
	// order.
	Claims []*resourceapi.ResourceClaim
	// Allocated holds the devices of claims that have an allocation.
	Allocated inventorygen.Allocated
	// AllocatedClaims counts the claims Allocated was built from.
	AllocatedClaims int
	// Notes are things the user should know: skipped objects, unknown
	// fields.
	Notes []string

	objs clusterstate.Objects
}

// inputKinds are the kinds the allocator benchmark reads; pods and taint
// rules are skipped with a note.
var inputKinds = []string{
	clusterstate.KindNode, clusterstate.KindResourceSlice, clusterstate.KindDeviceClass,
	clusterstate.KindResourceClaim, clusterstate.KindResourceClaimTemplate,
}

// LoadFiles reads every file ("-" is standard input) into one Input.
func LoadFiles(stdin io.Reader, paths ...string) (*Input, error) {
	in := &Input{}
	in.objs.Kinds = inputKinds
	if err := in.objs.ReadFiles(stdin, paths...); err != nil {
		return nil, err
	}
	in.derive()
	return in, nil
}

// Add reads the YAML (or JSON) documents of r; name says where they come
// from in errors and notes. A document may be a single object or a list
// (kind List or <Kind>List with items).
func (in *Input) Add(name string, r io.Reader) error {
	in.objs.Kinds = inputKinds
	if err := in.objs.Add(name, r); err != nil {
		return err
	}
	in.derive()
	return nil
}

// derive computes the input from the objects read so far.
func (in *Input) derive() {
	objs := &in.objs
	in.Nodes, in.Slices, in.Classes, in.Notes = objs.Nodes, objs.Slices, objs.Classes, objs.Notes
	in.Claims, in.Allocated, in.AllocatedClaims = nil, inventorygen.Allocated{}, 0
	for _, c := range objs.Claims {
		if c.Status.Allocation != nil {
			in.addAllocation(c)
			continue
		}
		in.Claims = append(in.Claims, c)
	}
	for _, t := range objs.Templates {
		c := &resourceapi.ResourceClaim{ObjectMeta: t.ObjectMeta, Spec: t.Spec.Spec}
		c.ObjectMeta.Labels, c.ObjectMeta.Annotations = t.Spec.Labels, t.Spec.Annotations
		in.Claims = append(in.Claims, c)
	}
}

// addAllocation records an allocated claim's devices as taken: dedicated
// results as devices, results with a share ID as shares (with their
// consumed capacity). Admin-access results block nothing.
func (in *Input) addAllocation(c *resourceapi.ResourceClaim) {
	in.AllocatedClaims++
	for _, r := range c.Status.Allocation.Devices.Results {
		if r.AdminAccess != nil && *r.AdminAccess {
			continue
		}
		ref := inventorygen.DeviceRef{Driver: r.Driver, Pool: r.Pool, Device: r.Device}
		if r.ShareID != nil {
			in.Allocated.Shares = append(in.Allocated.Shares, inventorygen.Share{Device: ref, ShareID: *r.ShareID, Consumed: r.ConsumedCapacity})
			continue
		}
		in.Allocated.Devices = append(in.Allocated.Devices, ref)
	}
}
