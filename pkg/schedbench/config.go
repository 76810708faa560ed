package schedbench

import (
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
)

// SchedulerName is the profile every configuration runs and every pod
// selects (spec.schedulerName). It is not dra-scheduler's own name, so that
// a dra-scheduler installed in an existing cluster leaves the pods alone.
const SchedulerName = "dra-bench-scheduler"

// inTreePlugin is the name of kube-scheduler's DRA plugin.
const inTreePlugin = "DynamicResources"

// SchedulerConfig returns the KubeSchedulerConfiguration (YAML) of a
// configuration: one profile named SchedulerName, leader election off,
// clientConnection with kubeconfig and the given qps and burst. Ours enables
// DRAAllocator and disables DynamicResources at multiPoint (as the shipped
// ConfigMap); in-tree and no-claims keep the default plugins.
func SchedulerConfig(c Config, kubeconfig string, qps float32, burst int32) ([]byte, error) {
	profile := map[string]any{"schedulerName": SchedulerName}
	switch c {
	case ConfigOurs:
		profile["plugins"] = map[string]any{
			"multiPoint": map[string]any{
				"enabled":  []any{map[string]any{"name": draallocator.Name}},
				"disabled": []any{map[string]any{"name": inTreePlugin}},
			},
		}
	case ConfigInTree, ConfigNoClaims:
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
