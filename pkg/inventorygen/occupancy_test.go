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

package inventorygen

import (
	"slices"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// checkConsistent asserts that the allocated devices of a cluster never
// over-consume counters (a multi-allocatable device is charged once) and
// that shares never consume more than a capacity's value.
func checkConsistent(t *testing.T, c Cluster, a Allocated) {
	t.Helper()
	charged := map[DeviceRef]bool{}
	consumed := map[DeviceRef]map[resourceapi.QualifiedName]resource.Quantity{}
	for _, pool := range poolViews(c.Slices) {
		book := newCounterBook(pool)
		for _, pd := range pool.devices {
			if !a.Contains(pd.ref) || charged[pd.ref] {
				continue
			}
			charged[pd.ref] = true
			if !book.fits(pd.device) {
				t.Errorf("%s over-consumes counters", pd.ref)
			}
			book.charge(pd.device)
			for _, s := range a.Shares {
				if s.Device != pd.ref {
					continue
				}
				if consumed[pd.ref] == nil {
					consumed[pd.ref] = map[resourceapi.QualifiedName]resource.Quantity{}
				}
				for name, q := range s.Consumed {
					sum := consumed[pd.ref][name]
					sum.Add(q)
					consumed[pd.ref][name] = sum
					if capacity := pd.device.Capacity[name]; sum.Cmp(capacity.Value) > 0 {
						t.Errorf("%s: shares consume %s of %s, more than %s", pd.ref, sum.String(), name, capacity.Value.String())
					}
				}
			}
		}
	}
	for _, d := range a.Devices {
		if !charged[d] {
			t.Errorf("allocated device %s does not exist", d)
		}
	}
}

func TestOccupancyZeroAllocatesNothing(t *testing.T) {
	shapes := realisticShapes()
	for _, name := range sortedKeys(shapes) {
		if a := Occupancy(shapes[name], 0); a.Len() != 0 {
			t.Errorf("%s: %d allocations", name, a.Len())
		}
	}
}

func TestOccupancySpreadsPlainDevicesEvenly(t *testing.T) {
	c := NvidiaH100(2)
	half := Occupancy(c, 0.5)
	var names []string
	for _, d := range half.Devices {
		if d.Pool == "h100-0" {
			names = append(names, d.Device)
		}
	}
	if !slices.Equal(names, []string{"gpu-1", "gpu-3", "gpu-5", "gpu-7"}) {
		t.Errorf("half of h100-0: %v", names)
	}
	if n := len(Occupancy(c, 1).Devices); n != 16 {
		t.Errorf("full: %d devices, want 16", n)
	}
	if n := len(Occupancy(c, 0.25).Devices); n != 4 {
		t.Errorf("quarter: %d devices, want 4", n)
	}
}

func TestOccupancyOfPartitionableDevicesNeverOverConsumesCounters(t *testing.T) {
	for name, c := range map[string]Cluster{
		"DynamicMIG":     DynamicMIG(2, 8),
		"DynamicMIGA100": DynamicMIGA100(1, 8),
		"ExampleDriver":  ExampleDriver(2, true),
	} {
		for _, f := range []float64{0.25, 0.5, 0.75, 1} {
			a := Occupancy(c, f)
			checkConsistent(t, c, a)
			if a.Len() == 0 {
				t.Errorf("%s at %.2f: nothing allocated", name, f)
			}
			partitions := 0
			for _, d := range a.Devices {
				if strings.Count(d.Device, "-") > 1 {
					partitions++
				}
			}
			if f == 1 && partitions > 0 {
				t.Errorf("%s full: %d partitions allocated, want whole GPUs only", name, partitions)
			}
			if f == 0.5 && partitions != len(a.Devices) {
				t.Errorf("%s half: %d whole GPUs allocated, want partitions only", name, len(a.Devices)-partitions)
			}
		}
	}
}

func TestOccupancyOfSharedDevicesConsumesTheirCapacityByPolicy(t *testing.T) {
	c := SharedNICs(1)
	half := Occupancy(c, 0.5)
	if len(half.Shares) != NICsPerNode || len(half.Devices) != 0 {
		t.Fatalf("half: %d shares, %d devices", len(half.Shares), len(half.Devices))
	}
	got := half.Shares[0].Consumed
	for name, want := range map[resourceapi.QualifiedName]string{"ingressBandwidth": "200G", "egressBandwidth": "200G", "virtualFunctions": "8"} {
		if q := got[name]; q.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("half consumes %s of %s, want %s", q.String(), name, want)
		}
	}
	// 30% of 400G is 120G: the range allows it, validValues round down to 100G.
	thirty := Occupancy(c, 0.3).Shares[0].Consumed
	if q := thirty["egressBandwidth"]; q.Cmp(resource.MustParse("100G")) != 0 {
		t.Errorf("30%% consumes %s egress, want 100G", q.String())
	}
	checkConsistent(t, c, Occupancy(c, 1))
	state := half.State()
	if state.AllocatedSharedDeviceIDs.Len() != NICsPerNode || len(state.AggregatedCapacity) != NICsPerNode || state.AllocatedDevices.Len() != 0 {
		t.Errorf("state: %d shared IDs, %d aggregated, %d dedicated", state.AllocatedSharedDeviceIDs.Len(), len(state.AggregatedCapacity), state.AllocatedDevices.Len())
	}
}

func TestRandomAllocatedStateIsConsistentUnlessOverConsumptionIsNoted(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		c := Random(seed, DefaultRandomOptions())
		if strings.Contains(strings.Join(c.Notes, "\n"), "over-consume") {
			continue
		}
		// Duplicate device names make a pool invalid; its allocations are
		// still counted once.
		checkConsistent(t, c.Cluster(), c.Allocated)
	}
}
