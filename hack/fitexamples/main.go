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

// Command fitexamples writes the cluster dump that docs/troubleshooting.md's
// kubectl dra fit examples run against, as kubectl get -o yaml prints it:
//
//	go run ./hack/fitexamples > docs/examples/fit/cluster.yaml
//
// Four nodes of eight H100s (h100-0 has four taken, h100-1 two, h100-3 is
// cordoned) and two nodes of two A100s, each whole or seven 1g.10gb MIG
// slices on shared counters (a100-0's gpu-0 is taken whole).
package main

import (
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// driver is the examples' DRA driver.
const driver = "gpu.example.com"

// bound returns a running pod of namespace batch on node and its claim
// "<name>-gpus" of class h100.example.com, allocated the devices of the
// node's pool and reserved for it.
func bound(name, node string, devices ...string) []runtime.Object {
	uid := types.UID("uid-" + name)
	pod := objects.MakePod(name, "batch").Scheduler("dra-scheduler").Claim("gpus", name+"-gpus").Obj()
	pod.UID = uid
	pod.Spec.TerminationGracePeriodSeconds = nil
	pod.Spec.NodeName = node
	pod.Status.Phase = v1.PodRunning
	claim := objects.Claim(name+"-gpus", "batch", objects.ClaimSpec("gpus", "h100.example.com", int64(len(devices))))
	claim.UID = types.UID("uid-claim-" + name)
	alloc := &resourceapi.AllocationResult{NodeSelector: objects.NodeSelectorFor(node)}
	for _, d := range devices {
		alloc.Devices.Results = append(alloc.Devices.Results, resourceapi.DeviceRequestAllocationResult{Request: "gpus", Driver: driver, Pool: node, Device: d})
	}
	claim.Status.Allocation = alloc
	claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: name, UID: uid}}
	return []runtime.Object{pod, claim}
}

func main() {
	var objs []runtime.Object
	for i := range 4 {
		node := fmt.Sprintf("h100-%d", i)
		n := objects.MakeNode(node).Label("gpu.example.com/model", "H100").Obj()
		if i == 3 {
			n.Spec.Unschedulable = true
		}
		objs = append(objs, n)
		s := objects.MakeSlice(node+"-gpus", driver, node)
		for g := range 8 {
			s.Device(fmt.Sprintf("gpu-%d", g), map[string]string{"memory": "80Gi"}).Attribute("model", "H100")
		}
		objs = append(objs, s.Obj())
	}
	for i := range 2 {
		node := fmt.Sprintf("a100-%d", i)
		objs = append(objs, objects.MakeNode(node).Label("gpu.example.com/model", "A100").Obj())
		counters := objects.MakeSlice(node+"-counters", driver, node).SliceCount(2)
		devices := objects.MakeSlice(node+"-gpus", driver, node).SliceCount(2)
		for g := range 2 {
			set := fmt.Sprintf("gpu-%d", g)
			counters.CounterSet(set, map[string]string{"slices": "7", "memory": "80Gi"})
			devices.Device(set, nil).Attribute("model", "A100").Attribute("profile", "whole").
				ConsumesCounters(set, map[string]string{"slices": "7", "memory": "80Gi"})
			for k := range 7 {
				devices.Device(fmt.Sprintf("%s-1g-%d", set, k), nil).Attribute("model", "A100").Attribute("profile", "1g.10gb").
					ConsumesCounters(set, map[string]string{"slices": "1", "memory": "10Gi"})
			}
		}
		objs = append(objs, counters.Obj(), devices.Obj())
	}
	objs = append(objs,
		objects.DeviceClass("h100.example.com", driver, `device.attributes["gpu.example.com"].model == "H100"`),
		objects.DeviceClass("a100.example.com", driver, `device.attributes["gpu.example.com"].model == "A100" && device.attributes["gpu.example.com"].profile == "whole"`),
		objects.DeviceClass("mig-1g.10gb.example.com", driver, `device.attributes["gpu.example.com"].?profile.orValue("") == "1g.10gb"`),
	)
	objs = append(objs, bound("train-a", "h100-0", "gpu-0", "gpu-1", "gpu-2", "gpu-3")...)
	objs = append(objs, bound("train-b", "h100-1", "gpu-0", "gpu-1")...)
	nb := bound("notebook", "a100-0", "gpu-0")
	nb[1].(*resourceapi.ResourceClaim).Spec = objects.ClaimSpec("gpus", "a100.example.com", 1)
	objs = append(objs, nb...)
	data, err := objects.KubectlList(objs...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(data); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
