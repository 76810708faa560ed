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
)

// Names used by upstream's scheduler_perf DRA workloads
// (k8s.io/kubernetes test/integration/scheduler_perf/dra/templates).
const (
	// DriverSchedulerPerf is the driver of the scheduler_perf templates.
	DriverSchedulerPerf = "test-driver.cdi.k8s.io"
	// ClassSchedulerPerf selects every device of DriverSchedulerPerf
	// (deviceclass.yaml).
	ClassSchedulerPerf = "test-class"
	// SchedulerPerfDevicesPerNode is the template's default device count.
	SchedulerPerfDevicesPerNode = 10
	// SchedulerPerfAttributes is the number of attributes of each
	// scheduler_perf device.
	SchedulerPerfAttributes = 13
	// SchedulerPerfCapacities is the number of capacities of each
	// scheduler_perf device (memory, millicores).
	SchedulerPerfCapacities = 2

	schedulerPerfPCIRoots = 2
)

// SchedulerPerf reproduces upstream's scheduler_perf inventory
// (node-with-dra-test-driver.yaml, resourceslice-basic-devices.yaml,
// deviceclass.yaml): node "scheduler-perf-dra-<i>" labelled
// node-with-dra=true, one slice "resourceslice-<i>" (pool of the same name,
// generation 1, one slice) with devicesPerNode devices "basic-device-<j>"
// (an Intel-GPU-like device with 13 attributes and capacities memory=24480Mi,
// millicores=1k, PCI roots cycling over 2), and the class "test-class".
// devicesPerNode <= 0 selects the template default of 10.
//
// Devices keep the template's index order, which is name order only for up to
// 10 devices ("basic-device-10" sorts before "basic-device-2"); this mirrors
// what upstream's benchmark allocates from.
func SchedulerPerf(nodes, devicesPerNode int) Cluster {
	if devicesPerNode <= 0 {
		devicesPerNode = SchedulerPerfDevicesPerNode
	}
	var c Cluster
	for i := range nodes {
		node := newNode(fmt.Sprintf("scheduler-perf-dra-%d", i), map[string]string{"node-with-dra": "true"})
		c.Nodes = append(c.Nodes, node)
		name := fmt.Sprintf("resourceslice-%d", i)
		s := newSlice(name, DriverSchedulerPerf, name, 1)
		s.Spec.NodeName = ptr(node.Name)
		s.Spec.Devices = make([]resourceapi.Device, 0, devicesPerNode)
		for j := range devicesPerNode {
			s.Spec.Devices = append(s.Spec.Devices, schedulerPerfDevice(j))
		}
		c.Slices = append(c.Slices, s)
	}
	c.Classes = []*resourceapi.DeviceClass{driverClass(ClassSchedulerPerf, DriverSchedulerPerf)}
	return c
}

// schedulerPerfDevice is the template's device number j.
func schedulerPerfDevice(j int) resourceapi.Device {
	root := j % schedulerPerfPCIRoots
	pciAddress := fmt.Sprintf("0000:0%d:00.0", j)
	return resourceapi.Device{
		Name: fmt.Sprintf("basic-device-%d", j),
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"driver":                          stringAttr("xe"),
			"driverVersion":                   versionAttr("1.2.3"),
			"resource.k8s.io/pciRoot":         stringAttr(fmt.Sprintf("%d", root)),
			"family":                          stringAttr("Arc Pro B-Series"),
			"health":                          stringAttr("Healthy"),
			"model":                           stringAttr("B60"),
			"pciAddress":                      stringAttr(pciAddress),
			"pciId":                           stringAttr("0xe211"),
			"pciRoot":                         stringAttr(fmt.Sprintf("0%d", root)),
			"resource.kubernetes.io/pciBusID": stringAttr(pciAddress),
			"resource.kubernetes.io/pciRoot":  stringAttr(fmt.Sprintf("pci0000:0%d", root)),
			"sriov":                           boolAttr(true),
			"type":                            stringAttr("gpu"),
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory":     capacityOf("24480Mi"),
			"millicores": capacityOf("1k"),
		},
	}
}

// SchedulerPerfClaim is the templates' claim (resourceclaim.yaml with
// count, resourceclaimtemplate-for-two-devices.yaml for count 2): one
// ExactCount request "req-0" of class "test-class".
func SchedulerPerfClaim(name string, count int64) *resourceapi.ResourceClaim {
	return ExactClaim(name, ClassSchedulerPerf, count)
}
