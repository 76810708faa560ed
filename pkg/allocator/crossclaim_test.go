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
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocationcheck"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// pcieRoot is the attribute the scenarios tie devices by.
const pcieRoot = resourceapi.FullyQualifiedName("resource.kubernetes.io/pcieRoot")

// ccDevice is a device of node n's pool: its kind ("gpu", "nic"), its
// PCIe root and its numa node.
type ccDevice struct {
	name, kind, root string
	numa             int64
}

// ccSlices is node n's pool of the devices, in order.
func ccSlices(devices ...ccDevice) []*resourceapi.ResourceSlice {
	w := ubDevices()
	for _, d := range devices {
		w.Device(d.name, nil).Attribute("kind", d.kind).IntAttribute("numa", d.numa)
		if d.root != "" {
			w.Spec.Devices[len(w.Spec.Devices)-1].Attributes[resourceapi.QualifiedName(pcieRoot)] = resourceapi.DeviceAttribute{StringValue: &d.root}
		}
	}
	return []*resourceapi.ResourceSlice{w.Obj()}
}

// ccClaim is a claim of one device of kind, in request "dev".
func ccClaim(name, kind string) *resourceapi.ResourceClaim {
	return ubClaim(name, ubRequest("dev", 1, ubKind(kind)))
}

// ccMatch ties the requests by matchAttribute.
func ccMatch(name resourceapi.FullyQualifiedName, requests ...allocator.ClaimRequest) allocator.CrossClaimConstraint {
	return allocator.CrossClaimConstraint{Requests: requests, MatchAttribute: &name}
}

// ccDistinct keeps the requests apart by distinctAttribute.
func ccDistinct(name resourceapi.FullyQualifiedName, requests ...allocator.ClaimRequest) allocator.CrossClaimConstraint {
	return allocator.CrossClaimConstraint{Requests: requests, DistinctAttribute: &name}
}

// withChosen is con with node n's devices chosen elsewhere.
func withChosen(con allocator.CrossClaimConstraint, devices ...string) allocator.CrossClaimConstraint {
	for _, d := range devices {
		con.Chosen = append(con.Chosen, structured.MakeDeviceID(ubDriver, "n", d))
	}
	return con
}

// ccAllocated is claim allocated the devices, for request "dev".
func ccAllocated(claim *resourceapi.ResourceClaim, devices ...string) *resourceapi.ResourceClaim {
	claim = claim.DeepCopy()
	claim.Status.Allocation = &resourceapi.AllocationResult{}
	for _, d := range devices {
		claim.Status.Allocation.Devices.Results = append(claim.Status.Allocation.Devices.Results,
			resourceapi.DeviceRequestAllocationResult{Request: "dev", Driver: ubDriver, Pool: "n", Device: d})
	}
	return claim
}

// ccAllocator is a FirstFit allocator over the slices, with allocated's
// devices allocated, and the constraints.
func ccAllocator(features structured.Features, slices []*resourceapi.ResourceSlice, constraints []allocator.CrossClaimConstraint, allocated []*resourceapi.ResourceClaim) *allocator.Allocator {
	inv := inventory.New()
	for _, s := range slices {
		inv.Set(s)
	}
	st := structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID]()}
	for _, c := range allocated {
		for _, r := range c.Status.Allocation.Devices.Results {
			st.AllocatedDevices.Insert(structured.MakeDeviceID(r.Driver, r.Pool, r.Device))
		}
	}
	a := allocator.New(features, allocator.NewState(inv, st), inventorygen.NewClassLister(objects.DeviceClass("dev", ubDriver)),
		inv, allocator.NewMatcher(cel.NewCache(10, cel.Features{})), allocator.FirstFit)
	return a.WithCrossClaimConstraints(constraints, allocated)
}

func TestConstraintsAcrossClaims(t *testing.T) {
	gpuA, gpuB, nic := ccClaim("gpu", "gpu"), ccClaim("gpu-b", "gpu"), ccClaim("nic", "nic")
	gpuNIC := ccSlices(ccDevice{"gpu-0", "gpu", "pci-a", 0}, ccDevice{"gpu-1", "gpu", "pci-b", 1}, ccDevice{"nic-0", "nic", "pci-b", 1})
	for _, tc := range []struct {
		name        string
		features    structured.Features // zero: defaultFeatures
		slices      []*resourceapi.ResourceSlice
		claims      []*resourceapi.ResourceClaim
		constraints []allocator.CrossClaimConstraint
		allocated   []*resourceapi.ResourceClaim
		want        []string // devices claim by claim; nil: does not fit
		wantErr     string
	}{{
		name:   "without a constraint the GPU claim takes the first GPU, off the NIC's root",
		slices: gpuNIC, claims: []*resourceapi.ResourceClaim{gpuA, nic},
		want: []string{"gpu-0", "nic-0"},
	}, {
		name:   "a GPU claim and a NIC claim tied by pcieRoot take the GPU on the NIC's root",
		slices: gpuNIC, claims: []*resourceapi.ResourceClaim{gpuA, nic},
		constraints: []allocator.CrossClaimConstraint{ccMatch(pcieRoot, allocator.ClaimRequest{Claim: "gpu", Request: "dev"}, allocator.ClaimRequest{Claim: "nic"})},
		want:        []string{"gpu-1", "nic-0"},
	}, {
		name:   "a constraint with no requests covers every request of every claim",
		slices: gpuNIC, claims: []*resourceapi.ResourceClaim{gpuA, nic},
		constraints: []allocator.CrossClaimConstraint{ccMatch(pcieRoot)},
		want:        []string{"gpu-1", "nic-0"},
	}, {
		name:   "a NIC claim already allocated fixes the root of the GPU claim",
		slices: gpuNIC, claims: []*resourceapi.ResourceClaim{gpuA},
		constraints: []allocator.CrossClaimConstraint{ccMatch(pcieRoot, allocator.ClaimRequest{Claim: "gpu"}, allocator.ClaimRequest{Claim: "nic"})},
		allocated:   []*resourceapi.ResourceClaim{ccAllocated(nic, "nic-0")},
		want:        []string{"gpu-1"},
	}, {
		name:   "a device without the attribute does not match",
		slices: ccSlices(ccDevice{"gpu-0", "gpu", "", 0}, ccDevice{"nic-0", "nic", "pci-b", 1}), claims: []*resourceapi.ResourceClaim{gpuA, nic},
		constraints: []allocator.CrossClaimConstraint{ccMatch(pcieRoot)},
	}, {
		name:        "distinctAttribute across two GPU claims takes GPUs of two numa nodes",
		slices:      ccSlices(ccDevice{"gpu-0", "gpu", "pci-a", 0}, ccDevice{"gpu-1", "gpu", "pci-a", 0}, ccDevice{"gpu-2", "gpu", "pci-b", 1}),
		claims:      []*resourceapi.ResourceClaim{gpuA, gpuB},
		constraints: []allocator.CrossClaimConstraint{ccDistinct(ubAttrName("numa"), allocator.ClaimRequest{Claim: "gpu"}, allocator.ClaimRequest{Claim: "gpu-b"})},
		want:        []string{"gpu-0", "gpu-2"},
	}, {
		// Twins (twins.go) may not be used: the second GPU claim, the twin
		// of the first, needs gpu-0, before the first claim's pick.
		name:        "a constraint covering one of two twin claims is met where the twin rule would miss it",
		slices:      ccSlices(ccDevice{"gpu-0", "gpu", "pci-b", 1}, ccDevice{"gpu-1", "gpu", "pci-a", 0}, ccDevice{"nic-0", "nic", "pci-b", 1}),
		claims:      []*resourceapi.ResourceClaim{gpuA, gpuB, nic},
		constraints: []allocator.CrossClaimConstraint{ccMatch(pcieRoot, allocator.ClaimRequest{Claim: "gpu-b"}, allocator.ClaimRequest{Claim: "nic"})},
		want:        []string{"gpu-1", "gpu-0", "nic-0"},
	}, {
		name:   "a constraint naming a claim neither asked about nor allocated ignores it",
		slices: gpuNIC, claims: []*resourceapi.ResourceClaim{gpuA},
		constraints: []allocator.CrossClaimConstraint{ccMatch(pcieRoot, allocator.ClaimRequest{Claim: "gpu"}, allocator.ClaimRequest{Claim: "elsewhere"})},
		want:        []string{"gpu-0"},
	}, {
		name:   "allocated claims that break a constraint by themselves fail on every node",
		slices: gpuNIC, claims: []*resourceapi.ResourceClaim{ccClaim("other", "gpu")},
		constraints: []allocator.CrossClaimConstraint{ccMatch(pcieRoot, allocator.ClaimRequest{Claim: "gpu"}, allocator.ClaimRequest{Claim: "nic"})},
		allocated:   []*resourceapi.ResourceClaim{ccAllocated(gpuA, "gpu-0"), ccAllocated(nic, "nic-0")},
		wantErr:     "constraint 0 across claims: device dev.example.com/n/nic-0, allocated to claim nic for request dev, does not meet it",
	}, {
		name:   "a device chosen elsewhere fixes a match's value without being taken",
		slices: gpuNIC, claims: []*resourceapi.ResourceClaim{gpuA},
		constraints: []allocator.CrossClaimConstraint{withChosen(ccMatch(pcieRoot, allocator.ClaimRequest{Claim: "gpu"}), "nic-0")},
		want:        []string{"gpu-1"},
	}, {
		name:   "a device chosen elsewhere may be the one the claim takes",
		slices: gpuNIC, claims: []*resourceapi.ResourceClaim{gpuA},
		constraints: []allocator.CrossClaimConstraint{withChosen(ccMatch(pcieRoot, allocator.ClaimRequest{Claim: "gpu"}), "gpu-0")},
		want:        []string{"gpu-0"},
	}, {
		name:        "devices chosen elsewhere take their values from a distinct's",
		slices:      ccSlices(ccDevice{"gpu-0", "gpu", "pci-a", 0}, ccDevice{"gpu-1", "gpu", "pci-a", 0}, ccDevice{"gpu-2", "gpu", "pci-b", 1}),
		claims:      []*resourceapi.ResourceClaim{gpuA},
		constraints: []allocator.CrossClaimConstraint{withChosen(ccDistinct(ubAttrName("numa"), allocator.ClaimRequest{Claim: "gpu"}), "gpu-0")},
		want:        []string{"gpu-2"},
	}, {
		name:        "a device chosen elsewhere without the attribute fails on every node",
		slices:      ccSlices(ccDevice{"gpu-0", "gpu", "", 0}, ccDevice{"gpu-1", "gpu", "pci-a", 0}),
		claims:      []*resourceapi.ResourceClaim{gpuA},
		constraints: []allocator.CrossClaimConstraint{withChosen(ccMatch(pcieRoot, allocator.ClaimRequest{Claim: "gpu"}), "gpu-0")},
		wantErr:     "constraint 0 across claims: device dev.example.com/n/gpu-0, chosen elsewhere, does not meet it",
	}, {
		name:        "a device chosen elsewhere that no slice has fails on every node",
		slices:      gpuNIC,
		claims:      []*resourceapi.ResourceClaim{gpuA},
		constraints: []allocator.CrossClaimConstraint{withChosen(ccMatch(pcieRoot, allocator.ClaimRequest{Claim: "gpu"}), "gone")},
		wantErr:     "constraint 0 across claims: device dev.example.com/n/gone, chosen elsewhere, is in no slice",
	}, {
		name:     "with list-typed attributes, matchAttribute across claims keeps a common element",
		features: withLists(defaultFeatures),
		slices: func() []*resourceapi.ResourceSlice {
			w := ubDevices()
			w.Device("gpu-0", nil).Attribute("kind", "gpu").StringsAttribute("zone", "z0")
			w.Device("gpu-1", nil).Attribute("kind", "gpu").StringsAttribute("zone", "z1", "z2")
			w.Device("nic-0", nil).Attribute("kind", "nic").StringsAttribute("zone", "z0", "z2")
			w.Device("nic-1", nil).Attribute("kind", "nic").StringsAttribute("zone", "z2")
			return []*resourceapi.ResourceSlice{w.Obj()}
		}(),
		claims:      []*resourceapi.ResourceClaim{gpuA, nic, ccClaim("nic-b", "nic")},
		constraints: []allocator.CrossClaimConstraint{ccMatch(ubAttrName("zone"))},
		want:        []string{"gpu-1", "nic-0", "nic-1"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			features := tc.features
			if features == (structured.Features{}) {
				features = defaultFeatures
			}
			a := ccAllocator(features, tc.slices, tc.constraints, tc.allocated)
			node := objects.MakeNode("n").Obj()
			results, err := a.Allocate(t.Context(), node, tc.claims)
			fits, fitsErr := a.Fits(t.Context(), node, tc.claims)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, structured.ErrFailedAllocationOnNode) || fitsErr == nil {
					t.Fatalf("Allocate: %v, Fits: %v; want an error of every node saying %q", err, fitsErr, tc.wantErr)
				}
				return
			}
			if err != nil || fitsErr != nil {
				t.Fatalf("Allocate: %v, Fits: %v", err, fitsErr)
			}
			var got []string
			for _, r := range results {
				for _, d := range r.Devices.Results {
					got = append(got, d.Device)
				}
			}
			if !slices.Equal(got, tc.want) || fits != (tc.want != nil) {
				t.Fatalf("allocated %v (Fits %v), want %v", got, fits, tc.want)
			}
			if results == nil {
				return
			}
			for _, v := range allocationcheck.Check(t.Context(), allocationcheck.Input{Features: features, Node: node, Slices: tc.slices,
				Classes: inventorygen.NewClassLister(objects.DeviceClass("dev", ubDriver)), Claims: tc.claims}, results) {
				t.Errorf("invalid allocation: %v", v)
			}
		})
	}
}

// ubAttrName is the driver's attribute name, fully qualified.
func ubAttrName(name string) resourceapi.FullyQualifiedName { return *ubAttr(name) }

// withLists is features with ListTypeAttributes.
func withLists(f structured.Features) structured.Features {
	f.ListTypeAttributes = true
	return f
}

// TestAGangPlanHonoursConstraintsAcrossAMembersClaims: members a and b of
// a gang have claims of the same specs (a GPU, a NIC), but only b's are
// tied by pcieRoot. node-1, first for both, has a GPU and a NIC on pci-x;
// node-2 a GPU on pci-a and a NIC on pci-b. The plan must give b node-1:
// were the two one class, b's fit on node-2 would be read off a's
// unconstrained claims.
func TestAGangPlanHonoursConstraintsAcrossAMembersClaims(t *testing.T) {
	slices1 := ccSlices(ccDevice{"gpu-0", "gpu", "pci-x", 0}, ccDevice{"nic-0", "nic", "pci-x", 0})
	w := objects.MakeSlice("n2", ubDriver, "n2")
	w.Spec.Pool.Name = "n2"
	for _, d := range []ccDevice{{"gpu-0", "gpu", "pci-a", 0}, {"nic-0", "nic", "pci-b", 0}} {
		root := d.root
		w.Device(d.name, nil).Attribute("kind", d.kind)
		w.Spec.Devices[len(w.Spec.Devices)-1].Attributes[resourceapi.QualifiedName(pcieRoot)] = resourceapi.DeviceAttribute{StringValue: &root}
	}
	a := ccAllocator(defaultFeatures, append(slices1, w.Obj()), []allocator.CrossClaimConstraint{
		ccMatch(pcieRoot, allocator.ClaimRequest{Claim: "b-gpu"}, allocator.ClaimRequest{Claim: "b-nic"})}, nil)
	nodes := []*v1.Node{objects.MakeNode("n").Obj(), objects.MakeNode("n2").Obj()}
	members, _ := allocator.GangMembers([]allocator.GangPod{
		{Name: "a", Claims: []*resourceapi.ResourceClaim{ccClaim("a-gpu", "gpu"), ccClaim("a-nic", "nic")}, Nodes: nodes},
		{Name: "b", Claims: []*resourceapi.ResourceClaim{ccClaim("b-gpu", "gpu"), ccClaim("b-nic", "nic")}, Nodes: nodes},
	})
	plan, err := a.PlanGang(t.Context(), members, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a": "n2", "b": "n"}; !maps.Equal(plan.Nodes, want) || !plan.Complete {
		t.Errorf("plan %v (complete %v), want %v", plan.Nodes, plan.Complete, want)
	}
}
