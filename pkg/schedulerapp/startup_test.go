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

package schedulerapp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/features"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
)

// profileConfig is a configuration whose one profile enables DRAAllocator
// in place of DynamicResources and disables the plugins listed, with a
// kubeconfig for a server nobody listens on: setting up the scheduler
// builds its profiles without a call to the server.
func profileConfig(t *testing.T, disabled ...string) string {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
`), 0o600); err != nil {
		t.Fatal(err)
	}
	off := "[{name: DynamicResources}"
	for _, name := range disabled {
		off += ", {name: " + name + "}"
	}
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: `+kubeconfig+`}
leaderElection: {leaderElect: false}
profiles:
- schedulerName: dra-scheduler
  plugins:
    multiPoint:
      enabled: [{name: DRAAllocator}]
      disabled: `+off+`]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return config
}

func TestAProfileWithTwoPlacementGeneratorsFailsToStartNamingTheFix(t *testing.T) {
	for _, tc := range []struct {
		name     string
		topology bool
		disabled []string
		// wantErr is empty when the scheduler must start.
		wantErr []string
	}{
		{name: "topology-aware scheduling on, upstream's generator left on: the error says which to disable", topology: true,
			wantErr: []string{"at most one placement generate plugin is allowed", "plugins.multiPoint.disabled: [{name: TopologyPlacementGenerator}]"}},
		{name: "topology-aware scheduling on, upstream's generator disabled: it starts", topology: true, disabled: []string{"TopologyPlacementGenerator"}},
		{name: "topology-aware scheduling off: there is no upstream generator, it starts"},
		{name: "topology-aware scheduling off, the shipped disable entry is harmless: it starts", disabled: []string{"TopologyPlacementGenerator"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
				features.GenericWorkload:                 tc.topology,
				features.TopologyAwareWorkloadScheduling: tc.topology,
			})
			_, ctx := ktesting.NewTestContext(t)
			running, err := Start(ctx, []string{"--config=" + profileConfig(t, tc.disabled...), "--secure-port=0"}, draallocator.Options{})
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("start: %v", err)
				}
				running.Stop()
				return
			}
			if err == nil {
				running.Stop()
				t.Fatal("the scheduler started with two placement generators")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}
