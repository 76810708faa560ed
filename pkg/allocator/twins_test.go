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
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestTwinClaimsGetTheDevicesTheyWouldGetAsStrangers runs random gangs'
// claims (of one device, two, or two requests) in one call twice: as twins (the same spec, as from one
// template), which the search bounds by each other's picks, and as
// strangers (each with opaque config of its own, which changes no device
// but makes the specs differ), which it searches unbounded. Under both
// policies the devices must be the same, on GPUs of whole, half and
// quarter partitions with some taken, whether the claims fit or not.
func TestTwinClaimsGetTheDevicesTheyWouldGetAsStrangers(t *testing.T) {
	ctx := context.Background()
	sizes := []string{"whole", "half", "quarter"}
	for _, policy := range allocator.Policies {
		t.Run(string(policy), func(t *testing.T) {
			fit, refused := 0, 0
			seeds := uint64(300)
			if raceEnabled {
				seeds = 60 // the strangers' unbounded searches are slow under -race
			}
			for seed := range seeds {
				rng := rand.New(rand.NewPCG(seed, 77))
				c := newPartitionedCluster(1, 1+rng.IntN(3))
				var taken []resourceapi.DeviceRequestAllocationResult
				for _, d := range c.devices {
					if rng.IntN(8) == 0 {
						taken = append(taken, d)
					}
				}
				taken = dropTakenTwice(taken)
				prefs := slices.Clone(sizes)
				rng.Shuffle(len(prefs), func(i, j int) { prefs[i], prefs[j] = prefs[j], prefs[i] })
				prefs = prefs[:1+rng.IntN(3)]
				n := 2 + rng.IntN(7)
				// Claims of one device, of two, or of two requests of one.
				count, requests := int64(1), 1
				switch rng.IntN(3) {
				case 1:
					count, n = 2, min(n, 4)
				case 2:
					requests, n = 2, min(n, 4)
				}
				claim := func(name string) *resourceapi.ResourceClaim {
					c := preferring(name, count, prefs...)
					if requests == 2 {
						second := *c.Spec.Devices.Requests[0].DeepCopy()
						second.Name = "gpu-2"
						c.Spec.Devices.Requests = append(c.Spec.Devices.Requests, second)
					}
					return c
				}
				var twins, strangers []*resourceapi.ResourceClaim
				for i := range n {
					name := fmt.Sprintf("pod-%d-gpu", i)
					twins = append(twins, claim(name))
					stranger := claim(name)
					stranger.Spec.Devices.Config = []resourceapi.DeviceClaimConfiguration{{DeviceConfiguration: resourceapi.DeviceConfiguration{
						Opaque: &resourceapi.OpaqueDeviceConfiguration{Driver: gangDriver, Parameters: runtime.RawExtension{Raw: fmt.Appendf(nil, `{"pod":%d}`, i)}},
					}}}
					strangers = append(strangers, stranger)
				}
				if slices.Contains(allocator.FindTwins(strangers), true) || slices.Index(allocator.FindTwins(twins), false) != 0 {
					t.Fatalf("seed %d: twins %v, strangers %v; want every claim after the first a twin, and no stranger", seed, allocator.FindTwins(twins), allocator.FindTwins(strangers))
				}
				asTwins, errTwins := c.allocatorWith(policy, taken...).Allocate(ctx, c.nodes[0], twins)
				asStrangers, errStrangers := c.allocatorWith(policy, taken...).Allocate(ctx, c.nodes[0], strangers)
				if errTwins != nil || errStrangers != nil {
					t.Fatalf("seed %d: errors %v, %v", seed, errTwins, errStrangers)
				}
				if got, want := devicesOf(asTwins), devicesOf(asStrangers); (asTwins == nil) != (asStrangers == nil) || !slices.Equal(got, want) {
					t.Fatalf("seed %d (%d claims of %d requests of %d preferring %v, %d devices taken): as twins %v, as strangers %v", seed, n, requests, count, prefs, len(taken), got, want)
				}
				if asTwins != nil {
					fit++
				} else {
					refused++
				}
			}
			t.Logf("%d gangs fit, %d do not", fit, refused)
			if int(seeds) >= 300 && (fit < 30 || refused < 30) {
				t.Errorf("%d fit, %d refused: the cases do not exercise both", fit, refused)
			}
		})
	}
}

// Twin claims: R0 firstAvailable [a0: 2 devices, a1: 1], R1: 31 devices.
// Under a0 R1 exceeds the 32-device limit, so errMaxSize aborts a0 as soon
// as R0 completes (upstream does the same). The predecessor completes R0
// under a0 with y0,y1 and never reaches f (a0's selector errors on f);
// it then takes a1 (z1) and y0,y1,r1..r29 for R1. The unbounded twin walks
// a0 again: y0,y1 are in use, so it reaches f -> CEL runtime error
// (upstream's outcome). Bounded as a twin it would start at a1 and succeed;
// such claims are no twins (countedClaim), and both calls give upstream's
// error. Found in review.
func TestAClaimThatCanExceedTheResultLimitIsNoTwin(t *testing.T) {
	const drv = "gpu.example.com"
	node := objects.MakeNode("node-a").Obj()
	s := objects.MakeSlice("node-a-devs", drv, "node-a")
	dev := func(name, kind string, withN bool) {
		s.Device(name, nil).Attribute("kind", kind)
		if withN {
			s.Attribute("n", "0")
		}
	}
	dev("y0", "y", true)
	dev("y1", "y", true)
	dev("f", "f", false)
	for i := 1; i <= 60; i++ {
		dev(fmt.Sprintf("r%02d", i), "r", true)
	}
	dev("z1", "z", true)
	dev("z2", "z", true)
	sel := func(e string) []resourceapi.DeviceSelector {
		return []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: e}}}
	}
	spec := func() resourceapi.ResourceClaimSpec {
		return resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{
			{Name: "r0", FirstAvailable: []resourceapi.DeviceSubRequest{
				{Name: "a0", DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 2,
					Selectors: sel(`device.attributes["gpu.example.com"].kind == "y" || device.attributes["gpu.example.com"].n == "1"`)},
				{Name: "a1", DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1,
					Selectors: sel(`device.attributes["gpu.example.com"].kind == "z"`)},
			}},
			{Name: "r1", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 31,
				Selectors: sel(`device.attributes["gpu.example.com"].kind in ["r", "y"]`)}},
		}}}
	}
	tc := diffCase{
		features: defaultFeatures,
		classes:  inventorygen.NewClassLister(objects.DeviceClass("gpu", drv)),
		slices:   []*resourceapi.ResourceSlice{s.Obj()},
		claims:   []*resourceapi.ResourceClaim{objects.Claim("c1", "ns", spec()), objects.Claim("c2", "ns", spec())},
		nodes:    []*v1.Node{node},
	}
	if twins := allocator.FindTwins(tc.claims); slices.Contains(twins, true) {
		t.Errorf("claims that can take 33 devices are twins: %v", twins)
	}
	for _, d := range compare(t.Context(), tc) {
		t.Error(d)
	}
}
