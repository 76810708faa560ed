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
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

func TestExplainNamesPoolsItCouldNotUse(t *testing.T) {
	node := objects.MakeNode("n").Obj()
	// The pool announces two slices; only one is published yet.
	partial := objects.MakeSlice("n-gpus-0", "gpu.example.com", "n").Device("gpu-0", nil).Obj()
	partial.Spec.Pool.ResourceSliceCount = 2
	classes := inventorygen.NewClassLister(objects.DeviceClass("gpu", "gpu.example.com"))
	claims := []*resourceapi.ResourceClaim{objects.Claim("c", "ns", objects.ClaimSpec("req", "gpu", 1))}
	a := newTestAllocator(structured.AllocatedState{}, classes, []*resourceapi.ResourceSlice{partial})
	if res, err := a.Allocate(t.Context(), node, claims); res != nil || err != nil {
		t.Fatalf("Allocate = %v, %v; an incomplete pool must not be used", res, err)
	}
	got := a.Explain(t.Context(), node, claims).String()
	want := `no device matches request "req" (class gpu, selector device.driver == "gpu.example.com"); unusable pools: gpu.example.com/n is incomplete (not all of its slices are published)`
	if got != want {
		t.Errorf("Explain =\n%s\nwant\n%s", got, want)
	}
}
