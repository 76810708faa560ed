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
	"fmt"
	"strings"

	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// unsupportedGate is a feature gate that changes what the in-tree
// DynamicResources plugin does in a way DRAAllocator does not implement
// yet: with it on, DRAAllocator would allocate differently without saying
// so, so the scheduler refuses to start instead, and kubectl-dra refuses
// to explain such a scheduler.
type unsupportedGate struct {
	gate featuregate.Feature
	on   func(feature.Features) bool
	// missing says what pods would not get.
	missing string
}

// unsupportedGates lists them, in the order the refusal names them. None
// of Kubernetes 1.37's: DRAAllocator implements every DRA gate. The list
// is where a gate of a later release goes until it does.
func unsupportedGates() []unsupportedGate {
	return nil
}

// Unsupported returns the feature gates DRAAllocator refuses to start
// with, each with what it does not implement. Test harnesses use it to
// skip upstream workloads that turn one on.
func Unsupported() map[string]string {
	m := map[string]string{}
	for _, g := range unsupportedGates() {
		m[string(g.gate)] = g.missing
	}
	return m
}

// CheckSupported refuses gates DRAAllocator does not implement, naming
// each, what it lacks and how to start anyway.
func CheckSupported(fts feature.Features) error {
	return checkSupported(fts, unsupportedGates())
}

// checkSupported is CheckSupported over a list of gates.
func checkSupported(fts feature.Features, gates []unsupportedGate) error {
	var on, missing, off []string
	for _, g := range gates {
		if g.on(fts) {
			on = append(on, string(g.gate))
			missing = append(missing, string(g.gate)+": "+g.missing)
			off = append(off, string(g.gate)+"=false")
		}
	}
	if len(on) == 0 {
		return nil
	}
	return fmt.Errorf("the feature gates %s are on, but DRAAllocator does not implement them yet (%s), so it would allocate differently "+
		"from the in-tree DynamicResources plugin without saying so; start dra-scheduler with --feature-gates=%s "+
		"(the API server and kubelets may keep them on), or schedule the pods that need them with the in-tree plugin (manifests/overlays/in-tree)",
		strings.Join(on, ", "), strings.Join(missing, "; "), strings.Join(off, ","))
}
