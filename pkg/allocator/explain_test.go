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
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// newTestAllocator builds an allocator the way the plugin does: over a
// long-lived inventory of slices, with state as the allocated devices.
func newTestAllocator(state structured.AllocatedState, classes structured.DeviceClassLister, slices []*resourceapi.ResourceSlice) *allocator.Allocator {
	inv := inventory.New()
	for _, s := range slices {
		inv.Set(s)
	}
	m := allocator.NewMatcher(cel.NewCache(10, cel.Features{EnableConsumableCapacity: true}))
	return allocator.New(defaultFeatures, allocator.NewState(inv, state), classes, inv, m, allocator.FirstFit)
}

// explainCase is claims that do not fit on any node of cluster with a
// fraction of its devices already allocated, and the one finding every
// node must report.
type explainCase struct {
	name       string
	cluster    inventorygen.Cluster
	occupancy  float64
	claims     []*resourceapi.ResourceClaim
	want       allocator.Explanation
	wantString string
}

// run checks that Allocate really finds no solution on every node, then
// that Explain reports the same finding, with the same text, on each.
func (tc explainCase) run(t *testing.T) {
	t.Helper()
	a := newTestAllocator(inventorygen.Occupancy(tc.cluster, tc.occupancy).State(), tc.cluster.ClassLister(), tc.cluster.Slices)
	for _, node := range tc.cluster.Nodes {
		res, err := a.Allocate(t.Context(), node, tc.claims)
		if res != nil || err != nil {
			t.Fatalf("node %s: Allocate = %v, %v; the case needs claims that do not fit", node.Name, res, err)
		}
		got := a.Explain(t.Context(), node, tc.claims)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("node %s: Explain =\n%#v\nwant\n%#v", node.Name, got, tc.want)
		}
		if s := got.String(); s != tc.wantString {
			t.Errorf("node %s: String() =\n%s\nwant\n%s", node.Name, s, tc.wantString)
		}
	}
}

func TestExplainSaysWhyClaimsDoNotFit(t *testing.T) {
	h100, a100 := inventorygen.NvidiaH100(2), inventorygen.NvidiaA100(2)
	gpu, mig := inventorygen.ClassNvidiaGPU, inventorygen.ClassNvidiaMIG
	const req = inventorygen.RequestName
	a100Only, h100Only := inventorygen.ProductSelector("a100"), inventorygen.ProductSelector("h100")
	gpuClassSelector := []string{`device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].type == "gpu"`}
	migClassSelector := `device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].type == "mig"`

	distinctProduct := inventorygen.ExactClaim("distinct", gpu, 2)
	distinctProduct.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{DistinctAttribute: ptr.To[resourceapi.FullyQualifiedName]("gpu.nvidia.com/productName")}}
	a100FirstThenH100 := inventorygen.PreferH100ElseTwoA100Claim("a100-first")
	slices.Reverse(a100FirstThenH100.Spec.Devices.Requests[0].FirstAvailable)
	withAdminAccess := func(c *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
		c.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(true)
		return c
	}

	for _, tc := range []explainCase{
		{
			name: "no device matching the request's selector names the request, the class and the selector", cluster: h100,
			claims:     []*resourceapi.ResourceClaim{inventorygen.ExactClaim("c", gpu, 1, a100Only)},
			want:       allocator.Explanation{Kind: allocator.NoMatchingDevice, Request: req, Class: gpu, Selectors: []string{a100Only}},
			wantString: `no device matches request "req-0" (class gpu.nvidia.com, selector ` + a100Only + `)`,
		},
		{
			name: "several request selectors are joined with &&", cluster: h100,
			claims: []*resourceapi.ResourceClaim{inventorygen.ExactClaim("c", gpu, 1, h100Only, a100Only)},
			want:   allocator.Explanation{Kind: allocator.NoMatchingDevice, Request: req, Class: gpu, Selectors: []string{h100Only, a100Only}},
			wantString: `no device matches request "req-0" (class gpu.nvidia.com, selector ` +
				h100Only + ` && ` + a100Only + `)`,
		},
		{
			name: "the class's selectors are shown when the request has none", cluster: h100,
			claims:     []*resourceapi.ResourceClaim{inventorygen.ExactClaim("c", mig, 1)},
			want:       allocator.Explanation{Kind: allocator.NoMatchingDevice, Request: req, Class: mig, Selectors: []string{migClassSelector}},
			wantString: `no device matches request "req-0" (class mig.nvidia.com, selector ` + migClassSelector + `)`,
		},
		{
			name: "a node whose matching devices are all allocated says so", cluster: h100, occupancy: 1,
			claims:     []*resourceapi.ResourceClaim{inventorygen.ExactClaim("c", gpu, 1)},
			want:       allocator.Explanation{Kind: allocator.AllMatchingAllocated, Request: req, Class: gpu, Selectors: gpuClassSelector},
			wantString: `all devices matching request "req-0" are allocated`,
		},
		{
			name: "fewer free devices than the count are not enough", cluster: h100, occupancy: 0.5,
			claims:     []*resourceapi.ResourceClaim{inventorygen.ExactClaim("c", gpu, 5)},
			want:       allocator.Explanation{Kind: allocator.NotEnoughFree, Request: req, Class: gpu, Selectors: gpuClassSelector},
			wantString: `not enough free devices for request "req-0" (class gpu.nvidia.com)`,
		},
		{
			name: "a matchAttribute that no free combination meets is unsatisfiable", cluster: h100,
			claims:     []*resourceapi.ResourceClaim{inventorygen.GPUsOnSamePCIeRootClaim("topo", 3)},
			want:       allocator.Explanation{Kind: allocator.ConstraintUnsatisfiable, Constraint: "matchAttribute resource.kubernetes.io/pcieRoot"},
			wantString: "matchAttribute resource.kubernetes.io/pcieRoot unsatisfiable",
		},
		{
			name: "a distinctAttribute that no free combination meets is unsatisfiable", cluster: h100,
			claims:     []*resourceapi.ResourceClaim{distinctProduct},
			want:       allocator.Explanation{Kind: allocator.ConstraintUnsatisfiable, Constraint: "distinctAttribute gpu.nvidia.com/productName"},
			wantString: "distinctAttribute gpu.nvidia.com/productName unsatisfiable",
		},
		{
			name: "a firstAvailable request reports its later alternative when that came closest", cluster: a100, occupancy: 0.875,
			claims:     []*resourceapi.ResourceClaim{inventorygen.PreferH100ElseTwoA100Claim("fa")},
			want:       allocator.Explanation{Kind: allocator.NotEnoughFree, Request: req, Class: gpu, Selectors: []string{a100Only}},
			wantString: `not enough free devices for request "req-0" (class gpu.nvidia.com)`,
		},
		{
			name: "a firstAvailable request reports its earlier alternative when that came closest", cluster: a100, occupancy: 0.875,
			claims:     []*resourceapi.ResourceClaim{a100FirstThenH100},
			want:       allocator.Explanation{Kind: allocator.NotEnoughFree, Request: req, Class: gpu, Selectors: []string{a100Only}},
			wantString: `not enough free devices for request "req-0" (class gpu.nvidia.com)`,
		},
		{
			name: "a firstAvailable request whose alternatives are all allocated or absent reports the allocated one", cluster: a100, occupancy: 1,
			claims:     []*resourceapi.ResourceClaim{inventorygen.PreferH100ElseTwoA100Claim("fa")},
			want:       allocator.Explanation{Kind: allocator.AllMatchingAllocated, Request: req, Class: gpu, Selectors: []string{a100Only}},
			wantString: `all devices matching request "req-0" are allocated`,
		},
		{
			name: "a request for more devices than match on the node is too big for it, not short of free devices", cluster: h100, occupancy: 0.5,
			claims:     []*resourceapi.ResourceClaim{inventorygen.ExactClaim("plain", gpu, inventorygen.NvidiaGPUsPerNode+1)},
			want:       allocator.Explanation{Kind: allocator.TooFewMatching, Request: req, Class: gpu, Selectors: gpuClassSelector, Need: inventorygen.NvidiaGPUsPerNode + 1},
			wantString: `request "req-0" needs 9 matching devices, more than the node has, allocated or free (class gpu.nvidia.com)`,
		},
		{
			name: "so is one whose every matching device is allocated", cluster: h100, occupancy: 1,
			claims:     []*resourceapi.ResourceClaim{inventorygen.ExactClaim("plain", gpu, inventorygen.NvidiaGPUsPerNode+1)},
			want:       allocator.Explanation{Kind: allocator.TooFewMatching, Request: req, Class: gpu, Selectors: gpuClassSelector, Need: inventorygen.NvidiaGPUsPerNode + 1},
			wantString: `request "req-0" needs 9 matching devices, more than the node has, allocated or free (class gpu.nvidia.com)`,
		},
		{
			name: "and an admin-access one, which may share allocated devices", cluster: h100, occupancy: 1,
			claims:     []*resourceapi.ResourceClaim{withAdminAccess(inventorygen.ExactClaim("admin", gpu, inventorygen.NvidiaGPUsPerNode+1))},
			want:       allocator.Explanation{Kind: allocator.TooFewMatching, Request: req, Class: gpu, Selectors: gpuClassSelector, Need: inventorygen.NvidiaGPUsPerNode + 1},
			wantString: `request "req-0" needs 9 matching devices, more than the node has, allocated or free (class gpu.nvidia.com)`,
		},
		{
			name: "claims that fit one by one but not together cannot be allocated", cluster: h100,
			claims: []*resourceapi.ResourceClaim{
				inventorygen.ExactClaim("a", gpu, 5), inventorygen.ExactClaim("b", gpu, 4),
			},
			want:       allocator.Explanation{Kind: allocator.CannotAllocate},
			wantString: "cannot allocate all claims",
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

// TestExplainBlamesOnlyAConstraintThatFails: when every request has
// enough free devices, Explain names a constraint as unsatisfiable. That
// constraint must be one that actually fails on the node.
func TestExplainBlamesOnlyAConstraintThatFails(t *testing.T) {
	h100, gpu := inventorygen.NvidiaH100(2), inventorygen.ClassNvidiaGPU
	sameProductThenSameRoot := inventorygen.ExactClaim("topo", gpu, 3)
	sameProductThenSameRoot.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{
		{MatchAttribute: ptr.To[resourceapi.FullyQualifiedName]("gpu.nvidia.com/productName")},
		{MatchAttribute: ptr.To(inventorygen.PCIeRootAttribute)},
	}
	for _, tc := range []explainCase{
		{
			name: "of two constraints the unsatisfiable one is named, not the first", cluster: h100,
			claims:     []*resourceapi.ResourceClaim{sameProductThenSameRoot},
			want:       allocator.Explanation{Kind: allocator.ConstraintUnsatisfiable, Constraint: "matchAttribute resource.kubernetes.io/pcieRoot"},
			wantString: "matchAttribute resource.kubernetes.io/pcieRoot unsatisfiable",
		},
		{
			name: "claims competing for GPUs are not blamed on a constraint that free GPUs meet", cluster: h100,
			claims: []*resourceapi.ResourceClaim{
				inventorygen.GPUsOnSamePCIeRootClaim("pair", 2), inventorygen.ExactClaim("rest", gpu, 7),
			},
			want:       allocator.Explanation{Kind: allocator.CannotAllocate},
			wantString: "cannot allocate all claims",
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

// TestAFindingReadOffTheCountsIsTheSearchsFinding: where Allocate kept
// the counts it answered from and every match is plain, ExplainBefore
// reads its finding off them; that finding must be the one explain's
// selections and counts give, for random occupancy and claims of several
// requests, some of which match nothing or more devices than a node has.
func TestAFindingReadOffTheCountsIsTheSearchsFinding(t *testing.T) {
	cluster := inventorygen.NvidiaH100(3).Merge(inventorygen.NvidiaA100(3))
	devices := cluster.Devices()
	class := cluster.Classes[0].Name
	selectors := [][]string{nil, nil, {inventorygen.ProductSelector("NVIDIA H100 80GB HBM3")}, {`device.attributes["resource.kubernetes.io"].pciBusID.endsWith("0")`}, {"false"}}
	kinds := map[allocator.ExplanationKind]int{}
	fromCounts := 0
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 3))
		var held inventorygen.Allocated
		for _, d := range devices {
			if rng.Float64() < 0.8 {
				held.Devices = append(held.Devices, d)
			}
		}
		var claims []*resourceapi.ResourceClaim
		for c := range 1 + rng.IntN(2) {
			var requests []resourceapi.DeviceRequest
			for r := range 1 + rng.IntN(3) {
				requests = append(requests, inventorygen.ExactRequest(fmt.Sprintf("r%d", r), class, int64(1+rng.IntN(9)), selectors[rng.IntN(len(selectors))]...))
			}
			claims = append(claims, inventorygen.NewClaim(fmt.Sprintf("claim-%d", c), requests...))
		}
		a := newTestAllocator(held.State(), cluster.ClassLister(), cluster.Slices)
		for _, node := range cluster.Nodes {
			res, err := a.Allocate(t.Context(), node, claims)
			if err != nil {
				t.Fatalf("seed %d, node %s: %v", seed, node.Name, err)
			}
			if res != nil {
				continue
			}
			counted, ok, searched := a.ExplainBothWays(t.Context(), node, claims)
			if !ok {
				continue
			}
			fromCounts++
			kinds[counted.Kind]++
			if !reflect.DeepEqual(counted, searched) {
				t.Errorf("seed %d, node %s: read off the counts\n%#v\nfound by search\n%#v", seed, node.Name, counted, searched)
			}
		}
	}
	t.Logf("%d findings read off the counts, by kind: %v", fromCounts, kinds)
	if fromCounts == 0 || len(kinds) < 4 {
		t.Errorf("%d findings read off the counts, of kinds %v: the test checks too little", fromCounts, kinds)
	}
}
