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
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
)

// WriteSchedulerConfig writes a KubeSchedulerConfiguration (YAML or JSON)
// into the control plane's directory under name and returns its path. When
// the configuration names no clientConnection.kubeconfig, the admin
// kubeconfig is filled in, so a configuration meant for a real cluster (the
// shipped ConfigMap, say) runs here unchanged.
func (cp *ControlPlane) WriteSchedulerConfig(name string, config []byte) (string, error) {
	var obj map[string]any
	if err := yaml.Unmarshal(config, &obj); err != nil {
		return "", fmt.Errorf("parse scheduler configuration %s: %w", name, err)
	}
	if obj == nil {
		obj = map[string]any{}
	}
	conn, _ := obj["clientConnection"].(map[string]any)
	if conn == nil {
		conn = map[string]any{}
	}
	if kc, _ := conn["kubeconfig"].(string); kc == "" {
		conn["kubeconfig"] = cp.Kubeconfig
	}
	obj["clientConnection"] = conn
	out, err := yaml.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("encode scheduler configuration %s: %w", name, err)
	}
	path := filepath.Join(cp.Dir, name)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		return "", fmt.Errorf("write scheduler configuration: %w", err)
	}
	return path, nil
}

// StartScheduler runs dra-scheduler in this process with the configuration
// file configPath and extra command-line flags, exactly as the binary would
// run with "--config=configPath flags...". It returns once the scheduler
// answers /healthz; it stops with ctx, with Stop on the result, or with the
// control plane.
func (cp *ControlPlane) StartScheduler(ctx context.Context, configPath string, flags ...string) (*schedulerapp.Running, error) {
	return cp.StartSchedulerWith(ctx, configPath, SchedulerOptions{Flags: flags})
}

// SchedulerOptions are StartSchedulerWith's settings beyond the
// configuration file.
type SchedulerOptions struct {
	// Flags are extra command-line flags.
	Flags []string
	// Plugins configures the DRAAllocator plugins (test hooks).
	Plugins draallocator.Options
}

// StartSchedulerWith is StartScheduler with plugin options.
func (cp *ControlPlane) StartSchedulerWith(ctx context.Context, configPath string, opts SchedulerOptions) (*schedulerapp.Running, error) {
	args := slices.Concat([]string{"--config=" + configPath}, opts.Flags)
	sched, err := schedulerapp.Start(ctx, args, opts.Plugins)
	if err != nil {
		return nil, err
	}
	cp.stops = append(cp.stops, sched.Stop)
	if sched.SecurePort == 0 {
		return sched, nil
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case <-sched.Done():
			return false, fmt.Errorf("dra-scheduler stopped while starting: %w", sched.Err())
		default:
		}
		return healthy(ctx, sched.SecurePort), nil
	})
	if err != nil {
		sched.Stop()
		return nil, fmt.Errorf("wait for dra-scheduler /healthz: %w", err)
	}
	return sched, nil
}

// healthy reports whether the scheduler on port answers /healthz with 200.
// The in-process scheduler serves a self-signed certificate on loopback, so
// the probe does not verify it.
func healthy(ctx context.Context, port int) bool {
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // loopback probe of a self-signed test server
	}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/healthz", port), nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
