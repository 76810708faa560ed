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
