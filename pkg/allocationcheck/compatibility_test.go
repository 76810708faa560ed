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
	"k8s.io/apimachinery/pkg/api/resource"
)

// grouped is two partitions of one GPU's counter set, each allocated with
// the given compatibility groups; gpu-a is in the results, gpu-b either
// too or allocated before.
func grouped(a, b []string, bAllocated bool) *fixture {
	f := newFixture()
	f.features.PartitionableDevices = true
	f.features.CompatibilityGroups = true
	w := localSlice("node-1-gpus", thisNode, thisNode, gpu(0), gpu(1))
	w.Spec.SharedCounters = []resourceapi.CounterSet{{Name: "gpu", Counters: map[string]resourceapi.Counter{"mem": {Value: resource.MustParse("8")}}}}
	for i, groups := range [][]string{a, b} {
		w.Spec.Devices[i].ConsumesCounters = []resourceapi.DeviceCounterConsumption{{
			CounterSet: "gpu", Counters: map[string]resourceapi.Counter{"mem": {Value: resource.MustParse("4")}}, CompatibilityGroups: groups,
		}}
	}
	f.slices = []*resourceapi.ResourceSlice{w}
	if bAllocated {
		f.claim("claim-0", exact("req-0", "gpu", 1))
		f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"))
		f.markAllocated(thisNode, "gpu-1")
	} else {
		f.claim("claim-0", exact("req-0", "gpu", 2))
		f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"), got("req-0", thisNode, "gpu-1"))
	}
	return f
}

func TestCompatibilityGroups(t *testing.T) {
	runCheckCases(t, CheckCounters, []checkCase{
		{name: "two partitions sharing a group pass", build: func() *fixture { return grouped([]string{"mig", "vgpu"}, []string{"mig"}, false) }},
		{name: "two partitions without groups pass", build: func() *fixture { return grouped(nil, nil, false) }},
		{name: "partitions without a common group are reported",
			build: func() *fixture { return grouped([]string{"mig"}, []string{"vgpu"}, false) },
			want:  `compatibility groups ["vgpu"] on counter set gpu`},
		{name: "a partition with groups beside one without is reported",
			build: func() *fixture { return grouped([]string{"mig"}, nil, false) },
			want:  "incompatible with its other consumers"},
		{name: "a partition incompatible with an allocated peer is reported",
			build: func() *fixture { return grouped([]string{"mig"}, []string{"vgpu"}, true) },
			want:  "(allocated)"},
	})
}

func TestCompatibilityGroupsLeaveEarlierDisagreementAlone(t *testing.T) {
	// gpu-1 (allocated) has no group, gpu-2 (allocated) has "mig": they
	// already disagree, so gpu-0's "mig" is not judged.
	f := grouped([]string{"mig"}, nil, true)
	w := f.slices[0]
	w.Spec.Devices = append(w.Spec.Devices, gpu(2))
	w.Spec.Devices[2].ConsumesCounters = []resourceapi.DeviceCounterConsumption{{
		CounterSet: "gpu", Counters: map[string]resourceapi.Counter{"mem": {Value: resource.MustParse("0")}}, CompatibilityGroups: []string{"mig"},
	}}
	f.markAllocated(thisNode, "gpu-2")
	if errs := f.check(); len(errs) > 0 {
		t.Errorf("violations %v, want none: the earlier allocations disagree among themselves", errs)
	}
}
