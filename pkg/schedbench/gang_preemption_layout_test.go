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
	"fmt"
	"slices"
	"testing"
)

func TestInitialRackLayout(t *testing.T) {
	for _, tc := range []struct {
		name                           string
		nodes, rackSize, perNode       int
		wantDevices, wantLow, wantFree []int
	}{
		{"NVL72 racks cycle through 100, 95, 90, 85 and 80% occupancy", 6 * 18, 18, 4,
			[]int{72, 72, 72, 72, 72, 72}, []int{72, 68, 65, 61, 58, 72}, []int{0, 4, 7, 11, 14, 0}},
		{"every rack of 72 leaves fewer free devices than a gang of 16 needs", 5 * 18, 18, 4,
			[]int{72, 72, 72, 72, 72}, []int{72, 68, 65, 61, 58}, []int{0, 4, 7, 11, 14}},
		{"the last rack of a cluster that racks do not divide is smaller", 20, 18, 4,
			[]int{72, 8}, []int{72, 8}, []int{0, 0}},
		{"occupancy is rounded to the nearest device", 3 * 2, 2, 4,
			[]int{8, 8, 8}, []int{8, 8, 7}, []int{0, 0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			racks := InitialRackLayout(tc.nodes, tc.rackSize, tc.perNode)
			var devices, low, free []int
			for _, r := range racks {
				devices, low, free = append(devices, r.Devices), append(low, r.Low), append(free, r.Free())
				if r.High != 0 {
					t.Errorf("a rack holds %d gang pods before the gangs", r.High)
				}
			}
			if !slices.Equal(devices, tc.wantDevices) || !slices.Equal(low, tc.wantLow) || !slices.Equal(free, tc.wantFree) {
				t.Errorf("devices %v, low-priority pods %v, free %v; want %v, %v, %v", devices, low, free, tc.wantDevices, tc.wantLow, tc.wantFree)
			}
		})
	}
}

func TestRackOccupancyDependsOnTheRackIndexOnly(t *testing.T) {
	for r := range 12 {
		if got, want := RackOccupancyPercent(r), RackOccupancyPercent(r+5); got != want {
			t.Errorf("rack %d at %d%%, rack %d at %d%%: the cycle has 5 steps", r, got, r+5, want)
		}
		if p := RackOccupancyPercent(r); p < 80 || p > 100 {
			t.Errorf("rack %d at %d%%, want 80 to 100%%", r, p)
		}
	}
}

func TestLowPodsPerNode(t *testing.T) {
	for _, tc := range []struct {
		name  string
		low   int
		nodes int
		want  []int
	}{
		{"a full rack fills every node", 72, 18, slices.Repeat([]int{4}, 18)},
		{"the first nodes take one more when the pods do not divide evenly", 65, 18, append(slices.Repeat([]int{4}, 11), slices.Repeat([]int{3}, 7)...)},
		{"an empty rack gets none", 0, 3, []int{0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LowPodsPerNode(RackLayout{Devices: tc.nodes * 4, Low: tc.low}, tc.nodes)
			if !slices.Equal(got, tc.want) {
				t.Errorf("pods per node %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMinGangVictims(t *testing.T) {
	racks := []RackLayout{
		{Devices: 72, Low: 72},           // 0 free
		{Devices: 72, Low: 68},           // 4 free
		{Devices: 72, Low: 58},           // 14 free
		{Devices: 72, Low: 56, High: 16}, // a gang's: 0 free, 56 evictable
		{Devices: 72, Low: 58},           // 14 free, as rack 2
	}
	for _, tc := range []struct {
		name        string
		size        int
		wantVictims int
		wantAt      []int
		wantFits    bool
	}{
		{"a gang takes the free devices of the cheapest racks and evicts the rest", 16, 2, []int{2, 4}, true},
		{"a gang of 72 fits only racks without gang pods", 72, 58, []int{2, 4}, true},
		{"a gang pod is never a victim, so a rack holding one may not hold a gang", 60, 46, []int{2, 4}, true},
		{"a gang that fits in free devices needs no victims", 4, 0, []int{1, 2, 4}, true},
		{"a gang larger than every rack fits nowhere", 73, 0, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			victims, at, fits := MinGangVictims(racks, tc.size)
			if victims != tc.wantVictims || !slices.Equal(at, tc.wantAt) || fits != tc.wantFits {
				t.Errorf("gang of %d: %d victims in racks %v, fits %t; want %d in %v, %t", tc.size, victims, at, fits, tc.wantVictims, tc.wantAt, tc.wantFits)
			}
		})
	}
}

func TestPlacingGangsUpdatesTheLayout(t *testing.T) {
	// The 4 NVL72 racks of 72 nodes: 0, 4, 7 and 11 GPUs free.
	racks := InitialRackLayout(72, 18, 4)
	var got []string
	for _, size := range GangSizeMix(6, DefaultGangPreemptionSizes()) {
		victims, at, fits := MinGangVictims(racks, size)
		if !fits {
			got = append(got, fmt.Sprintf("%d: none", size))
			continue
		}
		got = append(got, fmt.Sprintf("%d: %d in %v", size, victims, at))
		racks = PlaceGang(racks, at[0], size)
	}
	want := []string{
		"16: 5 in [3]",      // 11 free in rack 3
		"36: 29 in [2]",     // 7 free in rack 2
		"72: 68 in [1]",     // 4 free in rack 1
		"16: 16 in [0 2 3]", // no free device left; rack 1 is all gang
		"36: 36 in [0 2 3]", // each has 56 or 36 low-priority pods, none free
		"72: none",          // every rack holds a gang now
	}
	if !slices.Equal(got, want) {
		t.Errorf("gang after gang:\n got %q\nwant %q", got, want)
	}
	for r, rack := range racks {
		if rack.Free() < 0 || rack.Low < 0 {
			t.Errorf("rack %d: %d free, %d low-priority pods: below 0", r, rack.Free(), rack.Low)
		}
	}
}

func TestPlaceGangLeavesItsInputAlone(t *testing.T) {
	racks := []RackLayout{{Devices: 8, Low: 6}}
	placed := PlaceGang(racks, 0, 4)
	if racks[0] != (RackLayout{Devices: 8, Low: 6}) {
		t.Errorf("input changed to %+v", racks[0])
	}
	if want := (RackLayout{Devices: 8, Low: 4, High: 4}); placed[0] != want {
		t.Errorf("after a gang of 4 on 2 free devices: %+v, want %+v", placed[0], want)
	}
}

func TestGangSizeMix(t *testing.T) {
	for _, tc := range []struct {
		name  string
		count int
		sizes []int
		want  []int
	}{
		{"sizes are dealt out in turn", 7, []int{16, 36, 72}, []int{16, 36, 72, 16, 36, 72, 16}},
		{"fewer gangs than sizes take the first sizes", 2, []int{16, 36, 72}, []int{16, 36}},
		{"no sizes make no gangs", 3, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := GangSizeMix(tc.count, tc.sizes); !slices.Equal(got, tc.want) {
				t.Errorf("GangSizeMix(%d, %v) = %v, want %v", tc.count, tc.sizes, got, tc.want)
			}
		})
	}
}
