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

package schedbench

import (
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
)

// SchedulerName is the profile every configuration runs and every pod
// selects (spec.schedulerName). It is not dra-scheduler's own name, so that
// a dra-scheduler installed in an existing cluster leaves the pods alone.
const SchedulerName = "dra-bench-scheduler"

// inTreePlugin is the name of kube-scheduler's DRA plugin, and
// defaultPreemptionPlugin the name of its preemption plugin.
const (
	inTreePlugin            = "DynamicResources"
	defaultPreemptionPlugin = "DefaultPreemption"
	// placementGenerator is kube-scheduler's generator of a pod group's
	// topology placements, whose place DRAAllocator takes.
	placementGenerator = "TopologyPlacementGenerator"
)

// SchedulerConfig returns the KubeSchedulerConfiguration (YAML) of a
// configuration: one profile named SchedulerName, leader election off,
// clientConnection with kubeconfig and the given qps and burst. Ours enables
// DRAAllocator and disables DynamicResources at multiPoint and, as the
// shipped ConfigMap, moves DefaultPreemption after DRAAllocator, whose
// PostFilter must run first for preemption for devices (see
// pkg/plugins/draallocator/README.md); it also generates a pod group's
// topology placements in place of TopologyPlacementGenerator and scores
// them at weight 2, as the shipped ConfigMap does (both matter only with
// TopologyAwareWorkloadScheduling on). In-tree, no-claims and
// device-plugin keep the default plugins: device-plugin's pods need only
// NodeResourcesFit and DefaultPreemption, which count extended resources.
func SchedulerConfig(c Config, kubeconfig string, qps float32, burst int32) ([]byte, error) {
	profile := map[string]any{"schedulerName": SchedulerName}
	switch c {
	case ConfigOurs:
		profile["plugins"] = map[string]any{
			"multiPoint": map[string]any{
				"enabled": []any{map[string]any{"name": draallocator.Name}, map[string]any{"name": defaultPreemptionPlugin}},
				"disabled": []any{map[string]any{"name": inTreePlugin}, map[string]any{"name": defaultPreemptionPlugin},
					map[string]any{"name": placementGenerator}},
			},
			"placementScore": map[string]any{
				"enabled": []any{map[string]any{"name": draallocator.Name, "weight": 2}},
			},
		}
	case ConfigInTree, ConfigNoClaims, ConfigDevicePlugin:
	case ConfigFile:
		return nil, fmt.Errorf("scheduler configuration for %q: comes from a file (FileSchedulerConfig)", c)
	default:
		return nil, fmt.Errorf("scheduler configuration for %q: unknown configuration", c)
	}
	cfg := map[string]any{
		"apiVersion":     "kubescheduler.config.k8s.io/v1",
		"kind":           "KubeSchedulerConfiguration",
		"leaderElection": map[string]any{"leaderElect": false},
		"clientConnection": map[string]any{
			"kubeconfig": kubeconfig,
			"qps":        qps,
			"burst":      burst,
		},
		"profiles": []any{profile},
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode scheduler configuration for %q: %w", c, err)
	}
	return out, nil
}

// FileSchedulerConfig adapts a KubeSchedulerConfiguration (YAML or JSON,
// kubescheduler.config.k8s.io/v1) for a run, changing only what a run
// needs: clientConnection.kubeconfig points at the run's cluster, leader
// election is off (the run has one replica and no Lease namespace), and the
// first profile is named SchedulerName, which the pods select; a
// configuration without profiles gets one. Everything else — plugins, their
// args, percentageOfNodesToScore, the client's qps and burst — is the
// file's.
func FileSchedulerConfig(data []byte, kubeconfig string) ([]byte, error) {
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	if cfg["apiVersion"] != "kubescheduler.config.k8s.io/v1" || cfg["kind"] != "KubeSchedulerConfiguration" {
		return nil, fmt.Errorf("apiVersion %v, kind %v: want a kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration", cfg["apiVersion"], cfg["kind"])
	}
	cc, _ := cfg["clientConnection"].(map[string]any)
	if cc == nil {
		cc = map[string]any{}
	}
	cc["kubeconfig"] = kubeconfig
	cfg["clientConnection"] = cc
	le, _ := cfg["leaderElection"].(map[string]any)
	if le == nil {
		le = map[string]any{}
	}
	le["leaderElect"] = false
	cfg["leaderElection"] = le
	profiles, _ := cfg["profiles"].([]any)
	if len(profiles) == 0 {
		profiles = []any{map[string]any{}}
	}
	first, ok := profiles[0].(map[string]any)
	if !ok {
		return nil, errors.New("profiles[0] is not an object")
	}
	first["schedulerName"] = SchedulerName
	cfg["profiles"] = profiles
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode scheduler configuration: %w", err)
	}
	return out, nil
}
