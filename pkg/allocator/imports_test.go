package allocator_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAllocatorImportsNoSchedulerPackage holds pkg/allocator to standing
// alone: nothing it links, directly or not, is part of kube-scheduler, so
// the plugin adapts the allocator to the framework and tools use it
// without the scheduler.
func TestAllocatorImportsNoSchedulerPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed only %d packages: %q", len(deps), deps)
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "k8s.io/kubernetes/pkg/scheduler") || strings.HasPrefix(dep, "k8s.io/kube-scheduler") ||
			strings.HasPrefix(dep, "github.com/dra-scheduler/dra-scheduler/pkg/plugins") {
			t.Errorf("pkg/allocator depends on %s", dep)
		}
	}
}
