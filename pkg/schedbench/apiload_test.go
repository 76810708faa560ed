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
	"context"
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

// TestTheAPILoadIsReadOnceTheRunsWritesAreCounted checks settledAPILoad
// against a kube-apiserver that counts requests after answering them.
func TestTheAPILoadIsReadOnceTheRunsWritesAreCounted(t *testing.T) {
	load := func(cpu time.Duration, bindings, others float64) apiLoad {
		return apiLoad{cpu: cpu, writesBy: map[string]float64{bindingWrites: bindings, writeKind("pods", "status", "PATCH"): others}}
	}
	before := load(time.Second, 2, 5)
	for _, tc := range []struct {
		name  string
		reads []apiLoad // the last one repeats
		bound int
		want  apiLoad
	}{
		{"bindings counted late are waited for, and the CPU is the phase's end",
			[]apiLoad{load(2*time.Second, 9, 9), load(3*time.Second, 9, 9), load(4*time.Second, 12, 9)}, 10,
			load(2*time.Second, 12, 9)},
		{"writes still being counted are waited for once the bindings are in",
			[]apiLoad{load(2*time.Second, 12, 9), load(3*time.Second, 12, 10), load(4*time.Second, 12, 11)}, 10,
			load(2*time.Second, 12, 11)},
		{"a settled count is taken as it is",
			[]apiLoad{load(2*time.Second, 12, 9)}, 10,
			load(2*time.Second, 12, 9)},
		{"bindings that never come give the last count after the timeout",
			[]apiLoad{load(2*time.Second, 9, 9), load(3*time.Second, 10, 9)}, 20,
			load(2*time.Second, 10, 9)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			read := func() (apiLoad, error) {
				r := tc.reads[min(n, len(tc.reads)-1)]
				n++
				return r, nil
			}
			got, err := settledAPILoad(context.Background(), read, before, tc.bound)
			if err != nil || got.cpu != tc.want.cpu || !maps.Equal(got.writesBy, tc.want.writesBy) {
				t.Errorf("settledAPILoad = %+v, %v after %d reads; want %+v", got, err, n, tc.want)
			}
		})
	}
}
