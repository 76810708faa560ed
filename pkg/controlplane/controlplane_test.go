package controlplane

import (
	"strings"
	"testing"

	kcmoptions "k8s.io/kubernetes/cmd/kube-controller-manager/app/options"
)

// TestDefaultResourceClaimWorkersIsKubeControllerManagers compares the
// default with the one kube-controller-manager's --concurrent-resourceclaim-syncs
// flag gets from its default component configuration in the Kubernetes
// version this module builds with.
func TestDefaultResourceClaimWorkersIsKubeControllerManagers(t *testing.T) {
	cfg, err := kcmoptions.NewDefaultComponentConfig()
	if err != nil {
		t.Fatalf("kube-controller-manager's default configuration: %v", err)
	}
	if got := int(cfg.ResourceClaimController.ConcurrentSyncs); got != DefaultResourceClaimWorkers {
		t.Errorf("kube-controller-manager's --concurrent-resourceclaim-syncs defaults to %d, DefaultResourceClaimWorkers is %d", got, DefaultResourceClaimWorkers)
	}
}

func TestResourceClaimWorkers(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want int
	}{
		{"the zero options run kube-controller-manager's default of 50 workers", Options{}, 50},
		{"ClaimWorkers sets the workers", Options{ClaimWorkers: 10}, 10},
		{"a single worker is allowed", Options{ClaimWorkers: 1}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.opts.ResourceClaimWorkers(); got != tc.want {
				t.Errorf("ResourceClaimWorkers() = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestStartRejectsNegativeClaimWorkersBeforeStartingAnything(t *testing.T) {
	dir := t.TempDir()
	cp, err := Start(t.Context(), Options{Dir: dir, ClaimWorkers: -1})
	if err == nil {
		cp.Stop()
		t.Fatal("Start accepted -1 resourceclaim controller workers")
	}
	if !strings.Contains(err.Error(), "resourceclaim controller workers -1") {
		t.Errorf("error %q does not name the workers", err)
	}
}
