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

package perf

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocatorfeatures"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
)

const (
	kubernetesModule = "k8s.io/kubernetes"
	// draDir is upstream's DRA workload folder inside the module.
	draDir     = "test/integration/scheduler_perf/dra"
	configName = "performance-config.yaml"

	inTreePlugin = "DynamicResources"
	// defaultSchedulerName is the profile scheduler_perf's pods use.
	defaultSchedulerName = "default-scheduler"

	variantInTree       = "intree"
	variantDRAAllocator = "draallocator"
)

var variants = []string{variantInTree, variantDRAAllocator}

// unsupportedGates are feature gates whose test cases exercise in-tree
// features that DRAAllocator does not implement: dra-scheduler refuses to
// start with them on (allocatorfeatures.Unsupported), so such workloads
// would not compare like with like, and both variants skip them. None
// today: DRANodeAllocatableResources was the last (upstream v1.37.2 has
// no scheduler_perf workload for it); dra_workloadresourceclaims' PodGroup
// claims, DRAListTypeAttributes' and DRADeviceCompatibilityGroups' cases
// run for both variants.
var unsupportedGates = allocatorfeatures.Unsupported()

// knownFailures are upstream test cases ("<topic>/<TestCase>") that
// DRAAllocator fails although it claims the feature (its allocator
// features include it and it starts with the gate on), each with the
// evidence. The draallocator variant skips them unless
// -dra-perf-run-known-failures is set; the in-tree variant runs them in
// the benchmark (a baseline) but not in the smoke test (nothing to
// compare). There are none today.
var knownFailures = map[string]string{}

// perfConfig is one upstream workload file.
type perfConfig struct {
	// Topic is upstream's topic name: "dra" for the top folder,
	// "dra_<sub_folder>" for the others.
	Topic string
	// Dir is the folder of the file: template paths are relative to it.
	Dir  string
	File string
	// skips maps "<TestCase>/<workload>" to the reason it cannot run.
	skips map[string]string
	// testCases is the file as generic YAML, for deriving.
	testCases []map[string]any
}

var (
	kubeDirOnce sync.Once
	kubeDir     string
	kubeDirErr  error
)

// kubernetesDir is the k8s.io/kubernetes module directory that the build
// uses: `go list -m` first, else build info and the module cache.
func kubernetesDir() (string, error) {
	kubeDirOnce.Do(func() {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", kubernetesModule).Output()
		if dir := strings.TrimSpace(string(out)); err == nil && dir != "" {
			kubeDir = dir
			return
		}
		info, ok := debug.ReadBuildInfo()
		if !ok {
			kubeDirErr = fmt.Errorf("go list -m %s: %v, and no build info", kubernetesModule, err)
			return
		}
		for _, dep := range info.Deps {
			if dep.Path != kubernetesModule {
				continue
			}
			if dep.Replace != nil {
				dep = dep.Replace
			}
			cache := os.Getenv("GOMODCACHE")
			if cache == "" {
				gopath := os.Getenv("GOPATH")
				if gopath == "" {
					home, _ := os.UserHomeDir()
					gopath = filepath.Join(home, "go")
				}
				cache = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
			}
			kubeDir = filepath.Join(cache, dep.Path+"@"+dep.Version)
			return
		}
		kubeDirErr = fmt.Errorf("go list -m %s: %v, and %s is not in the build info", kubernetesModule, err, kubernetesModule)
	})
	return kubeDir, kubeDirErr
}

// loadConfigs finds every performance-config.yaml under upstream's dra
// folder, ordered by topic ("dra" first).
func loadConfigs() ([]*perfConfig, error) {
	dir, err := kubernetesDir()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, draDir)
	var configs []*perfConfig
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != configName {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		topic := "dra"
		if rel != "." {
			topic += "_" + strings.ReplaceAll(filepath.ToSlash(rel), "/", "_")
		}
		c, err := readConfig(topic, path)
		if err != nil {
			return err
		}
		configs = append(configs, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(configs) == 0 {
		return nil, fmt.Errorf("no %s under %s", configName, root)
	}
	sort.Slice(configs, func(i, j int) bool { return configs[i].Topic < configs[j].Topic })
	return configs, nil
}

func readConfig(topic, file string) (*perfConfig, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	c := &perfConfig{Topic: topic, Dir: filepath.Dir(file), File: file, skips: map[string]string{}}
	if err := yaml.Unmarshal(data, &c.testCases); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, tc := range c.testCases {
		tcName, _ := tc["name"].(string)
		required := requiredParams(tc["workloadTemplate"])
		workloads, _ := tc["workloads"].([]any)
		for _, w := range workloads {
			w, _ := w.(map[string]any)
			wName, _ := w["name"].(string)
			if reason := skipReason(tc, w, required); reason != "" {
				c.skips[tcName+"/"+wName] = reason
			}
		}
	}
	return c, nil
}

// skipReason says why a workload cannot run in this comparison, or "".
//   - It enables a feature gate of unsupportedGates (test case or
//     workload level).
//   - It lacks a parameter that the template uses without a default: it
//     cannot run as published (scheduler_perf fails in its first op).
//     Upstream never selects those (they have no labels), so this only
//     matters with an empty label filter.
func skipReason(tc, w map[string]any, required []string) string {
	for _, gates := range []any{tc["featureGates"], w["featureGates"]} {
		gates, _ := gates.(map[string]any)
		for _, gate := range slices.Sorted(maps.Keys(gates)) {
			if on, _ := gates[gate].(bool); on && unsupportedGates[gate] != "" {
				return gate + ": " + unsupportedGates[gate]
			}
		}
	}
	params, _ := w["params"].(map[string]any)
	var missing []string
	for _, p := range required {
		if _, ok := params[p]; !ok {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return "cannot run as published: lacks parameter(s) " + strings.Join(missing, ", ")
	}
	return ""
}

// requiredParams lists the "$name" parameters used in a workload template
// without a "|default".
func requiredParams(template any) []string {
	seen := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case string:
			if strings.HasPrefix(v, "$") && !strings.Contains(v, "|") {
				seen[strings.TrimPrefix(v, "$")] = true
			}
		}
	}
	walk(template)
	return slices.Sorted(maps.Keys(seen))
}

// workloadFile returns the file to run for a variant. For draallocator
// it is a copy in dir in which every test case has a schedulerConfigPath
// with DRAAllocator in place of DynamicResources; for intree, upstream's
// own file. Unless keepThresholds, both variants run a copy without the
// workloads' throughput thresholds: upstream's pass/fail gates are
// calibrated for its CI machines (120–130 pods/s on the extended-resource
// workloads) and fail both plugins on a small machine, while this
// benchmark compares the two. Nothing else changes; template paths stay
// relative to c.Dir, the working directory of the run.
func (c *perfConfig) workloadFile(variant, dir string, keepThresholds bool) (string, error) {
	gates, err := parseFeatureGates(*featureGatesFlag)
	if err != nil {
		return "", fmt.Errorf("-dra-perf-feature-gates: %w", err)
	}
	if variant == variantInTree && keepThresholds && len(gates) == 0 {
		return c.File, nil
	}
	var defaultConfig string
	derived := make([]map[string]any, 0, len(c.testCases))
	for _, tc := range c.testCases {
		out := maps.Clone(tc)
		if !keepThresholds {
			out["workloads"] = withoutThresholds(tc["workloads"])
		}
		if len(gates) > 0 {
			out["featureGates"] = withFeatureGates(tc["featureGates"], gates)
		}
		derived = append(derived, out)
		if variant != variantDRAAllocator {
			continue
		}
		name, _ := tc["name"].(string)
		var err error
		if own, _ := tc["schedulerConfigPath"].(string); own != "" {
			if !filepath.IsAbs(own) {
				own = filepath.Join(c.Dir, own)
			}
			out["schedulerConfigPath"], err = writeSchedulerConfig(own, filepath.Join(dir, name+"-scheduler-config.yaml"))
		} else {
			if defaultConfig == "" {
				defaultConfig, err = writeSchedulerConfig("", filepath.Join(dir, "scheduler-config.yaml"))
			}
			out["schedulerConfigPath"] = defaultConfig
		}
		if err != nil {
			return "", fmt.Errorf("%s: test case %s: %w", c.File, name, err)
		}
	}
	data, err := yaml.Marshal(derived)
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, c.Topic+"-"+variant+"-"+configName)
	return file, os.WriteFile(file, data, 0o644)
}

// parseFeatureGates parses "A=true,B=false".
func parseFeatureGates(s string) (map[string]bool, error) {
	gates := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		name, value, ok := strings.Cut(kv, "=")
		on, err := strconv.ParseBool(value)
		if !ok || name == "" || err != nil {
			return nil, fmt.Errorf("%q is not NAME=true or NAME=false", kv)
		}
		gates[name] = on
	}
	return gates, nil
}

// withFeatureGates returns a test case's featureGates with gates set over
// them.
func withFeatureGates(own any, gates map[string]bool) map[string]any {
	out := map[string]any{}
	if m, ok := own.(map[string]any); ok {
		maps.Copy(out, m)
	}
	for name, on := range gates {
		out[name] = on
	}
	return out
}

// withoutThresholds returns a copy of a test case's workload list with
// every workload's threshold removed (anything else unchanged).
func withoutThresholds(workloads any) any {
	list, ok := workloads.([]any)
	if !ok {
		return workloads
	}
	out := make([]any, len(list))
	for i, w := range list {
		if m, ok := w.(map[string]any); ok {
			m = maps.Clone(m)
			delete(m, "threshold")
			w = m
		}
		out[i] = w
	}
	return out
}

// writeSchedulerConfig derives a KubeSchedulerConfiguration from base
// (empty: one default-scheduler profile) in which every profile disables
// DynamicResources and enables DRAAllocator in multiPoint, with the in-tree
// plugin's weight and DefaultPreemption re-added after it so that
// DRAAllocator's PostFilter runs first, as in
// manifests/config/dra-scheduler.yaml (TopologyPlacementGenerator off too:
// DRAAllocator generates placements). Everything else in base is kept;
// scheduler_perf ignores clientConnection and leader election.
func writeSchedulerConfig(base, file string) (string, error) {
	cfg := map[string]any{
		"apiVersion": "kubescheduler.config.k8s.io/v1",
		"kind":       "KubeSchedulerConfiguration",
	}
	if base != "" {
		data, err := os.ReadFile(base)
		if err != nil {
			return "", err
		}
		cfg = nil
		if err := yaml.Unmarshal(data, &cfg); err != nil {
			return "", fmt.Errorf("%s: %w", base, err)
		}
	}
	profiles, _ := cfg["profiles"].([]any)
	if len(profiles) == 0 {
		profiles = []any{map[string]any{"schedulerName": defaultSchedulerName}}
	}
	for i, p := range profiles {
		profile, ok := p.(map[string]any)
		if !ok {
			return "", fmt.Errorf("%s: profile %d is not an object", base, i)
		}
		plugins := object(profile, "plugins")
		multiPoint := object(plugins, "multiPoint")
		enabled, _ := multiPoint["enabled"].([]any)
		disabled, _ := multiPoint["disabled"].([]any)
		multiPoint["enabled"] = append(enabled,
			map[string]any{"name": draallocator.Name, "weight": 2},
			map[string]any{"name": "DefaultPreemption"})
		multiPoint["disabled"] = append(disabled,
			map[string]any{"name": inTreePlugin},
			map[string]any{"name": "DefaultPreemption"},
			// DRAAllocator generates placements itself; a profile has at
			// most one generator.
			map[string]any{"name": "TopologyPlacementGenerator"})
	}
	cfg["profiles"] = profiles
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return "", err
	}
	return file, os.WriteFile(file, data, 0o644)
}

// object returns m[key] as an object, creating it if absent.
func object(m map[string]any, key string) map[string]any {
	if o, ok := m[key].(map[string]any); ok {
		return o
	}
	o := map[string]any{}
	m[key] = o
	return o
}
