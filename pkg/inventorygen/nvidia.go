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

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// Names of the NVIDIA DRA GPU driver (sigs.k8s.io/dra-driver-nvidia-gpu).
const (
	// DriverNvidia is the NVIDIA GPU driver name; it is also the domain of
	// its unqualified attributes and capacities.
	DriverNvidia = "gpu.nvidia.com"
	// ClassNvidiaGPU selects full GPUs (type "gpu").
	ClassNvidiaGPU = "gpu.nvidia.com"
	// ClassNvidiaMIG selects MIG devices (type "mig").
	ClassNvidiaMIG = "mig.nvidia.com"
	// ClassNvidiaVFIO selects GPUs for VFIO passthrough (type "vfio"); the
	// generated inventories have none, the class exists as the driver installs it.
	ClassNvidiaVFIO = "vfio.gpu.nvidia.com"
	// NvidiaGPUsPerNode is the GPU count of the full-GPU shapes (an HGX board).
	NvidiaGPUsPerNode = 8
	// NvidiaGPUAttributes is the number of attributes of a full GPU device.
	NvidiaGPUAttributes = 10
	// NvidiaGPUCapacities is the number of capacities of a full GPU device
	// (memory).
	NvidiaGPUCapacities = 1

	nvidiaDriverVersion     = "580.95.5"
	nvidiaCUDADriverVersion = "13.0.0"
	// gpusPerPCIeRoot: two GPUs share a PCIe switch/root on HGX boards.
	gpusPerPCIeRoot = 2
)

// gpuModel holds what the driver reports for one GPU product. Engine counts
// are the full GPU's (approx. where the reference gives none).
type gpuModel struct {
	label        string // node label value nvidia.com/gpu.product
	productName  string
	architecture string
	computeCap   string // cudaComputeCapability
	memory       string // full GPU memory capacity
	// Totals of the MIG counters (the full GPU consumes all of them).
	multiprocessors, copyEngines, decoders, encoders, jpegEngines, ofaEngines int64
	memorySlices                                                              int
	profiles                                                                  []migProfile
}

var (
	modelH100 = gpuModel{
		label: "NVIDIA-H100-80GB-HBM3", productName: "NVIDIA H100 80GB HBM3",
		architecture: "Hopper", computeCap: "9.0.0", memory: "81559Mi",
		multiprocessors: 132, copyEngines: 8, decoders: 7, encoders: 0, jpegEngines: 7, ofaEngines: 1,
		memorySlices: 8, profiles: h100Profiles,
	}
	modelH200 = gpuModel{
		label: "NVIDIA-H200", productName: "NVIDIA H200",
		architecture: "Hopper", computeCap: "9.0.0", memory: "143771Mi",
		multiprocessors: 132, copyEngines: 8, decoders: 7, encoders: 0, jpegEngines: 7, ofaEngines: 1,
		memorySlices: 8,
	}
	modelA100 = gpuModel{
		label: "NVIDIA-A100-SXM4-40GB", productName: "NVIDIA A100-SXM4-40GB",
		architecture: "Ampere", computeCap: "8.0.0", memory: "40Gi",
		multiprocessors: 108, copyEngines: 7, decoders: 5, encoders: 0, jpegEngines: 1, ofaEngines: 1,
		memorySlices: 8, profiles: a100Profiles,
	}
)

// NvidiaH100 returns nodes "h100-<i>", each with 8 full H100 80GB GPUs
// published by gpu.nvidia.com in one slice of the node's pool (pool name =
// node name, owned by the node), plus the driver's three DeviceClasses.
func NvidiaH100(nodes int) Cluster {
	return nvidiaFullGPUs("h100", modelH100, nodes, NvidiaGPUsPerNode)
}

// NvidiaH100x4 is NvidiaH100 with 4 GPUs per node (nodes "h100x4-<i>"),
// the GPUs of a compute tray of an NVL72 rack (18 trays × 4 GPUs).
func NvidiaH100x4(nodes int) Cluster { return nvidiaFullGPUs("h100x4", modelH100, nodes, 4) }

// NvidiaH200 is NvidiaH100 for H200 GPUs (nodes "h200-<i>").
func NvidiaH200(nodes int) Cluster {
	return nvidiaFullGPUs("h200", modelH200, nodes, NvidiaGPUsPerNode)
}

// NvidiaA100 is NvidiaH100 for A100-SXM4-40GB GPUs (nodes "a100-<i>").
func NvidiaA100(nodes int) Cluster {
	return nvidiaFullGPUs("a100", modelA100, nodes, NvidiaGPUsPerNode)
}

func nvidiaFullGPUs(prefix string, model gpuModel, nodes, gpusPerNode int) Cluster {
	var c Cluster
	for i := range nodes {
		node := nvidiaNode(fmt.Sprintf("%s-%d", prefix, i), model)
		c.Nodes = append(c.Nodes, node)
		devices := make([]resourceapi.Device, 0, gpusPerNode)
		for minor := range gpusPerNode {
			devices = append(devices, fullGPU(node.Name, minor, model))
		}
		c.Slices = append(c.Slices, nodePool{node: node, driver: DriverNvidia, deviceGroups: [][]resourceapi.Device{devices}}.slices()...)
	}
	c.Classes = NvidiaClasses()
	return c
}

func nvidiaNode(name string, model gpuModel) *v1.Node {
	return newNode(name, map[string]string{
		"nvidia.com/gpu.present": "true",
		"nvidia.com/gpu.product": model.label,
	})
}

// NvidiaClasses returns the DeviceClasses the NVIDIA driver installs:
// gpu.nvidia.com (extended resource nvidia.com/gpu), mig.nvidia.com and
// vfio.gpu.nvidia.com, each selecting the driver and one device type.
func NvidiaClasses() []*resourceapi.DeviceClass {
	typed := func(name, typ string) *resourceapi.DeviceClass {
		return newClass(name, fmt.Sprintf("device.driver == %q && device.attributes[%q].type == %q", DriverNvidia, DriverNvidia, typ))
	}
	gpu := typed(ClassNvidiaGPU, "gpu")
	gpu.Spec.ExtendedResourceName = ptr("nvidia.com/gpu")
	return []*resourceapi.DeviceClass{gpu, typed(ClassNvidiaMIG, "mig"), typed(ClassNvidiaVFIO, "vfio")}
}

// gpuUUID is the stable "GPU-<uuid>" of a GPU.
func gpuUUID(node string, minor int) string {
	return "GPU-" + hashUUID("gpu", node, fmt.Sprint(minor))
}

// pciLocation places GPU minor on an HGX-like topology: two GPUs per PCIe
// root, four roots per PCI domain (bus numbers approx.).
func pciLocation(minor int) (busID, root string) {
	roots := []int{0x15, 0x48, 0x97, 0xcb}
	pair := minor / gpusPerPCIeRoot
	domain := pair / len(roots)
	rootBus := roots[pair%len(roots)]
	bus := rootBus + 5 + 8*(minor%gpusPerPCIeRoot)
	return fmt.Sprintf("%04x:%02x:00.0", domain, bus), fmt.Sprintf("pci%04x:%02x", domain, rootBus)
}

// gpuAttributes are the attributes common to full GPUs and MIG devices of a
// parent GPU (without uuid).
func gpuAttributes(minor int, model gpuModel, typ string) map[resourceapi.QualifiedName]resourceapi.DeviceAttribute {
	busID, root := pciLocation(minor)
	return map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
		"type":                            stringAttr(typ),
		"productName":                     stringAttr(model.productName),
		"brand":                           stringAttr("Nvidia"),
		"architecture":                    stringAttr(model.architecture),
		"cudaComputeCapability":           versionAttr(model.computeCap),
		"driverVersion":                   versionAttr(nvidiaDriverVersion),
		"cudaDriverVersion":               versionAttr(nvidiaCUDADriverVersion),
		"resource.kubernetes.io/pciBusID": stringAttr(busID),
		"resource.kubernetes.io/pcieRoot": stringAttr(root),
	}
}

// fullGPU is device "gpu-<minor>" with 10 attributes and its memory.
func fullGPU(node string, minor int, model gpuModel) resourceapi.Device {
	attrs := gpuAttributes(minor, model, "gpu")
	attrs["uuid"] = stringAttr(gpuUUID(node, minor))
	return resourceapi.Device{
		Name:       fmt.Sprintf("gpu-%d", minor),
		Attributes: attrs,
		Capacity:   map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": capacityOf(model.memory)},
	}
}
