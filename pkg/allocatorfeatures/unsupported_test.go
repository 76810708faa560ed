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

package allocatorfeatures

import (
	"strings"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// allDRAGates are Kubernetes 1.37's feature gates that change what the
// in-tree DynamicResources plugin does.
var allDRAGates = []featuregate.Feature{
	features.DRAOptionalNodeOperations, features.DRAListTypeAttributes, features.DRADerivedAttributes,
	features.DRADeviceCompatibilityGroups, features.GenericWorkload, features.DRAWorkloadResourceClaims,
	features.DRANodeAllocatableResources,
}

// fakeGates stand for gates DRAAllocator would not implement.
var fakeGates = []unsupportedGate{
	{features.DRAConsumableCapacity, func(f feature.Features) bool { return f.EnableDRAConsumableCapacity }, "a first missing feature"},
	{features.DRAPartitionableDevices, func(f feature.Features) bool { return f.EnableDRAPartitionableDevices }, "a second missing feature"},
}

func TestTheSchedulerAcceptsEveryDRAFeatureGateOfKubernetes137(t *testing.T) {
	t.Run("the default gates are accepted", func(t *testing.T) {
		if err := CheckSupported(feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)); err != nil {
			t.Errorf("CheckSupported(defaults) = %v, want nil", err)
		}
	})
	for _, gate := range allDRAGates {
		t.Run(string(gate)+" on is accepted: DRAAllocator implements it", func(t *testing.T) {
			// DRAWorkloadResourceClaims needs GenericWorkload.
			featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{gate: true, features.GenericWorkload: true})
			if err := CheckSupported(feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)); err != nil {
				t.Errorf("CheckSupported = %v, want nil", err)
			}
		})
	}
	t.Run("all of them on at once are accepted", func(t *testing.T) {
		overrides := featuregatetesting.FeatureOverrides{}
		for _, gate := range allDRAGates {
			overrides[gate] = true
		}
		featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, overrides)
		if err := CheckSupported(feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)); err != nil {
			t.Errorf("CheckSupported = %v, want nil", err)
		}
		if got := Unsupported(); len(got) != 0 {
			t.Errorf("Unsupported() = %v, want none", got)
		}
	})
}

func TestAGateDRAAllocatorDoesNotImplementIsRefused(t *testing.T) {
	for _, g := range fakeGates {
		t.Run(string(g.gate)+" on is refused, naming it, what is missing and how to turn it off", func(t *testing.T) {
			// Both fake gates are on by default in 1.37: only this one stays on.
			for _, other := range fakeGates {
				featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, other.gate, other.gate == g.gate)
			}
			fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
			if !g.on(fts) {
				t.Fatalf("the scheduler's features do not show %s on", g.gate)
			}
			err := checkSupported(fts, fakeGates)
			if err == nil {
				t.Fatalf("checkSupported accepted %s", g.gate)
			}
			for _, want := range []string{"feature gates " + string(g.gate) + " are on", g.missing, "--feature-gates=" + string(g.gate) + "=false", "manifests/overlays/in-tree"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
	t.Run("several gates are named in one message, with one flag to turn them all off", func(t *testing.T) {
		featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
			features.DRAConsumableCapacity:   true,
			features.DRAPartitionableDevices: true,
		})
		err := checkSupported(feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate), fakeGates)
		want := "--feature-gates=DRAConsumableCapacity=false,DRAPartitionableDevices=false "
		if err == nil || !strings.Contains(err.Error(), "DRAConsumableCapacity, DRAPartitionableDevices are on") || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want both gates named and %q", err, want)
		}
	})
	t.Run("a gate that is off is not named", func(t *testing.T) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.DRAConsumableCapacity, false)
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.DRAPartitionableDevices, false)
		if err := checkSupported(feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate), fakeGates); err != nil {
			t.Errorf("checkSupported = %v, want nil with both gates off", err)
		}
	})
}
