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

// Package config_test checks the KubeSchedulerConfiguration files in this
// directory, and the example profile of pkg/plugins/draallocator/README.md,
// the way dra-scheduler reads them: kube-scheduler's strict decoder and
// defaulting, kube-scheduler's validation, then DRAAllocator's own args
// decoding (kube-scheduler does not know DRAAllocatorArgs, so only the
// plugin checks them, at start-up).
package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	schedvalidation "k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	"sigs.k8s.io/yaml"

	draconfig "github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	drascheme "github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config/scheme"
	drav1 "github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config/v1"
)

const (
	schedulerName    = "dra-scheduler"
	draAllocator     = "DRAAllocator"
	dynamicResources = "DynamicResources"
	readme           = "../../pkg/plugins/draallocator/README.md"
	// leaseNamespace holds the Lease every configuration elects on: the
	// namespace of the install, where rbac.yaml's Role grants it.
	leaseNamespace = "dra-scheduler"
)

// fileChecks holds what each configuration file must contain beyond the
// checks every file gets.
var fileChecks = map[string]func(t *testing.T, cfg *loaded){
	"dra-scheduler.yaml": checkDefaultProfile,
	"dra-scheduler-packing.yaml": func(t *testing.T, cfg *loaded) {
		checkReplacesInTree(t, cfg.profile)
		checkWeight(t, cfg.profile, draAllocator, 10)
		checkAllArgsWritten(t, cfg.rawArgs, false)
		want := defaults(t)
		want.ScoringStrategy.Type = draconfig.MostAllocated
		want.DeviceSelectionPolicy = draconfig.Packing
		checkArgs(t, cfg.args, want)
	},
	"in-tree.yaml": func(t *testing.T, cfg *loaded) {
		checkEnabled(t, cfg.profile, dynamicResources)
		if slices.Contains(pluginNames(cfg.profile.Plugins.MultiPoint.Disabled), dynamicResources) {
			t.Errorf("%s is disabled in multiPoint", dynamicResources)
		}
		checkAbsent(t, cfg.profile, draAllocator)
		// The A/B comparison runs both plugins with the same timeouts.
		var dr *schedconfig.DynamicResourcesArgs
		for _, pc := range cfg.profile.PluginConfig {
			if pc.Name == dynamicResources {
				dr, _ = pc.Args.(*schedconfig.DynamicResourcesArgs)
			}
		}
		if dr == nil || dr.FilterTimeout == nil || dr.BindingTimeout == nil {
			t.Fatalf("%s args = %+v, want filterTimeout and bindingTimeout set", dynamicResources, dr)
		}
		d := defaults(t)
		if *dr.FilterTimeout != d.FilterTimeout || *dr.BindingTimeout != d.BindingTimeout {
			t.Errorf("%s timeouts = %v, %v; want DRAAllocator's defaults %v, %v",
				dynamicResources, dr.FilterTimeout, dr.BindingTimeout, d.FilterTimeout, d.BindingTimeout)
		}
	},
}

func TestConfigFiles(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name := range fileChecks {
		if !slices.Contains(files, name) {
			t.Errorf("%s is missing", name)
		}
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			checkHeader(t, file, data)
			cfg := load(t, data)
			checkDeployment(t, cfg.cfg)
			if check := fileChecks[file]; check != nil {
				check(t, cfg)
			}
		})
	}
}

// TestReadmeExample checks the first yaml block under the README's example
// heading like dra-scheduler.yaml.
func TestReadmeExample(t *testing.T) {
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	example := exampleBlock(t, string(data))
	cfg := load(t, []byte(example))
	checkDeployment(t, cfg.cfg)
	checkDefaultProfile(t, cfg)
}

// checkDefaultProfile: DRAAllocator replaces DynamicResources with the
// in-tree weight, and every arg is written out at its default.
func checkDefaultProfile(t *testing.T, cfg *loaded) {
	t.Helper()
	checkReplacesInTree(t, cfg.profile)
	checkWeight(t, cfg.profile, draAllocator, 2)
	checkAllArgsWritten(t, cfg.rawArgs, true)
	checkArgs(t, cfg.args, defaults(t))
}

// loaded is a decoded, validated configuration with its one profile.
type loaded struct {
	cfg     *schedconfig.KubeSchedulerConfiguration
	profile *schedconfig.KubeSchedulerProfile
	// rawArgs is the DRAAllocator pluginConfig args as kube-scheduler
	// hands them to the plugin (nil without a pluginConfig entry); args is
	// what the plugin makes of them.
	rawArgs runtime.Object
	args    *draconfig.DRAAllocatorArgs
}

// load decodes data as kube-scheduler does (strict, defaulted, internal
// version), validates it with kube-scheduler's validation and decodes the
// DRAAllocator args of its profile with the plugin's decoder.
func load(t *testing.T, data []byte) *loaded {
	t.Helper()
	obj, gvk, err := schedscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("kube-scheduler cannot decode the configuration: %v", err)
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		t.Fatalf("decoded %v into %T, want *config.KubeSchedulerConfiguration", gvk, obj)
	}
	if want := "kubescheduler.config.k8s.io/v1"; gvk.GroupVersion().String() != want {
		t.Errorf("apiVersion = %s, want %s", gvk.GroupVersion(), want)
	}
	if err := schedvalidation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		t.Fatalf("kube-scheduler rejects the configuration: %v", err)
	}
	if len(cfg.Profiles) != 1 {
		t.Fatalf("%d profiles, want 1", len(cfg.Profiles))
	}
	l := &loaded{cfg: cfg, profile: &cfg.Profiles[0]}
	for _, pc := range l.profile.PluginConfig {
		if pc.Name == draAllocator {
			l.rawArgs = pc.Args
		}
	}
	if l.rawArgs != nil {
		if _, ok := l.rawArgs.(*runtime.Unknown); !ok {
			t.Errorf("kube-scheduler decoded the %s args into %T, want them passed on as *runtime.Unknown", draAllocator, l.rawArgs)
		}
	}
	if l.args, err = drascheme.Decode(l.rawArgs); err != nil {
		t.Fatalf("the %s plugin rejects its args: %v", draAllocator, err)
	}
	return l
}

// checkDeployment: the settings every file shares — a secondary scheduler
// with its own Lease, in-cluster credentials.
func checkDeployment(t *testing.T, cfg *schedconfig.KubeSchedulerConfiguration) {
	t.Helper()
	le := cfg.LeaderElection
	if !le.LeaderElect || le.ResourceLock != "leases" || le.ResourceName != schedulerName || le.ResourceNamespace != leaseNamespace {
		t.Errorf("leaderElection = {leaderElect: %v, resourceLock: %q, resourceName: %q, resourceNamespace: %q}, want {true, leases, %s, "+leaseNamespace+"} (the Lease rbac.yaml grants)",
			le.LeaderElect, le.ResourceLock, le.ResourceName, le.ResourceNamespace, schedulerName)
	}
	if cfg.ClientConnection.Kubeconfig != "" {
		t.Errorf("clientConnection.kubeconfig = %q, want it unset (in-cluster)", cfg.ClientConnection.Kubeconfig)
	}
	if got := cfg.Profiles[0].SchedulerName; got != schedulerName {
		t.Errorf("schedulerName = %q, want %q", got, schedulerName)
	}
}

// checkHeader: the file starts with comments that say how to run it.
func checkHeader(t *testing.T, file string, data []byte) {
	t.Helper()
	if !strings.HasPrefix(string(data), "#") {
		t.Errorf("no comment header")
	}
	if want := "dra-scheduler --config=/path/to/" + file; !strings.Contains(string(data), want) {
		t.Errorf("the header does not say %q", want)
	}
}

// checkReplacesInTree: DRAAllocator is enabled in multiPoint, before
// DefaultPreemption (so its PostFilter runs first, as DynamicResources'
// does by default), and DynamicResources is disabled and enabled nowhere.
func checkReplacesInTree(t *testing.T, p *schedconfig.KubeSchedulerProfile) {
	t.Helper()
	checkEnabled(t, p, draAllocator)
	if !slices.Contains(pluginNames(p.Plugins.MultiPoint.Disabled), dynamicResources) {
		t.Errorf("%s is not disabled in multiPoint", dynamicResources)
	}
	for _, set := range pluginSets(p.Plugins) {
		if slices.Contains(pluginNames(set.Enabled), dynamicResources) {
			t.Errorf("%s is enabled", dynamicResources)
		}
	}
	enabled := pluginNames(p.Plugins.MultiPoint.Enabled)
	a, b := slices.Index(enabled, draAllocator), slices.Index(enabled, "DefaultPreemption")
	if b >= 0 && b < a {
		t.Errorf("multiPoint enables DefaultPreemption before %s: %v", draAllocator, enabled)
	}
}

// checkEnabled: name is in the effective (defaulted) multiPoint plugins.
func checkEnabled(t *testing.T, p *schedconfig.KubeSchedulerProfile, name string) {
	t.Helper()
	if !slices.Contains(pluginNames(p.Plugins.MultiPoint.Enabled), name) {
		t.Errorf("%s is not enabled in multiPoint: %v", name, pluginNames(p.Plugins.MultiPoint.Enabled))
	}
}

// checkAbsent: name appears nowhere in the profile.
func checkAbsent(t *testing.T, p *schedconfig.KubeSchedulerProfile, name string) {
	t.Helper()
	for _, set := range pluginSets(p.Plugins) {
		if slices.Contains(pluginNames(set.Enabled), name) || slices.Contains(pluginNames(set.Disabled), name) {
			t.Errorf("%s is named in the plugins", name)
		}
	}
	for _, pc := range p.PluginConfig {
		if pc.Name == name {
			t.Errorf("%s has a pluginConfig", name)
		}
	}
}

func checkWeight(t *testing.T, p *schedconfig.KubeSchedulerProfile, name string, want int32) {
	t.Helper()
	for _, pl := range p.Plugins.MultiPoint.Enabled {
		if pl.Name == name && pl.Weight != want {
			t.Errorf("%s weight = %d, want %d", name, pl.Weight, want)
		}
	}
}

// checkAllArgsWritten: the args block sets every field (all) or leaves
// the timeouts to their defaults (!all).
func checkAllArgsWritten(t *testing.T, raw runtime.Object, all bool) {
	t.Helper()
	u, ok := raw.(*runtime.Unknown)
	if !ok {
		t.Fatalf("no %s pluginConfig args", draAllocator)
	}
	var v drav1.DRAAllocatorArgs
	if err := yaml.UnmarshalStrict(u.Raw, &v); err != nil {
		t.Fatalf("args %s: %v", u.Raw, err)
	}
	if v.ScoringStrategy == nil || v.ScoringStrategy.Type == nil || v.DeviceSelectionPolicy == nil {
		t.Errorf("args %s do not set scoringStrategy.type and deviceSelectionPolicy", u.Raw)
	}
	if all && (v.FilterTimeout == nil || v.BindingTimeout == nil) {
		t.Errorf("args %s do not set filterTimeout and bindingTimeout", u.Raw)
	}
}

func checkArgs(t *testing.T, got, want *draconfig.DRAAllocatorArgs) {
	t.Helper()
	if *got != *want {
		t.Errorf("%s args = %+v, want %+v", draAllocator, *got, *want)
	}
}

// defaults are the args of a profile without DRAAllocator pluginConfig.
func defaults(t *testing.T) *draconfig.DRAAllocatorArgs {
	t.Helper()
	d, err := drascheme.Decode(nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func pluginNames(ps []schedconfig.Plugin) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

func pluginSets(p *schedconfig.Plugins) []schedconfig.PluginSet {
	return []schedconfig.PluginSet{p.PreEnqueue, p.QueueSort, p.PreFilter, p.Filter, p.PostFilter,
		p.PreScore, p.Score, p.Reserve, p.Permit, p.PreBind, p.Bind, p.PostBind, p.MultiPoint,
		p.PlacementGenerate, p.PlacementScore, p.PodGroupPostFilter}
}

// exampleBlock returns the first ```yaml block after the first Markdown
// heading that mentions "example".
func exampleBlock(t *testing.T, md string) string {
	t.Helper()
	lines := strings.Split(md, "\n")
	i := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "#") && strings.Contains(strings.ToLower(l), "example")
	})
	if i < 0 {
		t.Fatalf("%s has no example heading", readme)
	}
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != "```yaml"; i++ {
	}
	var block []string
	for i++; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "```" {
			return strings.Join(block, "\n") + "\n"
		}
		block = append(block, lines[i])
	}
	t.Fatalf("%s has no complete ```yaml block under its example heading", readme)
	return ""
}
