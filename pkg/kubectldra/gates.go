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
