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
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// fakeUpstream answers every Allocate with a fixed outcome.
type fakeUpstream struct {
	res []resourceapi.AllocationResult
	err error
}

func (f fakeUpstream) Allocate(context.Context, *v1.Node, []*resourceapi.ResourceClaim) ([]resourceapi.AllocationResult, error) {
	return f.res, f.err
}

func result(devices ...string) []resourceapi.AllocationResult {
	var r resourceapi.AllocationResult
	for _, d := range devices {
		r.Devices.Results = append(r.Devices.Results, resourceapi.DeviceRequestAllocationResult{
			Request: "req-0", Driver: "gpu.nvidia.com", Pool: "h100-0", Device: d,
		})
	}
	return []resourceapi.AllocationResult{r}
}

func withShareID(res []resourceapi.AllocationResult, id string) []resourceapi.AllocationResult {
	uid := types.UID(id)
	res[0].Devices.Results[0].ShareID = &uid
	return res
}

func TestOutcomeDiff(t *testing.T) {
	tests := []struct {
		name         string
		upRes, ours  []resourceapi.AllocationResult
		upErr, ourEr error
		wantDiff     string // substring; "" means the outcomes are the same
	}{
		{name: "the same devices are the same outcome", upRes: result("gpu-0"), ours: result("gpu-0")},
		{name: "both not fitting is the same outcome"},
		{name: "share IDs differing only in value are the same outcome",
			upRes: withShareID(result("nic-0"), "a"), ours: withShareID(result("nic-0"), "b")},
		{name: "fit against no fit differs", upRes: result("gpu-0"), wantDiff: "upstream fit [req-0=gpu.nvidia.com/h100-0/gpu-0], ours no fit"},
		{name: "another device differs", upRes: result("gpu-0"), ours: result("gpu-1"), wantDiff: "ours fit [req-0=gpu.nvidia.com/h100-0/gpu-1]"},
		{name: "a share ID on one side only differs", upRes: withShareID(result("nic-0"), "a"), ours: result("nic-0"), wantDiff: "upstream fit"},
		{name: "an error on one side only differs", upErr: errors.New("CEL failed"), wantDiff: `upstream error "CEL failed", ours no fit`},
		{name: "errors with other text differ", upErr: errors.New("a"), ourEr: errors.New("b"), wantDiff: `ours error "b"`},
		{name: "the same error is the same outcome", upErr: errors.New("a"), ourEr: errors.New("a")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := outcomeDiff(tc.upRes, tc.upErr, tc.ours, tc.ourEr)
			if tc.wantDiff == "" && got != "" || !strings.Contains(got, tc.wantDiff) {
				t.Errorf("diff %q, want one containing %q", got, tc.wantDiff)
			}
		})
	}
}

func TestADisagreementIsCountedAndReportedLoudly(t *testing.T) {
	sc := Scenarios()[2] // h100
	w := sc.Workloads(3, DefaultOccupancies()[:1])[0]
	p, err := NewPair(context.Background(), &w, inventorygen.DefaultFeatures())
	if err != nil {
		t.Fatal(err)
	}
	p.up = fakeUpstream{} // an "upstream" that never finds devices
	a, _, err := p.agree(context.Background(), newProgress(nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	if a.Mismatches != 3 || len(a.Examples) != 3 || a.FitNodes != 0 {
		t.Fatalf("agreement %+v, want 3 mismatches with examples", a)
	}
	if !strings.Contains(a.Examples[0], "node h100-0: upstream no fit, ours fit") {
		t.Errorf("example %q does not say what differs", a.Examples[0])
	}

	r := &Report{Tool: "dra-bench allocator"}
	res := newResult(&w)
	res.Agreement = a
	r.add(res)
	var table bytes.Buffer
	if err := r.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MISMATCH 3", "!!! MISMATCH: the allocators disagreed on 3 node(s)", "!!! h100 nodes=3 occupancy=empty: node h100-0"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}
