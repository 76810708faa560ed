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

import "slices"

// The layout of the gang preemption workload (WorkloadGangPreemption):
// racks of RackSize nodes, each filled with low-priority pods of one
// device to an occupancy that depends on the rack's index only
// (RackOccupancyPercent), and what a gang of high-priority pods needs of
// them. Every low-priority pod holds one device, so a gang of s pods in a
// rack with f free devices needs max(0, s-f) victims there, if the rack's
// free devices and low-priority pods' devices hold it; the gangs' own
// pods are never victims of a later gang (they have the same priority).

// DefaultGangPreemptionSizes are the gangs' sizes, dealt out in turn,
// unless Options.GangSizes says otherwise.
func DefaultGangPreemptionSizes() []int { return []int{16, 36, 72} }

// RackOccupancyPercent is the share of rack r's devices that low-priority
// pods hold before the gangs, in percent: a cycle of 100, 95, 90, 85 and
// 80 over the racks. On a rack of 72 devices that leaves 0, 4, 7, 11 and
// 14 free, fewer than a gang of 16 needs, so every gang needs victims,
// and racks differ in how many.
func RackOccupancyPercent(r int) int {
	cycle := [...]int{100, 95, 90, 85, 80}
	return cycle[r%len(cycle)]
}

// RackLayout is what one rack's devices hold: Devices in all, Low of them
// held by low-priority pods (one each, evictable), High by gang pods (not
// evictable by a later gang); the rest are free.
type RackLayout struct {
	Devices int `json:"devices"`
	Low     int `json:"low"`
	High    int `json:"high"`
}

// Free is the rack's devices nobody holds.
func (r RackLayout) Free() int { return r.Devices - r.Low - r.High }

// Holds says whether a gang of size pods fits the rack once its
// low-priority pods are evicted.
func (r RackLayout) Holds(size int) bool { return r.Free()+r.Low >= size }

// Victims is the fewest low-priority pods a gang of size pods evicts in
// the rack: the pods its free devices leave over. Only meaningful where
// the rack Holds the gang.
func (r RackLayout) Victims(size int) int { return max(0, size-r.Free()) }

// rackNodes is the number of nodes of rack r of n nodes in racks of
// rackSize: the last rack may be smaller.
func rackNodes(r, n, rackSize int) int { return min(rackSize, n-r*rackSize) }

// InitialRackLayout is the layout of n nodes of devicesPerNode devices in
// racks of rackSize before the gangs: rack r's devices held by
// low-priority pods to RackOccupancyPercent(r), rounded to the nearest
// device.
func InitialRackLayout(n, rackSize, devicesPerNode int) []RackLayout {
	racks := make([]RackLayout, (n+rackSize-1)/rackSize)
	for r := range racks {
		devices := rackNodes(r, n, rackSize) * devicesPerNode
		racks[r] = RackLayout{Devices: devices, Low: (devices*RackOccupancyPercent(r) + 50) / 100}
	}
	return racks
}

// LowPodsPerNode spreads a rack's low-priority pods over its nodes of
// devicesPerNode devices, node by node: the first nodes get one more when
// they do not divide evenly. The counts are the rack's nodes' in order.
func LowPodsPerNode(rack RackLayout, nodes int) []int {
	counts := make([]int, nodes)
	for i := range counts {
		counts[i] = rack.Low / nodes
		if i < rack.Low%nodes {
			counts[i]++
		}
	}
	return counts
}

// MinGangVictims returns, over the racks that hold a gang of size pods
// once their low-priority pods are evicted, the fewest victims the gang
// needs, and the racks where it needs that few; fits is false, and the
// rest zero, when no rack holds it.
func MinGangVictims(racks []RackLayout, size int) (victims int, at []int, fits bool) {
	for r, rack := range racks {
		if !rack.Holds(size) {
			continue
		}
		v := rack.Victims(size)
		switch {
		case !fits || v < victims:
			victims, at, fits = v, []int{r}, true
		case v == victims:
			at = append(at, r)
		}
	}
	return victims, at, fits
}

// PlaceGang returns racks after a gang of size pods went to rack r with
// the fewest victims there: its pods take the free devices first, then
// those of low-priority pods, which are gone. racks is not modified.
func PlaceGang(racks []RackLayout, r, size int) []RackLayout {
	out := slices.Clone(racks)
	out[r].Low -= out[r].Victims(size)
	out[r].High += size
	return out
}

// GangSizeMix returns the sizes of count gangs: sizes dealt out in turn.
func GangSizeMix(count int, sizes []int) []int {
	if len(sizes) == 0 {
		return nil
	}
	mix := make([]int, count)
	for i := range mix {
		mix[i] = sizes[i%len(sizes)]
	}
	return mix
}
