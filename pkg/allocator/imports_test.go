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
	"strings"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/test/golist"
)

// TestAllocatorImportsNoSchedulerPackage holds pkg/allocator to standing
// alone: nothing it links, directly or not, is part of kube-scheduler, so
// the plugin adapts the allocator to the framework and tools use it
// without the scheduler.
func TestAllocatorImportsNoSchedulerPackage(t *testing.T) {
	for _, dep := range golist.Deps(t) {
		if strings.HasPrefix(dep, "k8s.io/kubernetes/pkg/scheduler") || strings.HasPrefix(dep, "k8s.io/kube-scheduler") ||
			strings.HasPrefix(dep, "github.com/dra-scheduler/dra-scheduler/pkg/plugins") {
			t.Errorf("pkg/allocator depends on %s", dep)
		}
	}
}
