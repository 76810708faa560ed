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
	"time"
)

func TestARunRecordsEachKindsNewWritesOnly(t *testing.T) {
	before := apiLoad{cpu: time.Second, writesBy: map[string]float64{
		writeKind("pods", "", "POST"):                10,
		writeKind("pods", "binding", "POST"):         4,
		writeKind("resourceclaims", "status", "PUT"): 7,
	}}
	after := apiLoad{cpu: 3 * time.Second, writesBy: map[string]float64{
		writeKind("pods", "", "POST"):                10,
		writeKind("pods", "binding", "POST"):         9,
		writeKind("resourceclaims", "status", "PUT"): 8,
		writeKind("resourceclaims", "", "DELETE"):    3,
	}}
	var r Result
	r.recordLoad(before, after)
	want := map[string]int64{"pods/binding POST": 5, "resourceclaims/status PUT": 1, "resourceclaims DELETE": 3}
	if !maps.Equal(r.APIWritesBy, want) || r.APIWrites != 9 || r.ControlPlaneCPUSeconds != 2 {
		t.Errorf("recorded %d writes %v, %.1fs of control plane CPU; want 9 writes %v, 2s", r.APIWrites, r.APIWritesBy, r.ControlPlaneCPUSeconds, want)
	}
}
