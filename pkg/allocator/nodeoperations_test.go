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
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

func TestSkippedNodeOperations(t *testing.T) {
	const drv = "gpu.example.com"
	skipAll := []resourceapi.SkipNodeOperation{resourceapi.SkipNodeOperationAll}
	slice := objects.MakeSlice("n-gpus", drv, "n").Device("gpu-0", nil).Device("gpu-1", nil).Obj()
	slice.Spec.SkipNodeOperations = skipAll
	classes := inventorygen.NewClassLister(objects.DeviceClass("gpu", drv))
	claim := objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", 1))
	plainNode := objects.MakeNode("n").Obj()
	declaringNode := objects.MakeNode("n").Obj()
	declaringNode.Status.DeclaredFeatures = []string{"DRAOptionalNodeOperations"}
	withFeature := defaultFeatures
	withFeature.OptionalNodeOperations = true

	newAllocator := func(features structured.Features) *allocator.Allocator {
		inv := inventory.New()
		inv.Set(slice)
		return allocator.New(features, allocator.NewState(inv, structured.AllocatedState{}), classes, inv,
			allocator.NewMatcher(cel.NewCache(10, cel.Features{EnableConsumableCapacity: true})), allocator.FirstFit)
	}
	for _, tc := range []struct {
		name     string
		features structured.Features
		node     *v1.Node
		// want is the result's skipNodeOperations; nil with fits false.
		fits bool
		want []resourceapi.SkipNodeOperation
	}{
		{"with the feature a node that declares it gets the device and the slice's list", withFeature, declaringNode, true, skipAll},
		{"with the feature a node that does not declare it does not get the device", withFeature, plainNode, false, nil},
		{"without the feature the list is ignored and not copied", defaultFeatures, plainNode, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAllocator(tc.features)
			fits, err := a.Fits(t.Context(), tc.node, []*resourceapi.ResourceClaim{claim})
			if err != nil || fits != tc.fits {
				t.Fatalf("Fits = %v, %v; want %v", fits, err, tc.fits)
			}
			res, err := a.Allocate(t.Context(), tc.node, []*resourceapi.ResourceClaim{claim})
			if err != nil || (res != nil) != tc.fits {
				t.Fatalf("Allocate = %v, %v; want fits %v", res, err, tc.fits)
			}
			if !tc.fits {
				e := a.Explain(t.Context(), tc.node, []*resourceapi.ResourceClaim{claim})
				if e.Kind != allocator.NodeOperationsRequired {
					t.Errorf("Explain = %v (kind %d), want NodeOperationsRequired", e, e.Kind)
				}
				want := `free devices matching request "req" skip node operations, which the node does not declare it supports (DRAOptionalNodeOperations; class gpu)`
				if e.String() != want {
					t.Errorf("Explain().String() = %q, want %q", e, want)
				}
				return
			}
			if got := res[0].Devices.Results[0].SkipNodeOperations; !slices.Equal(got, tc.want) {
				t.Errorf("skipNodeOperations = %q, want %q", got, tc.want)
			}
		})
	}
}
