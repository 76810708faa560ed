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

package celmatch

import (
	"context"
	"testing"

	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// BenchmarkSelectors compares upstream's DeviceMatches, which builds the CEL
// input on every call, with Matches on an Activation built once. Both use the
// same compiled program; the device is gpuDevice (10 attributes, 4
// capacities).
func BenchmarkSelectors(b *testing.B) {
	ctx := context.Background()
	device := gpuDevice()
	input := dracel.Device{
		Driver:                   driverName,
		AllowMultipleAllocations: device.AllowMultipleAllocations,
		Attributes:               device.Attributes,
		Capacity:                 device.Capacity,
	}
	activation := NewActivation(driverName, device)

	for _, bc := range []struct{ name, expression string }{
		{"driver-equality", `device.driver == "dra.example.com"`},
		{"capacity-compareTo", `device.capacity["dra.example.com"].memory.compareTo(quantity("40Gi")) >= 0`},
		{"semver-compareTo", `device.attributes["dra.example.com"].driverVersion.compareTo(semver("1.2.0")) >= 0`},
	} {
		result := testCache.GetOrCompile(bc.expression)
		selector := mustCompile(b, bc.expression)
		if match, _, err := result.DeviceMatches(ctx, input); err != nil || !match {
			b.Fatalf("upstream: %v %v", match, err)
		}
		if match, err := selector.Matches(ctx, activation); err != nil || !match {
			b.Fatalf("celmatch: %v %v", match, err)
		}

		b.Run(bc.name+"/upstream-DeviceMatches", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := result.DeviceMatches(ctx, input); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/celmatch-Matches", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := selector.Matches(ctx, activation); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewActivation is the one-time cost per device version.
func BenchmarkNewActivation(b *testing.B) {
	device := gpuDevice()
	b.ReportAllocs()
	for b.Loop() {
		NewActivation(driverName, device)
	}
}
