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

package simulate_test

import (
	"strings"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/test/golist"
)

// TestSimulateImportsWhatTheAllocatorDoes holds pkg/simulate to what an
// embedding caller (Kueue, an autoscaler, a scheduler library) can take:
// nothing of k8s.io/kubernetes or kube-scheduler, none of the plugin, and
// none of the tools' packages that read clusters or gates for kubectl.
func TestSimulateImportsWhatTheAllocatorDoes(t *testing.T) {
	const ours = "github.com/dra-scheduler/dra-scheduler/pkg/"
	for _, dep := range golist.Deps(t) {
		if strings.HasPrefix(dep, "k8s.io/kubernetes/") || strings.HasPrefix(dep, "k8s.io/kube-scheduler") ||
			strings.HasPrefix(dep, ours+"plugins") || dep == ours+"allocatorfeatures" || dep == ours+"clusterstate" ||
			dep == ours+"explain" || dep == ours+"kubectldra" {
			t.Errorf("pkg/simulate depends on %s", dep)
		}
	}
}
