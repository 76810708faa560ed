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
	"context"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
)

func TestResultCount(t *testing.T) {
	runCheckCases(t, CheckResultCount, []checkCase{
		{
			name:  "one result for one claim passes",
			build: oneGPU,
		},
		{
			name:  "no claims and no results pass",
			build: newFixture,
		},
		{
			name: "an empty AllocatedState without maps passes",
			build: func() *fixture {
				f := oneGPU()
				f.allocated = structured.AllocatedState{}
				return f
			},
		},
		{
			name: "two results for one claim are reported",
			build: func() *fixture {
				f := oneGPU()
				f.results = append(f.results, resourceapi.AllocationResult{})
				return f
			},
			want: "got 2 allocation results for 1 claims",
		},
		{
			name: "a missing result is reported",
			build: func() *fixture {
				f := oneGPU()
				f.results = nil
				return f
			},
			want: "got 0 allocation results for 1 claims",
		},
	})
}

func TestViolationNamesClaimRequestAndDevice(t *testing.T) {
	f := oneGPU()
	f.entry(0, 0).Device = "gpu-9"
	errs := Check(context.Background(), f.input(), f.results)
	if len(errs) == 0 {
		t.Fatal("no violation")
	}
	want := "device: claim default/claim-0, request req-0, device dra.example.com/node-1/gpu-9: pool dra.example.com/node-1 (generation 1) has no device gpu-9"
	if errs[0].Error() != want {
		t.Errorf("got  %q\nwant %q", errs[0].Error(), want)
	}
}
