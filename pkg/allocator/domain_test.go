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

package allocator_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const nvlinkDomain = "gpu.example.com/nvlinkDomain"

// nvlinkCluster is node a with GPUs 0 and 1 in NVLink domain nvl-1 and 2
// and 3 in nvl-2, node b with two GPUs in nvl-2, and a NIC on a without
// the attribute.
func nvlinkCluster() ([]*v1.Node, []*resourceapi.ResourceSlice) {
	const gpu = "gpu.example.com"
	a := objects.MakeSlice("a-gpus", gpu, "a")
	for i, domain := range []string{"nvl-1", "nvl-1", "nvl-2", "nvl-2"} {
		a.Device("gpu-"+string(rune('0'+i)), nil).Attribute("nvlinkDomain", domain)
	}
	b := objects.MakeSlice("b-gpus", gpu, "b").Device("gpu-0", nil).Attribute("nvlinkDomain", "nvl-2").Device("gpu-1", nil).Attribute("nvlinkDomain", "nvl-2")
	nic := objects.MakeSlice("a-nics", "nic.example.com", "a").Device("nic-0", nil)
	return []*v1.Node{objects.MakeNode("a").Obj(), objects.MakeNode("b").Obj()}, []*resourceapi.ResourceSlice{a.Obj(), b.Obj(), nic.Obj()}
}

func TestDomainValuesAreTheDomainsANodesDevicesAreIn(t *testing.T) {
	nodes, sl := nvlinkCluster()
	a := newTestAllocator(structured.AllocatedState{}, inventorygen.NewClassLister(), sl)
	for _, tc := range []struct {
		node int
		key  string
		want []string
	}{
		{0, nvlinkDomain, []string{"nvl-1", "nvl-2"}},
		{1, nvlinkDomain, []string{"nvl-2"}},
		{0, "gpu.example.com/clique", nil},
		{0, "other.example.com/nvlinkDomain", nil},
	} {
		if got := a.DomainValues(nodes[tc.node], tc.key); !slices.Equal(got, tc.want) {
			t.Errorf("DomainValues(%s, %s) = %v, want %v", nodes[tc.node].Name, tc.key, got, tc.want)
		}
	}
}

func TestKeptToADomainTakesOnlyTheDomainsDevicesAndThoseWithoutTheAttribute(t *testing.T) {
	nodes, sl := nvlinkCluster()
	classes := inventorygen.NewClassLister(objects.DeviceClass("gpu", "gpu.example.com"), objects.DeviceClass("nic", "nic.example.com"))
	a := newTestAllocator(structured.AllocatedState{}, classes, sl)
	gpus := func(n int64) *resourceapi.ResourceClaim {
		return objects.Claim("gpus", "ns", objects.ClaimSpec("req", "gpu", n))
	}
	nic := objects.Claim("nic", "ns", objects.ClaimSpec("req", "nic", 1))
	for _, tc := range []struct {
		name   string
		domain string
		claims []*resourceapi.ResourceClaim
		want   []string // devices, nil: does not fit
	}{
		{"in nvl-2 node a offers its GPUs 2 and 3", "nvl-2", []*resourceapi.ResourceClaim{gpus(2)}, []string{"gpu-2", "gpu-3"}},
		{"in nvl-1 node a offers its GPUs 0 and 1", "nvl-1", []*resourceapi.ResourceClaim{gpus(2)}, []string{"gpu-0", "gpu-1"}},
		{"three GPUs fit no domain of node a", "nvl-2", []*resourceapi.ResourceClaim{gpus(3)}, nil},
		{"a NIC without the attribute stays usable", "nvl-1", []*resourceapi.ResourceClaim{gpus(1), nic}, []string{"gpu-0", "nic-0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := a.KeptTo(nvlinkDomain, tc.domain, nodes[:1]).Allocate(t.Context(), nodes[0], tc.claims)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res {
				for _, d := range r.Devices.Results {
					got = append(got, d.Device)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("devices %v, want %v", got, tc.want)
			}
		})
	}
	// The allocator it came from is unchanged.
	if res, err := a.Allocate(t.Context(), nodes[0], []*resourceapi.ResourceClaim{gpus(4)}); err != nil || res == nil {
		t.Errorf("the original allocator no longer offers node a's four GPUs: %v, %v", res, err)
	}
}

func TestKeptToADomainLeavesSharedCountersToTheDomain(t *testing.T) {
	const gpu = "gpu.example.com"
	node := objects.MakeNode("n").Obj()
	classes := inventorygen.NewClassLister(objects.SizeClass("half", gpu, "half"), objects.SizeClass("whole", gpu, "whole"))
	a := newTestAllocator(structured.AllocatedState{}, classes, objects.HalvableGPUs(gpu, "n", 1))
	halves := []*resourceapi.ResourceClaim{
		objects.Claim("h0", "ns", objects.ClaimSpec("req", "half", 1)),
		objects.Claim("h1", "ns", objects.ClaimSpec("req", "half", 1)),
	}
	// Keyed by size, the whole device is in another domain than its
	// halves: held as taken, it must not consume the GPU's counters.
	res, err := a.KeptTo(gpu+"/size", "half", []*v1.Node{node}).Allocate(t.Context(), node, halves)
	if err != nil || len(res) != 2 {
		t.Fatalf("two halves within the half domain: %v, %v; want both", res, err)
	}
	whole := []*resourceapi.ResourceClaim{objects.Claim("w", "ns", objects.ClaimSpec("req", "whole", 1))}
	if res, err := a.KeptTo(gpu+"/size", "half", []*v1.Node{node}).Allocate(t.Context(), node, whole); err != nil || res != nil {
		t.Errorf("the whole GPU within the half domain: %v, %v; want none", res, err)
	}
}

func TestDomainFreeCountsWhatANewClaimCouldGet(t *testing.T) {
	nodes, sl := nvlinkCluster()
	held := structured.AllocatedState{AllocatedDevices: sets.New(structured.MakeDeviceID("gpu.example.com", "a", "gpu-2"))}
	a := newTestAllocator(held, inventorygen.NewClassLister(), sl)
	for _, tc := range []struct {
		name       string
		nodes      []*v1.Node
		key, value string
		want       int
	}{
		{"every device of both nodes but the one held", nodes, "", "", 6},
		{"nvl-2 on both nodes: gpu-3 of a and b's two, the NIC without the attribute", nodes, nvlinkDomain, "nvl-2", 4},
		{"nvl-1 on node a: its two GPUs and the NIC", nodes[:1], nvlinkDomain, "nvl-1", 3},
	} {
		if got := a.DomainFree(t.Context(), tc.nodes, nil, tc.key, tc.value); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestAWhatIfFreesNoDeviceOutsideTheDomain(t *testing.T) {
	nodes, sl := nvlinkCluster()
	classes := inventorygen.NewClassLister(objects.DeviceClass("gpu", "gpu.example.com"))
	held := structured.AllocatedState{AllocatedDevices: sets.New(structured.MakeDeviceID("gpu.example.com", "a", "gpu-0"))}
	a := newTestAllocator(held, classes, sl).KeptTo(nvlinkDomain, "nvl-2", nodes)
	three := []*resourceapi.ResourceClaim{objects.Claim("g", "ns", objects.ClaimSpec("req", "gpu", 3))}
	// Node a vacated (its claims released, as a preemption dry run
	// predicts): gpu-0, allocated and in nvl-1, must stay out of reach.
	res, err := a.WhatIf(allocator.WhatIf{Vacate: "a"}).Allocate(t.Context(), nodes[0], three)
	if err != nil || res != nil {
		t.Errorf("three GPUs on node a within nvl-2 after a vacate: %v, %v; want none (nvl-2 has two there)", res, err)
	}
}

func TestDomainFreeIsUnboundedWithADeviceAllocatableManyTimes(t *testing.T) {
	node := objects.MakeNode("n").Obj()
	slice := objects.MakeSlice("n", "nic.example.com", "n").Device("vnic-0", nil).Obj()
	slice.Spec.Devices[0].AllowMultipleAllocations = ptr.To(true)
	a := newTestAllocator(structured.AllocatedState{}, inventorygen.NewClassLister(), []*resourceapi.ResourceSlice{slice})
	if got := a.DomainFree(t.Context(), []*v1.Node{node}, nil, "", ""); got != math.MaxInt {
		t.Errorf("DomainFree = %d, want unbounded: the device may serve any number of claims", got)
	}
}

func TestDomainFreeCountsOnlyTheDevicesTheClaimsSelectAndTheirCountersFit(t *testing.T) {
	cluster := inventorygen.DynamicMIG(1, 3)
	id := func(device string) structured.DeviceID {
		return structured.MakeDeviceID(inventorygen.DriverNvidia, "h100-mig-0", device)
	}
	// gpu-0 is in use whole; one half of gpu-1 is in use; gpu-2 is free.
	held := structured.AllocatedState{AllocatedDevices: sets.New(id("gpu-0"), id("gpu-1-mig-3g40gb-9-0"))}
	a := newTestAllocator(held, cluster.ClassLister(), cluster.Slices)
	whole := inventorygen.ExactClaim("whole", inventorygen.ClassNvidiaGPU, 1)
	half := inventorygen.MIGProfileClaim("half", "3g.40gb")
	for _, tc := range []struct {
		name   string
		claims []*resourceapi.ResourceClaim
		want   int
	}{
		{"whole GPUs: only gpu-2, as gpu-0 is in use and a half of gpu-1 is", []*resourceapi.ResourceClaim{whole}, 1},
		{"halves: gpu-1's other half and gpu-2's two", []*resourceapi.ResourceClaim{half}, 3},
		{"whole GPUs or halves: the devices either selects", []*resourceapi.ResourceClaim{whole, half}, 4},
		{"a whole GPU else a half (firstAvailable): every alternative selects", []*resourceapi.ResourceClaim{inventorygen.WholeElseMIGClaim("either", "3g.40gb", 1)}, 4},
	} {
		if got := a.DomainFree(t.Context(), cluster.Nodes, tc.claims, "", ""); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	// Without claims, or with claims that do not prepare, every device
	// whose counters fit counts.
	broken := []*resourceapi.ResourceClaim{inventorygen.ExactClaim("broken", "no-such-class", 1)}
	if got, every := a.DomainFree(t.Context(), cluster.Nodes, broken, "", ""), a.DomainFree(t.Context(), cluster.Nodes, nil, "", ""); got != every {
		t.Errorf("claims of a missing class: %d, want every device's %d", got, every)
	}
	onlyGPU0 := newTestAllocator(structured.AllocatedState{AllocatedDevices: sets.New(id("gpu-0"))}, cluster.ClassLister(), cluster.Slices)
	devices, gpu0Parts := 0, 0
	for _, s := range cluster.Slices {
		for _, d := range s.Spec.Devices {
			devices++
			if strings.HasPrefix(d.Name, "gpu-0-") {
				gpu0Parts++
			}
		}
	}
	if got, want := onlyGPU0.DomainFree(t.Context(), cluster.Nodes, nil, "", ""), devices-1-gpu0Parts; got != want {
		t.Errorf("without claims, gpu-0 in use: %d, want %d (every device but gpu-0 and its %d partitions, whose counters it holds)", got, want, gpu0Parts)
	}
}
