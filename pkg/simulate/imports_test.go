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
	"os/exec"
	"strings"
	"testing"
)

// TestSimulateImportsWhatTheAllocatorDoes holds pkg/simulate to what an
// embedding caller (Kueue, an autoscaler, a scheduler library) can take:
// nothing of k8s.io/kubernetes or kube-scheduler, none of the plugin, and
// none of the tools' packages that read clusters or gates for kubectl.
func TestSimulateImportsWhatTheAllocatorDoes(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed only %d packages: %q", len(deps), deps)
	}
	const ours = "github.com/dra-scheduler/dra-scheduler/pkg/"
	for _, dep := range deps {
		if strings.HasPrefix(dep, "k8s.io/kubernetes/") || strings.HasPrefix(dep, "k8s.io/kube-scheduler") ||
			strings.HasPrefix(dep, ours+"plugins") || dep == ours+"allocatorfeatures" || dep == ours+"clusterstate" ||
			dep == ours+"explain" || dep == ours+"kubectldra" {
			t.Errorf("pkg/simulate depends on %s", dep)
		}
	}
}
