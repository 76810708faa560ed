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

package inventory

import (
	"testing"

	resourceapi "k8s.io/api/resource/v1"
)

func TestCompatibilityGroupsOption(t *testing.T) {
	grouped := onNode(slice("s", "d", "n", 1, 1, "a"), "n")
	grouped.Spec.Devices[0].ConsumesCounters = []resourceapi.DeviceCounterConsumption{{CounterSet: "gpu", CompatibilityGroups: []string{"mig"}}}
	counters := onNode(slice("c", "d", "n", 1, 2), "n")
	counters.Spec.SharedCounters = []resourceapi.CounterSet{{Name: "gpu", Counters: map[string]resourceapi.Counter{}}}
	grouped.Spec.Pool.ResourceSliceCount = 2
	inv := New()
	inv.Set(grouped)
	inv.Set(counters)
	for _, tc := range []struct {
		name           string
		opts           Options
		wantIncomplete bool
		wantGroups     bool
	}{
		{"without the option a slice using groups is ignored and its pool incomplete", Options{PartitionableDevices: true}, true, false},
		{"with it the slice counts and the pool is marked", Options{PartitionableDevices: true, CompatibilityGroups: true}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pools, err := inv.Pools(node("n"), tc.opts)
			if err != nil || len(pools) != 1 {
				t.Fatalf("Pools = %v, %v; want one pool", describe(pools), err)
			}
			if p := pools[0]; p.Incomplete != tc.wantIncomplete || p.CompatibilityGroups != tc.wantGroups || p.Invalid {
				t.Errorf("pool incomplete %v, compatibility groups %v, invalid %v (%s); want %v, %v, false",
					p.Incomplete, p.CompatibilityGroups, p.Invalid, p.InvalidReason, tc.wantIncomplete, tc.wantGroups)
			}
		})
	}
}
