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
	"fmt"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// Scenario is a built-in input family: a cluster shape at any size and the
// claims of the pod placed on it.
type Scenario struct {
	// Name is what --scenario matches.
	Name string
	// Description says what the cluster and the pod are.
	Description string
	// Cluster builds the inventory for a number of nodes.
	Cluster func(nodes int) inventorygen.Cluster
	// Claims returns the pod's claims.
	Claims func() []*resourceapi.ResourceClaim
}

// Workloads builds the cluster once and returns one workload per
// occupancy over it.
func (s Scenario) Workloads(nodes int, occupancies []Occupancy) []Workload {
	c := s.Cluster(nodes)
	out := make([]Workload, 0, len(occupancies))
	for _, o := range occupancies {
		out = append(out, Workload{
			Scenario:    s.Name,
			Description: s.Description,
			Occupancy:   o.Name,
			Cluster:     c,
			Allocated:   inventorygen.Occupancy(c, o.Fraction),
			Claims:      s.Claims(),
		})
	}
	return out
}

// Scenarios returns the built-in scenarios, built from pkg/inventorygen.
func Scenarios() []Scenario {
	one := func(c *resourceapi.ResourceClaim) func() []*resourceapi.ResourceClaim {
		return func() []*resourceapi.ResourceClaim { return []*resourceapi.ResourceClaim{c} }
	}
	schedPerf := func(n int) inventorygen.Cluster {
		return inventorygen.SchedulerPerf(n, inventorygen.SchedulerPerfDevicesPerNode)
	}
	return []Scenario{
		{
			Name:        "schedperf",
			Description: "scheduler_perf shape (10 devices/node, 13 attributes), class selects the driver; 1 device",
			Cluster:     schedPerf,
			Claims:      one(inventorygen.SchedulerPerfClaim("schedperf", 1)),
		},
		{
			Name:        "schedperf-cel",
			Description: `scheduler_perf shape; 1 device with a CEL selector (model == "B60")`,
			Cluster:     schedPerf,
			Claims: one(inventorygen.ExactClaim("schedperf-cel", inventorygen.ClassSchedulerPerf, 1,
				fmt.Sprintf("device.attributes[%q].model == %q", inventorygen.DriverSchedulerPerf, "B60"))),
		},
		{
			Name:        "h100",
			Description: "NVIDIA 8×H100 80GB per node; 1 GPU with memory >= 40Gi",
			Cluster:     inventorygen.NvidiaH100,
			Claims:      one(inventorygen.GPUWithMemoryClaim("h100", "40Gi")),
		},
		{
			Name:        "h200",
			Description: "NVIDIA 8×H200 per node; 1 GPU with memory >= 80Gi",
			Cluster:     inventorygen.NvidiaH200,
			Claims:      one(inventorygen.GPUWithMemoryClaim("h200", "80Gi")),
		},
		{
			Name:        "a100-40gb",
			Description: "NVIDIA 8×A100-SXM4-40GB per node; 1 GPU with memory >= 40Gi",
			Cluster:     inventorygen.NvidiaA100,
			Claims:      one(inventorygen.GPUWithMemoryClaim("a100", "40Gi")),
		},
		{
			Name:        "dynamic-mig",
			Description: "8×H100 in dynamic MIG mode (208 partitionable devices, 8 counter sets/node); 1 MIG 1g.10gb",
			Cluster:     func(n int) inventorygen.Cluster { return inventorygen.DynamicMIG(n, inventorygen.NvidiaGPUsPerNode) },
			Claims:      one(inventorygen.MIGProfileClaim("mig", "1g.10gb")),
		},
		{
			Name:        "example-partitions",
			Description: "dra-example-driver, 8 GPUs with halves and quarters (56 devices, 8 counter sets/node); 1 quarter",
			Cluster:     func(n int) inventorygen.Cluster { return inventorygen.ExampleDriver(n, true) },
			Claims: one(inventorygen.ExactClaim("quarter", inventorygen.ClassExample, 1,
				fmt.Sprintf("device.attributes[%q].partition == %q", inventorygen.DriverExample, "quarter"))),
		},
		{
			Name:        "nic-shared",
			Description: "4 shareable NICs/node with consumable bandwidth; a 10G share of 1 NIC",
			Cluster:     inventorygen.SharedNICs,
			Claims:      one(inventorygen.NICShareClaim("nic", "10G")),
		},
		{
			Name:        "gpu-nic-pcie",
			Description: "8×H100 + 4 shareable NICs/node; 1 GPU and a 10G NIC share on the same PCIe root (matchAttribute)",
			Cluster:     gpuNICCluster,
			Claims:      one(gpuNICClaim()),
		},
		{
			Name:        "match-5",
			Description: "scheduler_perf shape; 5 requests of 1 device with matchAttribute pciRoot",
			Cluster:     schedPerf,
			Claims:      one(matchFiveClaim()),
		},
		{
			Name:        "schedperf-200-last",
			Description: "scheduler_perf shape with 200 devices/node; 1 device whose CEL selector matches only the last one (pciAddress): the per-device worst case",
			Cluster:     func(n int) inventorygen.Cluster { return inventorygen.SchedulerPerf(n, 200) },
			Claims: one(inventorygen.ExactClaim("last", inventorygen.ClassSchedulerPerf, 1,
				fmt.Sprintf("device.attributes[%q].pciAddress == %q", inventorygen.DriverSchedulerPerf, "0000:0199:00.0"))),
		},
	}
}
