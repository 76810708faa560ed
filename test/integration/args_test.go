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

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
)

// TestBadPluginArgsStopStartUp: DRAAllocator args that do not validate
// stop dra-scheduler before it schedules anything, with a message that
// names the field.
func TestBadPluginArgsStopStartUp(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	// Start-up fails before any connection: the server need not exist.
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: t}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, args, want string }{
		{"an unknown scoring strategy is named with the supported ones", `{scoringStrategy: {type: Spread}}`,
			`DRAAllocator args: scoringStrategy.type: Unsupported value: "Spread": supported values: "FirstAvailable", "LeastAllocated", "MostAllocated"`},
		{"a misspelled field is rejected", `{filterTimeOut: 5s}`, `unknown field "filterTimeOut"`},
		{"a negative timeout is rejected", `{filterTimeout: -1s}`, `filterTimeout`},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
      disabled: [{name: DynamicResources}]
  pluginConfig:
  - name: DRAAllocator
    args: `+tc.args+`
`), 0o600); err != nil {
				t.Fatal(err)
			}
			sched, err := schedulerapp.Start(t.Context(), []string{"--config=" + config, "--secure-port=0"}, draallocator.Options{})
			if err == nil {
				sched.Stop()
				t.Fatalf("dra-scheduler started with args %s", tc.args)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("start-up error %q does not contain %q", err, tc.want)
			}
		})
	}
}
