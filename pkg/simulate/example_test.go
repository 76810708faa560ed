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

package simulate_test

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/simulate"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// A capacity question as a caller asks it: how many more one-GPU pods fit
// on a node with four GPUs, one of them taken, and what stops the next.
func ExampleFork_Count() {
	const driver = "gpu.example.com"
	taken := objects.Claim("taken", "default", objects.ClaimSpec("gpu", driver, 1))
	taken.UID = "taken-uid"
	taken.Status.Allocation = &resourceapi.AllocationResult{
		Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
			{Request: "gpu", Driver: driver, Pool: "node-1", Device: "gpu-0"},
		}},
	}
	snap := simulate.NewSnapshot(simulate.Objects{
		Nodes: []*v1.Node{objects.MakeNode("node-1").Obj()},
		Slices: []*resourceapi.ResourceSlice{objects.MakeSlice("node-1-gpus", driver, "node-1").
			Device("gpu-0", nil).Device("gpu-1", nil).Device("gpu-2", nil).Device("gpu-3", nil).Obj()},
		Classes:   []*resourceapi.DeviceClass{objects.DeviceClass(driver, driver)},
		Claims:    []*resourceapi.ResourceClaim{taken},
		Templates: []*resourceapi.ResourceClaimTemplate{objects.ClaimTemplate("one-gpu", "default", "gpu", driver, 1)},
	}, simulate.Settings{Features: structured.Features{}})

	f := snap.Fork()
	pod := objects.MakePod("worker", "default").ClaimFromTemplate("gpu", "one-gpu").Obj()
	count, err := f.Count(context.Background(), simulate.Shape{Pod: pod}, simulate.CountOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(count.Count, "fit, exactly:", count.Exact)
	for _, p := range count.Placements {
		fmt.Println(p.Copy, p.Node, p.Claims[0].Devices)
	}
	fmt.Println("the next:", count.Next.Reason(len(snap.Nodes())))
	f.Revert() // the fork is as the snapshot again
	// Output:
	// 3 fit, exactly: true
	// 1 node-1 [gpu: gpu.example.com/node-1/gpu-1]
	// 2 node-1 [gpu: gpu.example.com/node-1/gpu-2]
	// 3 node-1 [gpu: gpu.example.com/node-1/gpu-3]
	// the next: 0/1 nodes are available: 1 all devices matching request "gpu" are allocated.
}
