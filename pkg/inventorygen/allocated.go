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

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
)

// DeviceRef names one device the way allocation results do.
type DeviceRef struct {
	// Driver, Pool and Device are the result's driver, pool and device names.
	Driver, Pool, Device string
}

// String formats the reference as "driver/pool/device" (like structured.DeviceID).
func (r DeviceRef) String() string { return r.Driver + "/" + r.Pool + "/" + r.Device }

// ID converts the reference to the allocator's device ID.
func (r DeviceRef) ID() structured.DeviceID {
	return structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
}

// Compare orders references by driver, pool and device, byte-wise.
func (r DeviceRef) Compare(o DeviceRef) int {
	if c := strings.Compare(r.Driver, o.Driver); c != 0 {
		return c
	}
	if c := strings.Compare(r.Pool, o.Pool); c != 0 {
		return c
	}
	return strings.Compare(r.Device, o.Device)
}

// Share is one persisted allocation of a multi-allocatable device
// (allowMultipleAllocations with ConsumableCapacity): an allocation result
// with a shareID and, optionally, the capacity it consumed.
type Share struct {
	// Device is the shared device.
	Device DeviceRef
	// ShareID is the result's shareID.
	ShareID types.UID
	// Consumed is the result's consumedCapacity; nil means the result had
	// none (such a share is "in use" but adds no aggregated capacity).
	Consumed map[resourceapi.QualifiedName]resource.Quantity
}

// Allocated describes devices already allocated to other claims, the input
// the scheduler derives from allocated ResourceClaims. It is kept as plain
// references rather than a structured.AllocatedState so that it can be
// printed, compared and fed to other allocators; State converts it.
type Allocated struct {
	// Devices are dedicated allocations (non-admin results without shareID).
	Devices []DeviceRef
	// Shares are allocations of multi-allocatable devices.
	Shares []Share
}

// Len is the number of allocation results described.
func (a Allocated) Len() int { return len(a.Devices) + len(a.Shares) }

// Contains reports whether the device is allocated, dedicated or shared
// (upstream's IsDeviceAllocated).
func (a Allocated) Contains(ref DeviceRef) bool {
	return slices.Contains(a.Devices, ref) ||
		slices.ContainsFunc(a.Shares, func(s Share) bool { return s.Device == ref })
}

// State builds the allocator input the way the scheduler does
// (docs/design/upstream-allocator.md §4.8 with ConsumableCapacity on):
// dedicated devices go to AllocatedDevices, each share adds a shared device
// ID and, if it has consumed capacity, that capacity to AggregatedCapacity.
// Every call returns fresh maps.
func (a Allocated) State() structured.AllocatedState {
	state := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	for _, d := range a.Devices {
		state.AllocatedDevices.Insert(d.ID())
	}
	for _, s := range a.Shares {
		id := s.Device.ID()
		shareID := s.ShareID
		state.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, &shareID))
		if s.Consumed != nil {
			state.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, s.Consumed))
		}
	}
	return state
}
