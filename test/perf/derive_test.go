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
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	scheduler_perf "k8s.io/kubernetes/test/integration/scheduler_perf"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
)

// checkWithoutThresholds: by default both variants run copies whose
// workloads lack upstream's thresholds and differ in nothing else (but
// draallocator's schedulerConfigPath); with -dra-perf-upstream-thresholds
// intree runs upstream's own file.
func checkWithoutThresholds(t *testing.T, c *perfConfig) {
	t.Helper()
	if file, err := c.workloadFile(variantInTree, t.TempDir(), true); err != nil || file != c.File {
		t.Errorf("%s: intree with thresholds runs %q (%v), want upstream's %s", c.Topic, file, err, c.File)
	}
	for _, variant := range variants {
		for i, tc := range readWorkloads(t, c, variant, false) {
			want := maps.Clone(c.testCases[i])
			want["workloads"] = withoutThresholds(want["workloads"])
			if variant == variantDRAAllocator {
				want["schedulerConfigPath"] = tc["schedulerConfigPath"]
			}
			if !reflect.DeepEqual(tc, want) {
				t.Errorf("%s/%s: test case %v differs from upstream's beyond thresholds", c.Topic, variant, tc["name"])
			}
			if strings.Contains(string(mustYAML(t, tc["workloads"])), "threshold") {
				t.Errorf("%s/%s: test case %v still has a threshold", c.Topic, variant, tc["name"])
			}
		}
	}
}

// readWorkloads returns the test cases of the file workloadFile gives for
// the variant, one per upstream test case.
func readWorkloads(t *testing.T, c *perfConfig, variant string, keepThresholds bool) []map[string]any {
	t.Helper()
	file, err := c.workloadFile(variant, t.TempDir(), keepThresholds)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var derived []map[string]any
	if err := yaml.UnmarshalStrict(data, &derived); err != nil {
		t.Fatal(err)
	}
	if len(derived) != len(c.testCases) {
		t.Fatalf("%s/%s: %d test cases derived from %d", c.Topic, variant, len(derived), len(c.testCases))
	}
	return derived
}

func mustYAML(t *testing.T, v any) []byte {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDerivedWorkloads checks, without a cluster, what the scheduler_perf
// runs depend on: upstream's files are found, their template paths resolve
// from their folder, the derived files give every test case a scheduler
// configuration that scheduler_perf accepts (decoded and validated as it
// does) with DRAAllocator in place of DynamicResources, and a test case's
// own configuration is kept.
func TestDerivedWorkloads(t *testing.T) {
	configs, err := loadConfigs()
	if err != nil {
		t.Fatal(err)
	}
	if configs[0].Topic != "dra" {
		t.Errorf("first topic %q, want dra", configs[0].Topic)
	}
	ownConfigs := 0
	for _, c := range configs {
		for _, key := range slices.Sorted(maps.Keys(c.skips)) {
			t.Logf("%s: skip %s: %s", c.Topic, key, c.skips[key])
		}
		for _, p := range paths(c.testCases, "") {
			if p.key == "schedulerConfigPath" {
				ownConfigs++
			}
			if _, err := os.Stat(filepath.Join(c.Dir, p.value)); err != nil {
				t.Errorf("%s: %s: %v", c.Topic, p.key, err)
			}
		}

		checkWithoutThresholds(t, c)
		for i, tc := range readWorkloads(t, c, variantDRAAllocator, true) {
			path, _ := tc["schedulerConfigPath"].(string)
			cfg := loadValidConfig(t, path)
			if len(cfg.Profiles) == 0 || cfg.Profiles[0].SchedulerName != defaultSchedulerName {
				t.Errorf("%s: %s: profiles %+v, want %s first", c.Topic, tc["name"], cfg.Profiles, defaultSchedulerName)
			}
			for _, profile := range cfg.Profiles {
				mp := profile.Plugins.MultiPoint
				if !hasPlugin(mp.Enabled, draallocator.Name) || !hasPlugin(mp.Disabled, inTreePlugin) || !hasPlugin(mp.Disabled, "TopologyPlacementGenerator") {
					t.Errorf("%s: %s: profile %s multiPoint %+v", c.Topic, tc["name"], profile.SchedulerName, mp)
				}
			}
			if own, _ := c.testCases[i]["schedulerConfigPath"].(string); own != "" {
				base := loadValidConfig(t, filepath.Join(c.Dir, own))
				for _, pc := range base.Profiles[0].PluginConfig {
					if pc.Name == inTreePlugin {
						continue // defaulted args of the plugin that is disabled
					}
					if !slices.ContainsFunc(cfg.Profiles[0].PluginConfig, func(got schedconfig.PluginConfig) bool {
						return got.Name == pc.Name && reflect.DeepEqual(got.Args, pc.Args)
					}) {
						t.Errorf("%s: %s: pluginConfig %s of %s lost", c.Topic, tc["name"], pc.Name, own)
					}
				}
			}
			// Nothing but schedulerConfigPath changed.
			delete(tc, "schedulerConfigPath")
			orig := maps.Clone(c.testCases[i])
			delete(orig, "schedulerConfigPath")
			if !reflect.DeepEqual(tc, orig) {
				t.Errorf("%s: %s: derived test case differs beyond schedulerConfigPath", c.Topic, tc["name"])
			}
		}
	}
	if ownConfigs == 0 {
		t.Log("no upstream test case has its own schedulerConfigPath")
	}

	// The known case that cannot run as published.
	var main *perfConfig
	for _, c := range configs {
		if c.Topic == "dra" {
			main = c
		}
	}
	if reason := main.skips["SchedulingWithResourceClaimTemplate/empty_100nodes"]; !strings.Contains(reason, "measurePods") {
		t.Errorf("empty_100nodes: skip reason %q, want the missing measurePods", reason)
	}
}

func TestWithOutOfTreeRegistry(t *testing.T) {
	want := frameworkruntime.Registry{draallocator.Name: draallocator.New}
	option, err := withOutOfTreeRegistry(want)
	if err != nil {
		t.Fatal(err)
	}
	opts := reflect.New(reflect.TypeFor[scheduler_perf.SchedulerPerfOption]().In(0).Elem())
	reflect.ValueOf(option).Call([]reflect.Value{opts})
	got := opts.Elem().FieldByName("outOfTreePluginRegistry")
	if got.Len() != 1 || !got.MapIndex(reflect.ValueOf(draallocator.Name)).IsValid() {
		t.Errorf("registry after the option: %v", got)
	}
}

func TestTable(t *testing.T) {
	dir := t.TempDir()
	write := func(variant, json string) string {
		d := filepath.Join(dir, variant)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "x.json"), []byte(json), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	item := func(variant string, pods, filter float64) string {
		name := "BenchmarkPerfScheduling/dra/" + variant + "/TC/w/test"
		return `{"version":"v1","dataItems":[
{"data":{"Average":` + ftoa(pods) + `},"unit":"pods/s","labels":{"Metric":"SchedulingThroughput","Name":"` + name + `"}},
{"data":{"Perc50":` + ftoa(filter) + `,"Perc99":` + ftoa(2*filter) + `},"unit":"ms","labels":{"Metric":"scheduler_framework_extension_point_duration_seconds","extension_point":"Filter","Name":"` + name + `"}}]}`
	}
	r := &resultSet{}
	for _, v := range []struct {
		variant      string
		pods, filter float64
	}{{variantInTree, 20, 10}, {variantDRAAllocator, 50, 1}} {
		d := write(v.variant, item(v.variant, v.pods, v.filter))
		if err := r.read(d, "dra", v.variant, "BenchmarkPerfScheduling/dra/"+v.variant+"/"); err != nil {
			t.Fatal(err)
		}
	}
	table := r.table()
	t.Log("\n" + table)
	for _, want := range []string{"dra/TC/w/test", "20.0", "50.0", "2.50x", "10.00/20.00|1.00/2.00"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q", want)
		}
	}
}

func ftoa(f float64) string {
	b, _ := yaml.Marshal(f)
	return strings.TrimSpace(string(b))
}

func loadValidConfig(t *testing.T, path string) *schedconfig.KubeSchedulerConfiguration {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		t.Fatalf("%s: decoded %T", path, obj)
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cfg
}

func hasPlugin(plugins []schedconfig.Plugin, name string) bool {
	return slices.ContainsFunc(plugins, func(p schedconfig.Plugin) bool { return p.Name == name })
}

type pathValue struct{ key, value string }

// paths lists the string values of keys that end in "Path" or "Paths"
// (template and configuration files), relative ones only.
func paths(v any, key string) []pathValue {
	var out []pathValue
	switch v := v.(type) {
	case []map[string]any:
		for _, e := range v {
			out = append(out, paths(e, key)...)
		}
	case map[string]any:
		for k, e := range v {
			out = append(out, paths(e, k)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, paths(e, key)...)
		}
	case string:
		// filePath (profiles) is relative to -data-items-dir.
		if key != "filePath" && (strings.HasSuffix(key, "Path") || strings.HasSuffix(key, "Paths")) && !filepath.IsAbs(v) && !strings.HasPrefix(v, "$") {
			out = append(out, pathValue{key, v})
		}
	}
	return out
}

func TestTheFeatureGatesFlagSetsGatesInEveryTestCaseOfBothVariants(t *testing.T) {
	configs, err := loadConfigs()
	if err != nil {
		t.Fatal(err)
	}
	old := *featureGatesFlag
	t.Cleanup(func() { *featureGatesFlag = old })
	*featureGatesFlag = "SchedulerPreQueueingHints=true, DRAPrioritizedList=false"
	for _, c := range configs {
		for _, variant := range variants {
			// With upstream's thresholds too: the in-tree variant can no
			// longer run upstream's file as it is.
			for i, tc := range readWorkloads(t, c, variant, true) {
				gates, _ := tc["featureGates"].(map[string]any)
				if gates["SchedulerPreQueueingHints"] != true || gates["DRAPrioritizedList"] != false {
					t.Errorf("%s/%s: %v: featureGates %v, want the flag's gates", c.Topic, variant, tc["name"], gates)
				}
				own, _ := c.testCases[i]["featureGates"].(map[string]any)
				for name, on := range own {
					if name != "DRAPrioritizedList" && gates[name] != on {
						t.Errorf("%s/%s: %v: gate %s = %v, want the test case's own %v", c.Topic, variant, tc["name"], name, gates[name], on)
					}
				}
			}
		}
	}

	for _, bad := range []string{"SchedulerPreQueueingHints", "=true", "A=maybe"} {
		*featureGatesFlag = bad
		if _, err := configs[0].workloadFile(variantInTree, t.TempDir(), false); err == nil || !strings.Contains(err.Error(), "-dra-perf-feature-gates") {
			t.Errorf("-dra-perf-feature-gates=%q: %v, want an error naming the flag", bad, err)
		}
	}
}
