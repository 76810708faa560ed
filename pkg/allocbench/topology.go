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
	"strings"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// gpuNICCluster is NvidiaH100 with SharedNICs' NICs published on the same
// nodes: NIC k sits on the PCIe root of GPUs 2k and 2k+1. The NIC slices
// are copies moved to the GPU node (name, nodeName, pool and owner).
func gpuNICCluster(nodes int) inventorygen.Cluster {
	gpus := inventorygen.NvidiaH100(nodes)
	nics := inventorygen.SharedNICs(nodes)
	home := make(map[string]int, len(nics.Nodes)) // NIC node name -> index
	for i, n := range nics.Nodes {
		home[n.Name] = i
	}
	c := gpus.Merge()
	for _, s := range nics.Slices {
		i, ok := home[ptrValue(s.Spec.NodeName)]
		if !ok {
			continue
		}
		from, to := nics.Nodes[i], gpus.Nodes[i]
		moved := s.DeepCopy()
		moved.Name = to.Name + strings.TrimPrefix(s.Name, from.Name)
		moved.Spec.NodeName = &to.Name
		moved.Spec.Pool.Name = to.Name
		for j := range moved.OwnerReferences {
			moved.OwnerReferences[j].Name, moved.OwnerReferences[j].UID = to.Name, to.UID
		}
		c.Slices = append(c.Slices, moved)
	}
	c.Classes = append(c.Classes, nics.Classes...)
	return c
}

// gpuNICClaim asks for one full GPU and a 10G share of one NIC on the
// same PCIe root.
func gpuNICClaim() *resourceapi.ResourceClaim {
	nic := inventorygen.NICShareClaim("nic", "10G").Spec.Devices.Requests[0]
	nic.Name = "nic"
	claim := inventorygen.NewClaim("gpu-nic", inventorygen.ExactRequest("gpu", inventorygen.ClassNvidiaGPU, 1), nic)
	root := inventorygen.PCIeRootAttribute
	claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: &root}}
	return claim
}

// matchFiveClaim is scheduler_perf's matchAttribute case: five requests
// of one device each, all on the same pciRoot.
func matchFiveClaim() *resourceapi.ResourceClaim {
	var requests []resourceapi.DeviceRequest
	var names []string
	for i := range 5 {
		name := fmt.Sprintf("req-%d", i)
		requests = append(requests, inventorygen.ExactRequest(name, inventorygen.ClassSchedulerPerf, 1))
		names = append(names, name)
	}
	claim := inventorygen.NewClaim("match-5", requests...)
	root := resourceapi.FullyQualifiedName("resource.kubernetes.io/pciRoot")
	claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{Requests: names, MatchAttribute: &root}}
	return claim
}

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
