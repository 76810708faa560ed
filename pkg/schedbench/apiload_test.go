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

package schedbench

import (
	"maps"
	"testing"
)

func TestWritesSinceCountsEachKindsNewWritesOnly(t *testing.T) {
	before := apiLoad{writesBy: map[string]float64{
		writeKind("pods", "", "POST"):                10,
		writeKind("pods", "binding", "POST"):         4,
		writeKind("resourceclaims", "status", "PUT"): 7,
	}}
	after := apiLoad{writesBy: map[string]float64{
		writeKind("pods", "", "POST"):                10,
		writeKind("pods", "binding", "POST"):         9,
		writeKind("resourceclaims", "status", "PUT"): 8,
		writeKind("resourceclaims", "", "DELETE"):    3,
	}}
	got := after.writesSince(before)
	want := map[string]int64{"pods/binding POST": 5, "resourceclaims/status PUT": 1, "resourceclaims DELETE": 3}
	if !maps.Equal(got, want) {
		t.Errorf("writes since: %v, want %v", got, want)
	}
}
