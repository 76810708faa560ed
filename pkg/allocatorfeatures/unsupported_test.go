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

func TestTheSchedulerRefusesFeatureGatesDRAAllocatorDoesNotImplement(t *testing.T) {
	t.Run("Kubernetes 1.37's default gates are accepted", func(t *testing.T) {
		if err := CheckSupported(feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)); err != nil {
			t.Errorf("CheckSupported(defaults) = %v, want nil", err)
		}
	})
	for _, gate := range []featuregate.Feature{features.DRAOptionalNodeOperations, features.DRAListTypeAttributes, features.DRADerivedAttributes, features.DRADeviceCompatibilityGroups, features.GenericWorkload, features.DRAWorkloadResourceClaims} {
		t.Run(string(gate)+" on is accepted: DRAAllocator implements it", func(t *testing.T) {
			// DRAWorkloadResourceClaims needs GenericWorkload.
			featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{gate: true, features.GenericWorkload: true})
			if err := CheckSupported(feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)); err != nil {
				t.Errorf("CheckSupported = %v, want nil", err)
			}
		})
	}
	for _, g := range unsupportedGates() {
		t.Run(string(g.gate)+" on is refused, naming it, what is missing and how to turn it off", func(t *testing.T) {
			featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
				g.gate: true,
				// DRAWorkloadResourceClaims needs GenericWorkload.
				features.GenericWorkload: true,
			})
			fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
			if !g.on(fts) {
				t.Fatalf("the scheduler's features do not show %s on", g.gate)
			}
			err := CheckSupported(fts)
			if err == nil {
				t.Fatalf("CheckSupported accepted %s", g.gate)
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
			features.DRANodeAllocatableResources: true,
			features.DRAConsumableCapacity:       true,
		})
		gates := append(unsupportedGates(), unsupportedGate{features.DRAConsumableCapacity, func(f feature.Features) bool { return f.EnableDRAConsumableCapacity }, "a second gate"})
		err := checkSupported(feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate), gates)
		want := "--feature-gates=DRANodeAllocatableResources=false,DRAConsumableCapacity=false "
		if err == nil || !strings.Contains(err.Error(), "DRANodeAllocatableResources, DRAConsumableCapacity are on") || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want both gates named and %q", err, want)
		}
	})
}

func TestUnsupportedNamesEveryRefusedGate(t *testing.T) {
	got := Unsupported()
	gates := unsupportedGates()
	if len(got) != len(gates) {
		t.Errorf("%d gates, want %d", len(got), len(gates))
	}
	for _, g := range gates {
		if got[string(g.gate)] != g.missing {
			t.Errorf("%s: %q, want %q", g.gate, got[string(g.gate)], g.missing)
		}
		if _, known := utilfeature.DefaultMutableFeatureGate.GetAll()[featuregate.Feature(g.gate)]; !known {
			t.Errorf("%s is not a feature gate of this Kubernetes", g.gate)
		}
	}
}
