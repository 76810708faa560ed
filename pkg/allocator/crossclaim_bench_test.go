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
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// BenchmarkCrossClaimConstraint is issue 57's cost check: a pod asking for
// a GPU and a NIC on one PCIe root, as two claims tied by a constraint
// across claims (form=across) and as two requests of one claim with an
// in-claim matchAttribute (form=one-claim), on the same nodes: 8 GPUs and
// 4 NICs on 4 roots per node, the roots' NICs taken on all but the last
// node (so the search meets the constraint everywhere). One op is what
// Filter pays for the pod over every node: Fits on each.
func BenchmarkCrossClaimConstraint(b *testing.B) {
	for _, nodes := range parseNodes(b) {
		inv := inventory.New()
		allocated := sets.New[structured.DeviceID]()
		var nodeObjs []*v1.Node
		for n := range nodes {
			name := fmt.Sprintf("node-%05d", n)
			nodeObjs = append(nodeObjs, objects.MakeNode(name).Obj())
			w := objects.MakeSlice(name, ubDriver, name)
			for r := range 4 {
				root := fmt.Sprintf("pci-%d", r)
				for g := range 2 {
					w.Device(fmt.Sprintf("gpu-%d", 2*r+g), nil).Attribute("kind", "gpu")
					w.Spec.Devices[len(w.Spec.Devices)-1].Attributes[resourceapi.QualifiedName(pcieRoot)] = resourceapi.DeviceAttribute{StringValue: &root}
				}
				nic := fmt.Sprintf("nic-%d", r)
				w.Device(nic, nil).Attribute("kind", "nic")
				w.Spec.Devices[len(w.Spec.Devices)-1].Attributes[resourceapi.QualifiedName(pcieRoot)] = resourceapi.DeviceAttribute{StringValue: &root}
				if n < nodes-1 {
					allocated.Insert(structured.MakeDeviceID(ubDriver, name, nic))
				}
			}
			inv.Set(w.Obj())
		}
		matcher := allocator.NewMatcher(cel.NewCache(10, cel.Features{}))
		classes := inventorygen.NewClassLister(objects.DeviceClass("dev", ubDriver))
		base := allocator.New(defaultFeatures, allocator.NewState(inv, structured.AllocatedState{AllocatedDevices: allocated}), classes, inv, matcher, allocator.FirstFit)
		root := pcieRoot
		oneClaim := ubClaim("pod", ubRequest("gpu", 1, ubKind("gpu")), ubRequest("nic", 1, ubKind("nic")))
		oneClaim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: &root}}
		for _, form := range []struct {
			name   string
			claims []*resourceapi.ResourceClaim
			a      *allocator.Allocator
		}{
			{"one-claim", []*resourceapi.ResourceClaim{oneClaim}, base},
			{"across", []*resourceapi.ResourceClaim{ccClaim("gpu", "gpu"), ccClaim("nic", "nic")},
				base.WithCrossClaimConstraints([]allocator.CrossClaimConstraint{ccMatch(pcieRoot)}, nil)},
		} {
			b.Run(fmt.Sprintf("nodes=%d/form=%s", nodes, form.name), func(b *testing.B) {
				ctx := b.Context()
				fit := 0
				for _, n := range nodeObjs {
					if ok, err := form.a.Fits(ctx, n, form.claims); err != nil {
						b.Fatal(err)
					} else if ok {
						fit++
					}
				}
				if fit != 1 {
					b.Fatalf("the pod fits on %d nodes, want the last one only", fit)
				}
				b.ReportAllocs()
				for b.Loop() {
					for _, n := range nodeObjs {
						_, _ = form.a.Fits(ctx, n, form.claims)
					}
				}
			})
		}
	}
}
