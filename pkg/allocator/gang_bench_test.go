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
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// BenchmarkPlanGangMIG is the joint check of a gang on its node in the
// h100-mig shape of dra-bench's gang workload: claims that each prefer a
// whole H100 and fall back to a 3g.40gb MIG half, on a node of 4 H100s in
// dynamic MIG mode, where 8 of them fit only as halves. It runs ours (the
// claims are twins, twins.go), ours on claims that differ only in opaque
// config (no twins: the search upstream's order makes), and upstream's
// allocator on the same input, and reports search steps.
func BenchmarkPlanGangMIG(b *testing.B) {
	features := structured.Features{PartitionableDevices: true, PrioritizedList: true}
	cluster := inventorygen.DynamicMIG(1, 4)
	node := cluster.Nodes[0]
	for _, tc := range []struct{ n, count int }{{4, 1}, {6, 1}, {8, 1}, {9, 1}, {4, 2}, {5, 2}} {
		n := tc.n
		var claims, strangers []*resourceapi.ResourceClaim
		for i := range n {
			claims = append(claims, inventorygen.WholeElseMIGClaim(fmt.Sprintf("pod-%d", i), "3g.40gb", int64(tc.count)))
			stranger := inventorygen.WholeElseMIGClaim(fmt.Sprintf("pod-%d", i), "3g.40gb", int64(tc.count))
			stranger.Spec.Devices.Config = []resourceapi.DeviceClaimConfiguration{{DeviceConfiguration: resourceapi.DeviceConfiguration{
				Opaque: &resourceapi.OpaqueDeviceConfiguration{Driver: inventorygen.DriverNvidia, Parameters: runtime.RawExtension{Raw: fmt.Appendf(nil, `{"pod":%d}`, i)}},
			}}}
			strangers = append(strangers, stranger)
		}
		want := n*tc.count <= 8
		for _, impl := range []struct {
			name   string
			claims []*resourceapi.ResourceClaim
		}{{"ours", claims}, {"ours-without-twins", strangers}} {
			b.Run(fmt.Sprintf("claims=%dx%d/impl=%s", n, tc.count, impl.name), func(b *testing.B) {
				inv := inventory.New()
				for _, s := range cluster.Slices {
					inv.Set(s)
				}
				a := allocator.New(features, allocator.NewState(inv, naiveState(nil, nil)), cluster.ClassLister(), inv, allocator.NewMatcher(cel.NewCache(100, cel.Features{})), allocator.FirstFit)
				start := a.Steps()
				for b.Loop() {
					res, err := a.Allocate(context.Background(), node, impl.claims)
					if err != nil || (res != nil) != want {
						b.Fatalf("Allocate: %d results, %v; want fit %v", len(res), err, want)
					}
				}
				b.ReportMetric(float64(a.Steps()-start)/float64(b.N), "steps/op")
			})
		}
		b.Run(fmt.Sprintf("claims=%dx%d/impl=upstream", n, tc.count), func(b *testing.B) {
			a, err := structured.NewAllocator(context.Background(), features, naiveState(nil, nil), cluster.ClassLister(), cluster.Slices, cel.NewCache(100, cel.Features{}))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				res, err := a.Allocate(context.Background(), node, claims)
				if err != nil || (res != nil) != want {
					b.Fatalf("Allocate: %d results, %v; want fit %v", len(res), err, want)
				}
			}
		})
	}
}
