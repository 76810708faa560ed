package draallocator

import (
	"context"
	"strings"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
)

func TestThePluginFactoryRefusesAFeatureGateDRAAllocatorDoesNotImplement(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.DRANodeAllocatableResources, true)
	_, err := NewFactory(Options{})(context.Background(), nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), Name+": the feature gates DRANodeAllocatableResources are on") {
		t.Errorf("NewFactory = %v, want the refusal naming DRANodeAllocatableResources, so that the scheduler does not start", err)
	}
}
