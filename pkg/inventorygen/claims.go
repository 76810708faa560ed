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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClaimNamespace is the namespace of every generated claim.
const ClaimNamespace = "default"

// RequestName is the name of the single request of the claim builders.
const RequestName = "req-0"

// PCIeRootAttribute is the standard attribute naming a device's PCIe root.
const PCIeRootAttribute resourceapi.FullyQualifiedName = "resource.kubernetes.io/pcieRoot"

// NewClaim returns a claim in ClaimNamespace with a UID derived from its name
// and the given requests.
func NewClaim(name string, requests ...resourceapi.DeviceRequest) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: ClaimNamespace,
			UID:       uidOf("ResourceClaim", ClaimNamespace+"/"+name),
		},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: requests}},
	}
}

// ExactRequest is an ExactCount request for count devices of a class
// matching all selectors.
func ExactRequest(name, class string, count int64, selectors ...string) resourceapi.DeviceRequest {
	return resourceapi.DeviceRequest{
		Name: name,
		Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: class,
			Selectors:       celSelectors(selectors...),
			AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
			Count:           count,
		},
	}
}

// ExactClaim is a claim with one ExactCount request "req-0".
func ExactClaim(name, class string, count int64, selectors ...string) *resourceapi.ResourceClaim {
	return NewClaim(name, ExactRequest(RequestName, class, count, selectors...))
}

// GPUMemorySelector is the NVIDIA examples' memory selector:
// device.capacity["gpu.nvidia.com"].memory.compareTo(quantity(minMemory)) >= 0.
func GPUMemorySelector(minMemory string) string {
	return fmt.Sprintf("device.capacity[%q].memory.compareTo(quantity(%q)) >= 0", DriverNvidia, minMemory)
}

// GPUWithMemoryClaim asks for one full NVIDIA GPU with at least minMemory
// (e.g. "40Gi"; note that an H100 80GB reports 81559Mi < 80Gi).
func GPUWithMemoryClaim(name, minMemory string) *resourceapi.ResourceClaim {
	return ExactClaim(name, ClassNvidiaGPU, 1, GPUMemorySelector(minMemory))
}

// GPUsOnSamePCIeRootClaim asks for k full NVIDIA GPUs that share a PCIe root
// (matchAttribute resource.kubernetes.io/pcieRoot). The NVIDIA shapes put two
// GPUs on each root, so k > 2 cannot be satisfied.
func GPUsOnSamePCIeRootClaim(name string, k int64) *resourceapi.ResourceClaim {
	claim := ExactClaim(name, ClassNvidiaGPU, k)
	claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: ptr(PCIeRootAttribute)}}
	return claim
}

// MIGProfileClaim asks for one MIG device of a profile such as "1g.10gb".
func MIGProfileClaim(name, profile string) *resourceapi.ResourceClaim {
	return ExactClaim(name, ClassNvidiaMIG, 1, fmt.Sprintf("device.attributes[%q].profile == %q", DriverNvidia, profile))
}

// WholeElseMIGClaim is a firstAvailable request "req-0" with the
// subrequests "whole" (count full NVIDIA GPUs) and "part" (count MIG
// devices of profile): the claim of a gang pod that takes parts of GPUs
// where whole ones would strand a sibling.
func WholeElseMIGClaim(name, profile string, count int64) *resourceapi.ResourceClaim {
	return NewClaim(name, resourceapi.DeviceRequest{
		Name: RequestName,
		FirstAvailable: []resourceapi.DeviceSubRequest{
			{Name: "whole", DeviceClassName: ClassNvidiaGPU, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count},
			{Name: "part", DeviceClassName: ClassNvidiaMIG, Selectors: celSelectors(fmt.Sprintf("device.attributes[%q].profile == %q", DriverNvidia, profile)),
				AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count},
		},
	})
}

// ProductSelector matches NVIDIA devices whose productName contains the
// lower-case pattern, like the driver's examples:
// device.attributes["gpu.nvidia.com"].productName.lowerAscii().matches("^.*h100.*$").
func ProductSelector(product string) string {
	return fmt.Sprintf("device.attributes[%q].productName.lowerAscii().matches(%q)", DriverNvidia, "^.*"+product+".*$")
}

// PreferH100ElseTwoA100Claim is a firstAvailable request "req-0" with the
// subrequests "h100" (one H100) and "a100" (two A100).
func PreferH100ElseTwoA100Claim(name string) *resourceapi.ResourceClaim {
	return NewClaim(name, resourceapi.DeviceRequest{
		Name: RequestName,
		FirstAvailable: []resourceapi.DeviceSubRequest{
			{
				Name:            "h100",
				DeviceClassName: ClassNvidiaGPU,
				Selectors:       celSelectors(ProductSelector("h100")),
				AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
				Count:           1,
			},
			{
				Name:            "a100",
				DeviceClassName: ClassNvidiaGPU,
				Selectors:       celSelectors(ProductSelector("a100")),
				AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
				Count:           2,
			},
		},
	})
}

// AllDevicesClaim asks for all devices of a class on the node
// (allocationMode All) matching the selectors.
func AllDevicesClaim(name, class string, selectors ...string) *resourceapi.ResourceClaim {
	return NewClaim(name, resourceapi.DeviceRequest{
		Name: RequestName,
		Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: class,
			Selectors:       celSelectors(selectors...),
			AllocationMode:  resourceapi.DeviceAllocationModeAll,
		},
	})
}

// NICShareClaim asks for a share of one NIC with the given ingress bandwidth
// (e.g. "10G"); the other capacities are consumed at their policy defaults.
func NICShareClaim(name, ingressBandwidth string) *resourceapi.ResourceClaim {
	claim := ExactClaim(name, ClassNIC, 1)
	claim.Spec.Devices.Requests[0].Exactly.Capacity = &resourceapi.CapacityRequirements{
		Requests: map[resourceapi.QualifiedName]resource.Quantity{"ingressBandwidth": quantity(ingressBandwidth)},
	}
	return claim
}
