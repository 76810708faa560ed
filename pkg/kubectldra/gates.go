package kubectldra

import (
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	// Registers Kubernetes' feature gates with their 1.37 defaults.
	_ "k8s.io/kubernetes/pkg/features"
)

// newFeatureGate returns a copy of Kubernetes' feature gates with their
// defaults, for one command's --feature-gates.
func newFeatureGate() featuregate.MutableFeatureGate {
	return utilfeature.DefaultMutableFeatureGate.DeepCopy()
}
