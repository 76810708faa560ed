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
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/gangoracle"
)

const (
	gangDriver    = "gpu.example.com"
	gangClassName = "gpu"
)

// Partitions of a GPU of 4 slices, and the slices each takes.
var partitionSlices = map[string]int{"whole": 4, "half": 2, "quarter": 1}

// partitionedCluster is nodes node-0..node-(n-1), each with gpus GPUs of 4
// slices announced as one whole, two halves and four quarters (each
// device has the attributes size and gpu), as a counters slice and a
// devices slice per node's pool. sizes limits the partitions announced
// (nil: all three).
type partitionedCluster struct {
	nodes []*v1.Node
	inv   *inventory.Inventory
	// devices lists every device as driver/pool/device, for taking some.
	devices []resourceapi.DeviceRequestAllocationResult
}

func newPartitionedCluster(nodes, gpus int, sizes ...string) *partitionedCluster {
	if len(sizes) == 0 {
		sizes = []string{"whole", "half", "quarter"}
	}
	c := &partitionedCluster{inv: inventory.New()}
	for n := range nodes {
		name := fmt.Sprintf("node-%d", n)
		c.nodes = append(c.nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}}})
		pool := resourceapi.ResourcePool{Name: name, ResourceSliceCount: 2}
		counters := &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-counters"},
			Spec:       resourceapi.ResourceSliceSpec{Driver: gangDriver, Pool: pool, NodeName: ptr.To(name)},
		}
		devices := &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-devices"},
			Spec:       resourceapi.ResourceSliceSpec{Driver: gangDriver, Pool: pool, NodeName: ptr.To(name)},
		}
		for g := range gpus {
			set := fmt.Sprintf("gpu-%d", g)
			counters.Spec.SharedCounters = append(counters.Spec.SharedCounters, resourceapi.CounterSet{
				Name: set, Counters: map[string]resourceapi.Counter{"slices": {Value: resource.MustParse("4")}},
			})
			for _, size := range sizes {
				for k := range 4 / partitionSlices[size] {
					d := resourceapi.Device{
						Name: fmt.Sprintf("gpu-%d-%s-%d", g, size, k),
						Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
							"size": {StringValue: ptr.To(size)},
							"gpu":  {IntValue: ptr.To(int64(g))},
						},
						ConsumesCounters: []resourceapi.DeviceCounterConsumption{{
							CounterSet: set,
							Counters:   map[string]resourceapi.Counter{"slices": {Value: *resource.NewQuantity(int64(partitionSlices[size]), resource.DecimalSI)}},
						}},
					}
					devices.Spec.Devices = append(devices.Spec.Devices, d)
					c.devices = append(c.devices, resourceapi.DeviceRequestAllocationResult{Request: "r", Driver: gangDriver, Pool: name, Device: d.Name})
				}
			}
		}
		c.inv.Set(counters)
		c.inv.Set(devices)
	}
	return c
}

// allocator returns a FirstFit allocator over the cluster with the
// devices of taken allocated.
func (c *partitionedCluster) allocator(taken ...resourceapi.DeviceRequestAllocationResult) *allocator.Allocator {
	return c.allocatorWith(allocator.FirstFit, taken...)
}

// allocatorWith is allocator with the given policy.
func (c *partitionedCluster) allocatorWith(policy allocator.Policy, taken ...resourceapi.DeviceRequestAllocationResult) *allocator.Allocator {
	held := map[types.UID]*resourceapi.AllocationResult{}
	for i, d := range taken {
		held[types.UID(fmt.Sprint(i))] = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{d}}}
	}
	features := structured.Features{PartitionableDevices: true, PrioritizedList: true}
	classes := inventorygen.NewClassLister(&resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: gangClassName},
		Spec:       resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", gangDriver)}}}},
	})
	state := allocator.NewState(c.inv, naiveState(held, nil))
	return allocator.New(features, state, classes, c.inv, allocator.NewMatcher(cel.NewCache(100, cel.Features{})), policy)
}

func sizeSelector(size string) []resourceapi.DeviceSelector {
	return []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: fmt.Sprintf("device.attributes[%q].size == %q", gangDriver, size)}}}
}

// preferring is a claim of one request for count devices of the first
// size that fits, in the order given (firstAvailable).
func preferring(name string, count int64, sizes ...string) *resourceapi.ResourceClaim {
	req := resourceapi.DeviceRequest{Name: "gpu"}
	for _, size := range sizes {
		req.FirstAvailable = append(req.FirstAvailable, resourceapi.DeviceSubRequest{
			Name: size, DeviceClassName: gangClassName, Selectors: sizeSelector(size),
			AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count,
		})
	}
	return gangClaim(name, req)
}

// sameGPU is a claim of count devices of one size on the same GPU
// (matchAttribute gpu).
func sameGPU(name string, count int64, size string) *resourceapi.ResourceClaim {
	claim := gangClaim(name, resourceapi.DeviceRequest{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: gangClassName, Selectors: sizeSelector(size), AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count,
	}})
	claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: ptr.To(resourceapi.FullyQualifiedName(gangDriver + "/gpu"))}}
	return claim
}

func gangClaim(name string, req resourceapi.DeviceRequest) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "gang", UID: types.UID("uid-" + name)},
		Spec:       resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{req}}},
	}
}

// gang is members pod-0..pod-(n-1) of one class, each with the claim
// that claim makes for its name, able to go to every node.
func gang(n int, nodes []*v1.Node, claim func(name string) *resourceapi.ResourceClaim) []allocator.GangMember {
	var out []allocator.GangMember
	for i := range n {
		name := fmt.Sprintf("pod-%d", i)
		out = append(out, allocator.GangMember{Name: name, Claims: []*resourceapi.ResourceClaim{claim(name + "-gpu")}, Class: "pod", Nodes: nodes})
	}
	return out
}

// TestAGangOfTwoSharesAGPUAsHalvesThatEachWouldTakeWhole is
// kubernetes/kubernetes#138765: one GPU is one whole device or two halves;
// two pods prefer whole and accept half. Pod by pod, the first takes the
// whole GPU and the second finds nothing; planned jointly, both fit, and a
// joint allocation with the first pod's claim first gives each a half.
func TestAGangOfTwoSharesAGPUAsHalvesThatEachWouldTakeWhole(t *testing.T) {
	ctx := context.Background()
	c := newPartitionedCluster(1, 1, "whole", "half")
	a := c.allocator()
	members := gang(2, c.nodes, func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "whole", "half") })
	node := c.nodes[0]

	first, err := a.Allocate(ctx, node, members[0].Claims)
	if err != nil || first == nil || first[0].Devices.Results[0].Device != "gpu-0-whole-0" {
		t.Fatalf("the first pod alone gets %v (err %v), want the whole GPU: the shape of #138765", first, err)
	}

	plan, err := a.PlanGang(ctx, members, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Complete || plan.Nodes["pod-0"] != "node-0" || plan.Nodes["pod-1"] != "node-0" {
		t.Fatalf("plan %+v, want both pods on node-0", plan)
	}
	joint, err := a.Allocate(ctx, node, append(slices.Clone(members[0].Claims), members[1].Claims...))
	if err != nil || joint == nil {
		t.Fatalf("joint allocation: %v, %v", joint, err)
	}
	for i, r := range joint {
		if got := r.Devices.Results[0].Device; !strings.Contains(got, "-half-") {
			t.Errorf("pod-%d gets %s jointly, want a half", i, got)
		}
	}
}

// TestPlanGangPlacesGangsWhoseDevicesFitOnlyJointly: shapes where a pod-by-
// pod first choice strands a sibling, and gangs that cannot fit at all.
func TestPlanGangPlacesGangsWhoseDevicesFitOnlyJointly(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name         string
		nodes, gpus  int
		sizes        []string
		taken        []string // devices taken on node-0
		members      func(nodes []*v1.Node) []allocator.GangMember
		wantComplete bool
		// wantPlaced is how many members a plan that is not complete places.
		wantPlaced int
	}{
		{
			name:  "four pods preferring whole then half fit two GPUs as halves",
			nodes: 1, gpus: 2, sizes: []string{"whole", "half"},
			members: func(n []*v1.Node) []allocator.GangMember {
				return gang(4, n, func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "whole", "half") })
			},
			wantComplete: true,
		},
		{
			name:  "eight pods preferring whole, then half, then quarter fit two GPUs as quarters",
			nodes: 1, gpus: 2,
			members: func(n []*v1.Node) []allocator.GangMember {
				return gang(8, n, func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "whole", "half", "quarter") })
			},
			wantComplete: true,
		},
		{
			name:  "a pod of two quarters on one GPU and two pods preferring half fit one GPU",
			nodes: 1, gpus: 1,
			members: func(n []*v1.Node) []allocator.GangMember {
				return append(
					gang(2, n, func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "half", "quarter") }),
					allocator.GangMember{Name: "pair", Class: "pair", Nodes: n, Claims: []*resourceapi.ResourceClaim{sameGPU("pair-gpu", 2, "quarter")}})
			},
			wantComplete: true,
		},
		{
			name:  "pods spread over nodes when one node cannot hold them all",
			nodes: 3, gpus: 1, sizes: []string{"whole", "half"},
			members: func(n []*v1.Node) []allocator.GangMember {
				return gang(6, n, func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "whole", "half") })
			},
			wantComplete: true,
		},
		{
			name:  "a half already taken leaves room for one more pod, not two",
			nodes: 1, gpus: 1, sizes: []string{"whole", "half"}, taken: []string{"gpu-0-half-0"},
			members: func(n []*v1.Node) []allocator.GangMember {
				return gang(2, n, func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "whole", "half") })
			},
			wantComplete: false, wantPlaced: 1,
		},
		{
			name:  "a gang bigger than the cluster places what fits",
			nodes: 2, gpus: 1,
			members: func(n []*v1.Node) []allocator.GangMember {
				return gang(10, n, func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "half", "quarter") })
			},
			wantComplete: false, wantPlaced: 8,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newPartitionedCluster(tc.nodes, tc.gpus, tc.sizes...)
			var taken []resourceapi.DeviceRequestAllocationResult
			for _, d := range c.devices {
				if d.Pool == "node-0" && slices.Contains(tc.taken, d.Device) {
					taken = append(taken, d)
				}
			}
			a := c.allocator(taken...)
			members := tc.members(c.nodes)
			plan, err := a.PlanGang(ctx, members, 0)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Complete != tc.wantComplete {
				t.Fatalf("complete %v, want %v (plan %+v)", plan.Complete, tc.wantComplete, plan)
			}
			want := len(members)
			if !tc.wantComplete {
				want = tc.wantPlaced
			}
			if len(plan.Nodes) != want {
				t.Errorf("%d members placed, want %d (plan %+v)", len(plan.Nodes), want, plan)
			}
			checkPlanFits(t, a, members, c.nodes, plan)
		})
	}
}

// checkPlanFits checks that, on every node, the claims of the members the
// plan puts there allocate together.
func checkPlanFits(t *testing.T, a *allocator.Allocator, members []allocator.GangMember, nodes []*v1.Node, plan allocator.GangPlan) {
	t.Helper()
	for _, node := range nodes {
		var claims []*resourceapi.ResourceClaim
		for _, m := range members {
			if plan.Nodes[m.Name] == node.Name {
				claims = append(claims, m.Claims...)
			}
		}
		if fits, err := a.Fits(context.Background(), node, claims); err != nil || !fits {
			t.Errorf("the members planned on %s do not fit together (%v)", node.Name, err)
		}
	}
}

// TestPlanGangAgreesWithABruteForceSearch: for thousands of random small
// gangs (2–8 pods of up to three kinds, firstAvailable of sizes, pairs of
// quarters on one GPU) on 1–4 nodes with some devices taken, PlanGang finds
// a complete plan exactly when some assignment of pods to nodes has every
// node's pods fit together, searched without classes or symmetry.
func TestPlanGangAgreesWithABruteForceSearch(t *testing.T) {
	ctx := context.Background()
	kinds := []func(name string) *resourceapi.ResourceClaim{
		func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "whole", "half") },
		func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "whole", "half", "quarter") },
		func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "half", "quarter") },
		func(name string) *resourceapi.ResourceClaim { return preferring(name, 2, "half", "quarter") },
		func(name string) *resourceapi.ResourceClaim { return sameGPU(name, 2, "quarter") },
		func(name string) *resourceapi.ResourceClaim { return preferring(name, 1, "whole") },
	}
	runs := 2000
	if testing.Short() || raceEnabled {
		// make test runs them all; under the race detector, which slows
		// the allocator tenfold, a sample.
		runs = 200
	}
	var complete, incomplete int
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 138765))
		c := newPartitionedCluster(1+rng.IntN(4), 1+rng.IntN(2))
		var taken []resourceapi.DeviceRequestAllocationResult
		for range rng.IntN(3) {
			taken = append(taken, c.devices[rng.IntN(len(c.devices))])
		}
		a := c.allocator(dropTakenTwice(taken)...)
		var members []allocator.GangMember
		used := rng.Perm(len(kinds))[:1+rng.IntN(3)]
		for i := range 2 + rng.IntN(7) {
			k := used[rng.IntN(len(used))]
			name := fmt.Sprintf("pod-%d", i)
			members = append(members, allocator.GangMember{Name: name, Class: fmt.Sprint("kind-", k), Nodes: c.nodes,
				Claims: []*resourceapi.ResourceClaim{kinds[k](name + "-gpu")}})
		}
		plan, err := a.PlanGang(ctx, members, 0)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		exists := bruteForceGang(t, a, members, c.nodes)
		if plan.Complete != exists {
			t.Fatalf("seed %d: PlanGang complete %v, brute force finds a joint assignment: %v (members %d, nodes %d, plan %+v)",
				seed, plan.Complete, exists, len(members), len(c.nodes), plan)
		}
		if plan.Complete {
			complete++
			checkPlanFits(t, a, members, c.nodes, plan)
		} else {
			incomplete++
		}
	}
	t.Logf("%d gangs: %d fit jointly, %d do not", runs, complete, incomplete)
	if complete == 0 || incomplete == 0 {
		t.Errorf("the random gangs are all of one outcome (%d fit, %d do not): the test proves nothing", complete, incomplete)
	}
}

// dropTakenTwice keeps the first of devices listed more than once.
func dropTakenTwice(devices []resourceapi.DeviceRequestAllocationResult) []resourceapi.DeviceRequestAllocationResult {
	var out []resourceapi.DeviceRequestAllocationResult
	for _, d := range devices {
		if !slices.ContainsFunc(out, func(o resourceapi.DeviceRequestAllocationResult) bool {
			return o.Device == d.Device && o.Pool == d.Pool
		}) {
			out = append(out, d)
		}
	}
	return out
}

// bruteForceGang asks the reference (gangoracle) whether the members can
// all be placed.
func bruteForceGang(t *testing.T, a *allocator.Allocator, members []allocator.GangMember, nodes []*v1.Node) bool {
	t.Helper()
	pods := make([][]*resourceapi.ResourceClaim, len(members))
	for i, m := range members {
		pods[i] = m.Claims
	}
	exists, err := gangoracle.AssignmentExists(context.Background(), a, nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	return exists
}

// BenchmarkPlanGang plans issue 32's bound: a gang of 64 pods of 8 GPUs
// on 500 nodes of 8 H100s, with the first half of the nodes' GPUs taken
// (one per node), so that the plan must skip 250 nodes; and the same gang
// on 60 free nodes, where it cannot fit. It reports the allocator calls
// per plan.
func BenchmarkPlanGang(b *testing.B) {
	for _, tc := range []struct {
		name      string
		nodes     int
		takeFirst int
		complete  bool
	}{
		{"64 pods x 8 GPUs on 500 nodes, 250 of them partly taken", 500, 250, true},
		{"64 pods x 8 GPUs on 60 nodes: does not fit", 60, 0, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cluster := inventorygen.NvidiaH100(tc.nodes)
			inv := inventory.New()
			for _, s := range cluster.Slices {
				inv.Set(s)
			}
			held := map[types.UID]*resourceapi.AllocationResult{}
			for n := range tc.takeFirst {
				s := cluster.SlicesForNode(cluster.Nodes[n].Name)[0]
				held[types.UID(fmt.Sprint(n))] = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
					{Request: "r", Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name, Device: s.Spec.Devices[0].Name},
				}}}
			}
			a := allocator.New(structured.Features{}, allocator.NewState(inv, naiveState(held, nil)), cluster.ClassLister(), inv, allocator.NewMatcher(cel.NewCache(100, cel.Features{})), allocator.FirstFit)
			var members []allocator.GangMember
			for i := range 64 {
				name := fmt.Sprintf("pod-%d", i)
				members = append(members, allocator.GangMember{Name: name, Class: "trainer", Nodes: cluster.Nodes,
					Claims: []*resourceapi.ResourceClaim{inventorygen.ExactClaim(name+"-gpus", inventorygen.ClassNvidiaGPU, 8)}})
			}
			var plan allocator.GangPlan
			for b.Loop() {
				var err error
				if plan, err = a.PlanGang(context.Background(), members, 0); err != nil {
					b.Fatal(err)
				}
			}
			if plan.Complete != tc.complete {
				b.Fatalf("complete %v, want %v", plan.Complete, tc.complete)
			}
			b.ReportMetric(float64(plan.Allocations), "allocations/plan")
		})
	}
}

// TestGangMembers: a claim two pods have is nobody's member claim, a pod
// left with none fits anywhere, and pods of the same claims and nodes are
// one class, of other nodes another.
func TestGangMembers(t *testing.T) {
	c := newPartitionedCluster(2, 1)
	shared := preferring("shared", 1, "whole")
	pods := []allocator.GangPod{
		{Name: "a", Claims: []*resourceapi.ResourceClaim{shared, preferring("a-gpu", 1, "half")}, Nodes: c.nodes},
		{Name: "b", Claims: []*resourceapi.ResourceClaim{preferring("b-gpu", 1, "half"), shared}, Nodes: c.nodes},
		{Name: "c", Claims: []*resourceapi.ResourceClaim{shared}, Nodes: c.nodes},
		{Name: "d", Claims: []*resourceapi.ResourceClaim{preferring("d-gpu", 1, "half")}, Nodes: c.nodes[:1]},
	}
	members, without := allocator.GangMembers(pods)
	if without != 1 {
		t.Errorf("%d pods without devices, want 1 (c, whose only claim is shared)", without)
	}
	var names []string
	for _, m := range members {
		names = append(names, m.Name)
		for _, cl := range m.Claims {
			if cl.Name == "shared" {
				t.Errorf("member %s plans the shared claim", m.Name)
			}
		}
	}
	if !slices.Equal(names, []string{"a", "b", "d"}) {
		t.Fatalf("members %v, want a, b, d in the order given", names)
	}
	if members[0].Class != members[1].Class {
		t.Errorf("a and b ask the same on the same nodes but are of different classes")
	}
	if members[0].Class == members[2].Class {
		t.Errorf("d may use one node only but is of a's class")
	}
}
