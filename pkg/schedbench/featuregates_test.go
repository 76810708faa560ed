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
	"maps"
	"slices"
	"strings"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
)

// lockedGate returns a gate locked to its default in this Kubernetes
// version, and that default.
func lockedGate(t *testing.T) (string, bool) {
	t.Helper()
	specs := utilfeature.DefaultMutableFeatureGate.GetAll()
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		if s := specs[name]; s.LockToDefault {
			t.Logf("%s is locked to %t", name, s.Default)
			return string(name), s.Default
		}
	}
	t.Skip("no feature gate is locked to its default in this Kubernetes version")
	return "", false
}

// gateWithDependency returns a gate that depends on another one, and that
// other one, neither locked.
func gateWithDependency(t *testing.T) (string, string) {
	t.Helper()
	specs := utilfeature.DefaultMutableFeatureGate.GetAll()
	deps := utilfeature.DefaultFeatureGate.Dependencies()
	for _, name := range slices.Sorted(maps.Keys(deps)) {
		for _, dep := range deps[name] {
			s, ds := specs[name], specs[dep]
			if !s.LockToDefault && !ds.LockToDefault && s.PreRelease != featuregate.PreAlpha && ds.PreRelease != featuregate.PreAlpha {
				t.Logf("%s depends on %s", name, dep)
				return string(name), string(dep)
			}
		}
	}
	t.Skip("no unlocked feature gate depends on another in this Kubernetes version")
	return "", ""
}

func TestParseFeatureGates(t *testing.T) {
	locked, lockedDefault := lockedGate(t)
	dependent, dependency := gateWithDependency(t)
	tests := []struct {
		name    string
		value   string
		want    FeatureGates
		wantErr string
	}{
		{name: "an empty value is no gates", value: "", want: FeatureGates{}},
		{name: "an alpha gate can be enabled", value: "SchedulerPreQueueingHints=true",
			want: FeatureGates{"SchedulerPreQueueingHints": true}},
		{name: "several gates are separated by commas, spaces and empty pairs ignored", value: " SchedulerPreQueueingHints = true ,, SchedulerPopFromBackoffQ=false ",
			want: FeatureGates{"SchedulerPreQueueingHints": true, "SchedulerPopFromBackoffQ": false}},
		{name: "the kube: prefix is dropped as kube-scheduler drops it", value: "kube:SchedulerPreQueueingHints=true",
			want: FeatureGates{"SchedulerPreQueueingHints": true}},
		{name: "the same gate twice with the same value is one gate", value: "SchedulerPreQueueingHints=true,SchedulerPreQueueingHints=true",
			want: FeatureGates{"SchedulerPreQueueingHints": true}},
		{name: "a gate without a value is rejected", value: "SchedulerPreQueueingHints",
			wantErr: `feature gate "SchedulerPreQueueingHints": want name=true or name=false`},
		{name: "a value without a name is rejected", value: "=true",
			wantErr: `feature gate "=true": want name=true or name=false`},
		{name: "a value that is not a boolean is rejected", value: "SchedulerPreQueueingHints=yes",
			wantErr: `feature gate "SchedulerPreQueueingHints=yes": value is not a boolean`},
		{name: "an unknown gate is rejected", value: "NoSuchGate=true",
			wantErr: "feature gates NoSuchGate=true: unrecognized feature gate: NoSuchGate"},
		{name: "another component's gate is rejected", value: "wardle:FeatureA=true",
			wantErr: `component "wardle" is not the scheduler's`},
		{name: "a gate given twice with different values is rejected", value: "SchedulerPreQueueingHints=true,SchedulerPreQueueingHints=false",
			wantErr: "feature gate SchedulerPreQueueingHints given as both true and false"},
		{name: "a gate locked to its default cannot be changed", value: locked + "=" + map[bool]string{true: "false", false: "true"}[lockedDefault],
			wantErr: "feature is locked to"},
		{name: "a gate cannot be enabled without the gates it depends on", value: dependent + "=true," + dependency + "=false",
			wantErr: "depends on features that are disabled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseFeatureGates(tc.value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseFeatureGates(%q) = %v, %v; want an error containing %q", tc.value, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseFeatureGates(%q): %v", tc.value, err)
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("ParseFeatureGates(%q) = %v, want %v", tc.value, got, tc.want)
			}
		})
	}
}

func TestFeatureGatesString(t *testing.T) {
	tests := []struct {
		name  string
		gates FeatureGates
		want  string
	}{
		{"no gates are the empty string", nil, ""},
		{"one gate is name=value", FeatureGates{"A": true}, "A=true"},
		{"gates are sorted by name, so that the same gates read the same", FeatureGates{"B": false, "C": true, "A": true}, "A=true,B=false,C=true"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.gates.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if tc.want == "" {
				return
			}
			// The string parses back into the same gates (names unchecked).
			back := FeatureGates{}
			for _, pair := range strings.Split(tc.want, ",") {
				name, val, _ := strings.Cut(pair, "=")
				back[name] = val == "true"
			}
			if !maps.Equal(back, tc.gates) {
				t.Errorf("%q reads back as %v", tc.want, back)
			}
		})
	}
}

func TestSchedulerFeatureGates(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		config   Config
		want     string
		wantFlag []string
	}{
		{name: "ours gets SchedulerPreQueueingHints by default", opts: Options{}, config: ConfigOurs,
			want: "SchedulerPreQueueingHints=true", wantFlag: []string{"--feature-gates=SchedulerPreQueueingHints=true"}},
		{name: "in-tree gets no gates by default", opts: Options{}, config: ConfigInTree, want: ""},
		{name: "no-claims gets no gates by default", opts: Options{}, config: ConfigNoClaims, want: ""},
		{name: "the defaults of DefaultOptions are those of DefaultConfigFeatureGates", opts: DefaultOptions(), config: ConfigOurs,
			want: "SchedulerPreQueueingHints=true", wantFlag: []string{"--feature-gates=SchedulerPreQueueingHints=true"}},
		{name: "the given gates go to in-tree", opts: Options{FeatureGates: FeatureGates{"SchedulerPopFromBackoffQ": false}}, config: ConfigInTree,
			want: "SchedulerPopFromBackoffQ=false", wantFlag: []string{"--feature-gates=SchedulerPopFromBackoffQ=false"}},
		{name: "the given gates go to no-claims", opts: Options{FeatureGates: FeatureGates{"SchedulerPreQueueingHints": true}}, config: ConfigNoClaims,
			want: "SchedulerPreQueueingHints=true", wantFlag: []string{"--feature-gates=SchedulerPreQueueingHints=true"}},
		{name: "the given gates are merged over ours' defaults", opts: Options{FeatureGates: FeatureGates{"SchedulerPopFromBackoffQ": false}}, config: ConfigOurs,
			want: "SchedulerPopFromBackoffQ=false,SchedulerPreQueueingHints=true", wantFlag: []string{"--feature-gates=SchedulerPopFromBackoffQ=false,SchedulerPreQueueingHints=true"}},
		{name: "a given value wins over ours' default for the same gate", opts: Options{FeatureGates: FeatureGates{"SchedulerPreQueueingHints": false}}, config: ConfigOurs,
			want: "SchedulerPreQueueingHints=false", wantFlag: []string{"--feature-gates=SchedulerPreQueueingHints=false"}},
		{name: "an empty ConfigFeatureGates turns the defaults off", opts: Options{ConfigFeatureGates: map[Config]FeatureGates{}}, config: ConfigOurs, want: ""},
		{name: "ConfigFeatureGates can give in-tree defaults too", opts: Options{ConfigFeatureGates: map[Config]FeatureGates{ConfigInTree: {"SchedulerPreQueueingHints": true}}}, config: ConfigInTree,
			want: "SchedulerPreQueueingHints=true", wantFlag: []string{"--feature-gates=SchedulerPreQueueingHints=true"}},
		{name: "the scheduler flags follow the feature gates", opts: Options{SchedulerFlags: []string{"-v=4"}}, config: ConfigOurs,
			want: "SchedulerPreQueueingHints=true", wantFlag: []string{"--feature-gates=SchedulerPreQueueingHints=true", "-v=4"}},
		{name: "the shape's gates go to every configuration", opts: Options{Shape: Shape{FeatureGates: FeatureGates{"DRANodeAllocatableResources": true}}}, config: ConfigInTree,
			want: "DRANodeAllocatableResources=true", wantFlag: []string{"--feature-gates=DRANodeAllocatableResources=true"}},
		{name: "the shape's gates are merged over ours' defaults and under the given ones", opts: Options{
			Shape:        Shape{FeatureGates: FeatureGates{"DRANodeAllocatableResources": true, "SchedulerPreQueueingHints": false}},
			FeatureGates: FeatureGates{"DRANodeAllocatableResources": false}}, config: ConfigOurs,
			want: "DRANodeAllocatableResources=false,SchedulerPreQueueingHints=false", wantFlag: []string{"--feature-gates=DRANodeAllocatableResources=false,SchedulerPreQueueingHints=false"}},
		{name: "without gates there is no --feature-gates flag", opts: Options{SchedulerFlags: []string{"-v=4"}}, config: ConfigInTree,
			want: "", wantFlag: []string{"-v=4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.opts.SchedulerFeatureGates(tc.config).String(); got != tc.want {
				t.Errorf("SchedulerFeatureGates(%s) = %q, want %q", tc.config, got, tc.want)
			}
			if got := tc.opts.childFlags(tc.config); !slices.Equal(got, tc.wantFlag) {
				t.Errorf("childFlags(%s) = %q, want %q", tc.config, got, tc.wantFlag)
			}
		})
	}
}

func TestMergeFeatureGatesModifiesNeitherInput(t *testing.T) {
	base, override := FeatureGates{"A": true, "B": true}, FeatureGates{"B": false}
	got := MergeFeatureGates(base, override)
	if want := (FeatureGates{"A": true, "B": false}); !maps.Equal(got, want) {
		t.Errorf("MergeFeatureGates = %v, want %v", got, want)
	}
	if base["B"] != true || len(base) != 2 || len(override) != 1 {
		t.Errorf("inputs changed: base %v, override %v", base, override)
	}
	got["C"] = true
	if DefaultConfigFeatureGates()[ConfigOurs]["C"] || len(MergeFeatureGates(nil, nil)) != 0 {
		t.Error("the merged gates share a map with their inputs")
	}
}

func TestDefaultConfigFeatureGatesAreValid(t *testing.T) {
	for c, gates := range DefaultConfigFeatureGates() {
		if err := ValidateFeatureGates(gates); err != nil {
			t.Errorf("the default gates of %s are not valid: %v", c, err)
		}
	}
	// Each call returns a fresh map: no package-level mutable state.
	DefaultConfigFeatureGates()[ConfigOurs]["SchedulerPreQueueingHints"] = false
	if !DefaultConfigFeatureGates()[ConfigOurs]["SchedulerPreQueueingHints"] {
		t.Error("changing the returned defaults changed the next call's")
	}
}

func TestOptionsCompleteChecksGatesWorkersAndFlags(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Options)
		wantErr string
	}{
		{name: "the defaults are valid", change: func(*Options) {}},
		{name: "valid given gates are accepted", change: func(o *Options) { o.FeatureGates = FeatureGates{"SchedulerPreQueueingHints": false} }},
		{name: "an unknown given gate is rejected before anything starts", change: func(o *Options) { o.FeatureGates = FeatureGates{"NoSuchGate": true} },
			wantErr: "unrecognized feature gate: NoSuchGate"},
		{name: "an unknown default gate is rejected, naming its configuration",
			change:  func(o *Options) { o.ConfigFeatureGates = map[Config]FeatureGates{ConfigInTree: {"NoSuchGate": true}} },
			wantErr: "configuration in-tree (its defaults in ConfigFeatureGates and the given ones): feature gates NoSuchGate=true: unrecognized feature gate: NoSuchGate"},
		{name: "the defaults of a configuration that is not measured are not checked", change: func(o *Options) {
			o.Configs = []Config{ConfigOurs}
			o.ConfigFeatureGates = map[Config]FeatureGates{ConfigInTree: {"NoSuchGate": true}}
		}},
		{name: "a --feature-gates scheduler flag is rejected, so that the report names every gate", change: func(o *Options) { o.SchedulerFlags = []string{"--feature-gates=A=true"} },
			wantErr: `scheduler flag "--feature-gates=A=true": set feature gates with FeatureGates`},
		{name: "a single-dash -feature-gates scheduler flag is rejected too", change: func(o *Options) { o.SchedulerFlags = []string{"-feature-gates", "A=true"} },
			wantErr: `scheduler flag "-feature-gates"`},
		{name: "other scheduler flags are accepted", change: func(o *Options) { o.SchedulerFlags = []string{"--feature-gates-are-not-this=1", "-v=4"} }},
		{name: "claim workers may be set on the in-process control plane", change: func(o *Options) { o.ClaimWorkers = 10 }},
		{name: "negative claim workers are rejected", change: func(o *Options) { o.ClaimWorkers = -1 },
			wantErr: "resourceclaim controller workers -1: want at least 1, or 0 for the default 50"},
		{name: "claim workers with a kubeconfig are rejected", change: func(o *Options) { o.Kubeconfig, o.ClaimWorkers = "/nonexistent", 50 },
			wantErr: "with a kubeconfig the cluster's kube-controller-manager runs the controller"},
		{name: "a kubeconfig with the default claim workers is accepted", change: func(o *Options) { o.Kubeconfig = "/nonexistent" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Sizes, o.LogDir, o.Child = []int{10}, t.TempDir(), []string{"true"}
			tc.change(&o)
			err := o.complete()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("complete: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("complete() = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}
