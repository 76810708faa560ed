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

package draallocator

import (
	"testing"

	resourceapi "k8s.io/api/resource/v1"
)

func TestFoundDevicesFilesResultsUnderTheirClaims(t *testing.T) {
	for _, tc := range []struct {
		name         string
		toAllocate   []bool
		results      []string
		wantClaims   []string // the request of each claim's devices; "" for none
		wantExtended string
	}{
		{"every claim to allocate gets its result in order", []bool{true, true}, []string{"a", "b"}, []string{"a", "b"}, ""},
		{"an allocated claim gets none and the next claim the next result", []bool{false, true, true}, []string{"b", "c"}, []string{"", "b", "c"}, ""},
		{"a result beyond the claims is the extended-resource claim's", []bool{true, false}, []string{"a", "ext"}, []string{"a", ""}, "ext"},
		{"a pod with only an extended-resource claim", []bool{false}, []string{"ext"}, []string{""}, "ext"},
		{"no results: nothing found", []bool{true}, nil, []string{""}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &stateData{}
			for _, allocate := range tc.toAllocate {
				s.claims = append(s.claims, podClaim{toAllocate: allocate})
			}
			var results []resourceapi.AllocationResult
			for _, r := range tc.results {
				results = append(results, devicesFor(r))
			}
			found := s.foundDevices(results)
			if len(found.claims) != len(s.claims) {
				t.Fatalf("found devices for %d claims, want one entry per claim (%d)", len(found.claims), len(s.claims))
			}
			for i, want := range tc.wantClaims {
				if got := requestOf(found.claims[i]); got != want {
					t.Errorf("claim %d got devices of request %q, want %q", i, got, want)
				}
			}
			if got := requestOf(found.extended); got != tc.wantExtended {
				t.Errorf("extended-resource claim got devices of request %q, want %q", got, tc.wantExtended)
			}
			if got, want := len(found.all()), len(tc.results); got != want {
				t.Errorf("all() has %d results, want %d", got, want)
			}
		})
	}
}

// requestOf is the request of an allocation's first device; "" for none.
func requestOf(r *resourceapi.AllocationResult) string {
	if r == nil || len(r.Devices.Results) == 0 {
		return ""
	}
	return r.Devices.Results[0].Request
}
