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

// Names of kubernetes-sigs/dra-example-driver.
const (
	// DriverExample is the example driver.
	DriverExample = "gpu.example.com"
	// ClassExample selects every device of DriverExample.
	ClassExample = "gpu.example.com"
	// ExampleGPUsPerNode is the example driver's GPU count per node.
	ExampleGPUsPerNode = 8
	// ExamplePartitionsPerGPU is the number of devices announced per GPU
	// with partitions: the full GPU, 2 halves and 4 quarters.
	ExamplePartitionsPerGPU = 7
)

// ExampleDriver returns nodes "example-<i>" with the example driver's 8 GPUs
// "gpu-<i>" (attributes index, uuid, model "LATEST-GPU-MODEL",
// driverVersion 1.0.0; capacities memory 80Gi, compute 100) in one slice per
// node, and the class "gpu.example.com".
//
// With partitions, each GPU also gets a counter set "gpu-<i>-counters"
// (memory 80Gi, compute 100) published in a counters slice, and the devices
// slice announces, per GPU, the full GPU plus halves "gpu-<i>-half-<k>" and
// quarters "gpu-<i>-quarter-<k>" consuming their share of those counters;
// every device then also has the attribute partition (full, half, quarter).
func ExampleDriver(nodes int, partitions bool) Cluster {
	var c Cluster
	for i := range nodes {
		node := newNode(fmt.Sprintf("example-%d", i), nil)
		c.Nodes = append(c.Nodes, node)
		pool := nodePool{node: node, driver: DriverExample}
		var devices []resourceapi.Device
		for g := range ExampleGPUsPerNode {
			if !partitions {
				devices = append(devices, exampleDevice(node.Name, g, fmt.Sprintf("gpu-%d", g), "80Gi", "100", ""))
				continue
			}
			set := fmt.Sprintf("gpu-%d-counters", g)
			pool.counterSets = append(pool.counterSets, resourceapi.CounterSet{
				Name:     set,
				Counters: map[string]resourceapi.Counter{"memory": counterOf("80Gi"), "compute": counterOf("100")},
			})
			type part struct{ name, memory, compute, kind string }
			parts := []part{{fmt.Sprintf("gpu-%d", g), "80Gi", "100", "full"}}
			for k := range 2 {
				parts = append(parts, part{fmt.Sprintf("gpu-%d-half-%d", g, k), "40Gi", "50", "half"})
			}
			for k := range 4 {
				parts = append(parts, part{fmt.Sprintf("gpu-%d-quarter-%d", g, k), "20Gi", "25", "quarter"})
			}
			for _, p := range parts {
				d := exampleDevice(node.Name, g, p.name, p.memory, p.compute, p.kind)
				d.ConsumesCounters = []resourceapi.DeviceCounterConsumption{{
					CounterSet: set,
					Counters:   map[string]resourceapi.Counter{"memory": counterOf(p.memory), "compute": counterOf(p.compute)},
				}}
				devices = append(devices, d)
			}
		}
		pool.deviceGroups = [][]resourceapi.Device{devices}
		c.Slices = append(c.Slices, pool.slices()...)
	}
	c.Classes = []*resourceapi.DeviceClass{driverClass(ClassExample, DriverExample)}
	return c
}

func exampleDevice(node string, index int, name, memory, compute, partition string) resourceapi.Device {
	d := resourceapi.Device{
		Name: name,
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"index":         intAttr(int64(index)),
			"uuid":          stringAttr("gpu-" + hashUUID("example", node, name)),
			"model":         stringAttr("LATEST-GPU-MODEL"),
			"driverVersion": versionAttr("1.0.0"),
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory":  capacityOf(memory),
			"compute": capacityOf(compute),
		},
	}
	if partition != "" {
		d.Attributes["partition"] = stringAttr(partition)
	}
	return d
}
