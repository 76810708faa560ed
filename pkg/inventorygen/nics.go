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
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Shared NICs: multi-allocatable devices with consumable capacity.
const (
	// DriverNIC is the driver of the shared NIC shape.
	DriverNIC = "nic.example.com"
	// ClassNIC selects multi-allocatable devices of DriverNIC.
	ClassNIC = "nic.example.com"
	// NICsPerNode is the NIC count per node.
	NICsPerNode = 4
	// NICAttributes is the number of attributes of a NIC.
	NICAttributes = 5
	// NICCapacities is the number of capacities of a NIC.
	NICCapacities = 3
)

// SharedNICs returns nodes "nic-<i>" with 4 NICs "nic-<k>" each (one slice
// per node, pool = node name) that allow multiple allocations. Capacities:
//
//   - ingressBandwidth 400G, requestPolicy default 1G, validRange
//     [1G, 400G] with step 1G (requests are rounded up to whole G);
//   - egressBandwidth 400G, requestPolicy default 1G, validValues
//     1G, 10G, 25G, 50G, 100G, 200G, 400G;
//   - virtualFunctions 16, requestPolicy default 1 (any request is valid).
//
// Attributes: index, model, linkSpeedGbps and the PCIe bus ID and root
// (NIC k shares the PCIe root of GPUs 2k and 2k+1 of the NVIDIA shapes).
// The class "nic.example.com" selects the driver's multi-allocatable devices
// like upstream's deviceclass-consumablecapacity.yaml.
func SharedNICs(nodes int) Cluster {
	var c Cluster
	for i := range nodes {
		node := newNode(fmt.Sprintf("nic-%d", i), nil)
		c.Nodes = append(c.Nodes, node)
		devices := make([]resourceapi.Device, 0, NICsPerNode)
		for k := range NICsPerNode {
			devices = append(devices, sharedNIC(k))
		}
		c.Slices = append(c.Slices, nodePool{node: node, driver: DriverNIC, deviceGroups: [][]resourceapi.Device{devices}}.slices()...)
	}
	c.Classes = []*resourceapi.DeviceClass{
		newClass(ClassNIC, fmt.Sprintf("device.driver == %q && device.allowMultipleAllocations == true", DriverNIC)),
	}
	return c
}

func sharedNIC(k int) resourceapi.Device {
	_, root := pciLocation(k * gpusPerPCIeRoot)
	busID := fmt.Sprintf("0000:%02x:00.1", 0x20+k)
	egress := []resource.Quantity{}
	for _, v := range []string{"1G", "10G", "25G", "50G", "100G", "200G", "400G"} {
		egress = append(egress, quantity(v))
	}
	return resourceapi.Device{
		Name:                     fmt.Sprintf("nic-%d", k),
		AllowMultipleAllocations: ptr(true),
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"index":                           intAttr(int64(k)),
			"model":                           stringAttr("ConnectX-7"),
			"linkSpeedGbps":                   intAttr(400),
			"resource.kubernetes.io/pciBusID": stringAttr(busID),
			"resource.kubernetes.io/pcieRoot": stringAttr(root),
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"ingressBandwidth": {
				Value: quantity("400G"),
				RequestPolicy: &resourceapi.CapacityRequestPolicy{
					Default: quantityPtr("1G"),
					ValidRange: &resourceapi.CapacityRequestPolicyRange{
						Min: quantityPtr("1G"), Max: quantityPtr("400G"), Step: quantityPtr("1G"),
					},
				},
			},
			"egressBandwidth": {
				Value: quantity("400G"),
				RequestPolicy: &resourceapi.CapacityRequestPolicy{
					Default:     quantityPtr("1G"),
					ValidValues: egress,
				},
			},
			"virtualFunctions": {
				Value:         quantity("16"),
				RequestPolicy: &resourceapi.CapacityRequestPolicy{Default: quantityPtr("1")},
			},
		},
	}
}
