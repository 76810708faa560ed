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
	"testing"

	resourceapi "k8s.io/api/resource/v1"
)

// skipping makes gpu-0's slice skip every node operation, on a node that
// declares it honours that, with the result copying the list.
func skipping() *fixture {
	f := oneGPU()
	f.features.OptionalNodeOperations = true
	f.slices[0].Spec.SkipNodeOperations = []resourceapi.SkipNodeOperation{resourceapi.SkipNodeOperationAll}
	f.node.Status.DeclaredFeatures = []string{"DRAOptionalNodeOperations"}
	f.entry(0, 0).SkipNodeOperations = []resourceapi.SkipNodeOperation{resourceapi.SkipNodeOperationAll}
	return f
}

func TestNodeOperations(t *testing.T) {
	runCheckCases(t, CheckNodeOperations, []checkCase{
		{
			name:  "skipped operations copied from the slice on a declaring node pass",
			build: skipping,
		},
		{
			name:  "a slice that skips nothing needs nothing in the result",
			build: func() *fixture { f := oneGPU(); f.features.OptionalNodeOperations = true; return f },
		},
		{
			name: "a result that does not copy the slice's list is reported",
			build: func() *fixture {
				f := skipping()
				f.entry(0, 0).SkipNodeOperations = nil
				return f
			},
			want: `result #0 has skipNodeOperations [], the device's slice node-1-gpus has ["*"]`,
		},
		{
			name: "a device that skips operations on a node that does not declare the feature is reported",
			build: func() *fixture {
				f := skipping()
				f.node.Status.DeclaredFeatures = nil
				return f
			},
			want: "does not declare the DRAOptionalNodeOperations feature",
		},
		{
			name: "skipped operations in a result are reported when the feature is off",
			build: func() *fixture {
				f := skipping()
				f.features.OptionalNodeOperations = false
				return f
			},
			want: "but the OptionalNodeOperations feature is disabled",
		},
		{
			name: "without the feature the slice's list does not matter",
			build: func() *fixture {
				f := skipping()
				f.features.OptionalNodeOperations = false
				f.node.Status.DeclaredFeatures = nil
				f.entry(0, 0).SkipNodeOperations = nil
				return f
			},
		},
	})
}
