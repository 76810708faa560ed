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

package charts_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	schedvalidation "k8s.io/kubernetes/pkg/scheduler/apis/config/validation"

	"github.com/dra-scheduler/dra-scheduler/charts"
	"github.com/dra-scheduler/dra-scheduler/manifests"
	draconfig "github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	drascheme "github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config/scheme"
)

// part is an optional part of the chart, switched by the boolean value at
// path, and the objects (by key) rendered only with it. A part with a
// parent is rendered only when the parent is on, too.
type part struct {
	path   string
	parent string
	owns   []string
	// offByDefault: the chart's default for path is false.
	offByDefault bool
}

var parts = []part{
	{path: "admission.enabled", owns: []string{
		"ValidatingAdmissionPolicy dra-scheduler-required", "ValidatingAdmissionPolicyBinding dra-scheduler-required",
		"ValidatingAdmissionPolicy dra-scheduler-required-for-extended-resources", "ValidatingAdmissionPolicyBinding dra-scheduler-required-for-extended-resources",
		"MutatingAdmissionPolicy dra-scheduler-opt-in", "MutatingAdmissionPolicyBinding dra-scheduler-opt-in",
		"MutatingAdmissionPolicy dra-scheduler-opt-in-for-extended-resources", "MutatingAdmissionPolicyBinding dra-scheduler-opt-in-for-extended-resources",
	}},
	{path: "admission.labelGuard.enabled", parent: "admission.enabled", offByDefault: true, owns: []string{
		"ValidatingAdmissionPolicy dra-scheduler-enforce-label", "ValidatingAdmissionPolicyBinding dra-scheduler-enforce-label",
	}},
	{path: "monitoring.enabled", owns: []string{
		"Service dra-scheduler/dra-scheduler-metrics", "ClusterRole dra-scheduler-metrics-reader", "ClusterRoleBinding dra-scheduler-metrics-reader",
	}},
	{path: "monitoring.serviceMonitor.enabled", parent: "monitoring.enabled", owns: []string{"ServiceMonitor dra-scheduler/dra-scheduler"}},
	{path: "monitoring.podMonitor.enabled", parent: "monitoring.enabled", offByDefault: true, owns: []string{
		"PodMonitor dra-scheduler/dra-scheduler", "ServiceAccount dra-scheduler/dra-scheduler-metrics-scraper", "Secret dra-scheduler/dra-scheduler-metrics-scraper-token",
	}},
	{path: "monitoring.prometheusRule.enabled", parent: "monitoring.enabled", owns: []string{"PrometheusRule dra-scheduler/dra-scheduler"}},
	{path: "monitoring.grafanaDashboard.enabled", parent: "monitoring.enabled", owns: []string{"ConfigMap dra-scheduler/dra-scheduler-dashboard"}},
	{path: "podDisruptionBudget.enabled", owns: []string{"PodDisruptionBudget dra-scheduler/dra-scheduler"}},
	{path: "explainRole.enabled", owns: []string{"ClusterRole dra-scheduler:explain"}},
	{path: "inTree.enabled"}, // changes the configuration only
}

// TestEveryCombinationOfTheOptionalPartsRendersAWorkingInstall renders the
// chart with every combination of its optional parts on and off (a
// monitoring part only varied with monitoring on) and checks each
// rendering: the parts that are on and only those are there, every object
// decodes strictly into its API type, the configuration is one
// kube-scheduler and DRAAllocator accept with the plugin the in-tree mode
// asks for, the pod template carries its hash, and every reference (role,
// ServiceAccount, Secret, selector) finds what it names.
func TestEveryCombinationOfTheOptionalPartsRendersAWorkingInstall(t *testing.T) {
	ch, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	// Everything on is the install with the monitoring component, the
	// podmonitor component's PodMonitor beside the ServiceMonitor it
	// replaces, and the label guard (TestTheChartRendersWhatKustomizeBuilds).
	all, err := manifests.Build(manifests.InstallDir, manifests.MonitoringDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, components := range [][]string{{manifests.MonitoringDir, manifests.PodMonitorDir}, {manifests.LabelGuardDir}} {
		more, err := manifests.Build(manifests.InstallDir, components...)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range more {
			if !slices.ContainsFunc(all, func(a *unstructured.Unstructured) bool { return key(a) == key(o) }) {
				all = append(all, o)
			}
		}
	}
	owner := map[string]string{}
	for _, p := range parts {
		for _, k := range p.owns {
			owner[k] = p.path
		}
	}
	for k := range owner {
		if !slices.ContainsFunc(all, func(o *unstructured.Unstructured) bool { return key(o) == k }) {
			t.Fatalf("part %s owns %s, which the install with monitoring does not have", owner[k], k)
		}
	}

	combinations := 0
	for mask := range 1 << len(parts) {
		on := map[string]bool{}
		values := map[string]any{}
		skip := false
		for i, p := range parts {
			on[p.path] = mask&(1<<i) != 0
			if p.parent != "" && !on[p.parent] && on[p.path] == p.offByDefault {
				// Only the default of a monitoring part is tried with
				// monitoring off.
				skip = true
			}
			values = merge(values, set(p.path, on[p.path]))
		}
		if skip {
			continue
		}
		combinations++
		name := describe(on)
		t.Run(name, func(t *testing.T) {
			objs, err := charts.RenderChart(ch, charts.Namespace, values)
			if err != nil {
				t.Fatal(err)
			}
			rendered := map[string]bool{}
			for _, o := range objs {
				rendered[key(o)] = true
			}
			for _, o := range all {
				k := key(o)
				p, optional := owner[k]
				want := !optional || on[p] && (parentOf(p) == "" || on[parentOf(p)])
				if rendered[k] != want {
					t.Errorf("%s rendered: %v, want %v", k, rendered[k], want)
				}
				delete(rendered, k)
			}
			for k := range rendered {
				t.Errorf("%s rendered, which no part owns", k)
			}
			checkDecodesStrictly(t, objs)
			cfg := loadConfig(t, checkConfigHash(t, objs))
			allocator, other := "DRAAllocator", "DynamicResources"
			if on["inTree.enabled"] {
				allocator, other = other, allocator
			}
			if enabled := multiPointEnabled(cfg); !slices.Contains(enabled, allocator) || slices.Contains(enabled, other) {
				t.Errorf("the profile enables %v, want %s and not %s", enabled, allocator, other)
			}
			checkReferences(t, objs)
		})
	}
	// A part with children: off (they keep their defaults), or on with every
	// combination of them; a part without either: on or off.
	want := 1
	for _, p := range parts {
		children := 0
		for _, c := range parts {
			if c.parent == p.path {
				children++
			}
		}
		switch {
		case children > 0:
			want *= 1 + 1<<children
		case p.parent == "":
			want *= 2
		}
	}
	if combinations != want {
		t.Errorf("%d combinations rendered, want %d", combinations, want)
	}
}

func parentOf(path string) string {
	for _, p := range parts {
		if p.path == path {
			return p.parent
		}
	}
	return ""
}

// describe names a combination: the parts that are off, "everything on"
// without any.
func describe(on map[string]bool) string {
	var off []string
	for _, p := range parts {
		if !on[p.path] && p.path != "inTree.enabled" {
			off = append(off, strings.TrimSuffix(p.path, ".enabled"))
		}
	}
	name := "everything on"
	if len(off) > 0 {
		name = "without " + strings.Join(off, " ")
	}
	if on["inTree.enabled"] {
		return name + " in the in-tree mode"
	}
	return name
}

// loadConfig decodes a KubeSchedulerConfiguration as dra-scheduler does:
// kube-scheduler's strict decoding, defaulting and validation, then, when
// the profile configures DRAAllocator, the plugin's own args decoding. It
// returns the configuration with its one profile.
func loadConfig(t *testing.T, data []byte) *schedconfig.KubeSchedulerConfiguration {
	t.Helper()
	obj, _, err := schedscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("kube-scheduler cannot decode the configuration: %v\n%s", err, data)
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		t.Fatalf("the configuration decodes into %T", obj)
	}
	if err := schedvalidation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		t.Fatalf("kube-scheduler rejects the configuration: %v\n%s", err, data)
	}
	if len(cfg.Profiles) != 1 {
		t.Fatalf("%d profiles, want 1", len(cfg.Profiles))
	}
	if _, err := drascheme.Decode(rawArgs(cfg)); err != nil {
		t.Fatalf("DRAAllocator rejects its args: %v\n%s", err, data)
	}
	return cfg
}

// rawArgs returns the DRAAllocator args kube-scheduler hands the plugin,
// nil without a pluginConfig entry.
func rawArgs(cfg *schedconfig.KubeSchedulerConfiguration) runtime.Object {
	for _, pc := range cfg.Profiles[0].PluginConfig {
		if pc.Name == "DRAAllocator" {
			return pc.Args
		}
	}
	return nil
}

// draArgs returns the DRAAllocator args the plugin makes of cfg's.
func draArgs(t *testing.T, cfg *schedconfig.KubeSchedulerConfiguration) *draconfig.DRAAllocatorArgs {
	t.Helper()
	args, err := drascheme.Decode(rawArgs(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return args
}

// multiPointEnabled returns the plugins the (defaulted) profile enables.
func multiPointEnabled(cfg *schedconfig.KubeSchedulerConfiguration) []string {
	var names []string
	for _, p := range cfg.Profiles[0].Plugins.MultiPoint.Enabled {
		names = append(names, p.Name)
	}
	return names
}

// builtinRoles are the roles Kubernetes provides that the chart binds.
var builtinRoles = []string{"Role kube-system/extension-apiserver-authentication-reader"}

// checkReferences checks that what the objects name is there: bound roles,
// ServiceAccounts of the release namespace bound or used, the PodMonitor's
// token Secret, and the pods the selectors select.
func checkReferences(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	have := map[string]bool{}
	for _, o := range objs {
		have[key(o)] = true
	}
	for _, k := range builtinRoles {
		have[k] = true
	}
	d := find(t, objs, "Deployment", "dra-scheduler")
	podLabels, _, _ := unstructured.NestedStringMap(d.Object, "spec", "template", "metadata", "labels")
	sa, _, _ := unstructured.NestedString(d.Object, "spec", "template", "spec", "serviceAccountName")
	if !have["ServiceAccount "+d.GetNamespace()+"/"+sa] {
		t.Errorf("the Deployment runs as ServiceAccount %s, which the chart does not render", sa)
	}
	selects := func(o *unstructured.Unstructured, fields ...string) {
		t.Helper()
		m, _, _ := unstructured.NestedStringMap(o.Object, fields...)
		if len(m) == 0 || !labels.SelectorFromSet(m).Matches(labels.Set(podLabels)) {
			t.Errorf("%s's %s %v does not select the scheduler's pods %v", key(o), strings.Join(fields, "."), m, podLabels)
		}
	}
	for _, o := range objs {
		switch o.GetKind() {
		case "RoleBinding", "ClusterRoleBinding":
			kind, _, _ := unstructured.NestedString(o.Object, "roleRef", "kind")
			name, _, _ := unstructured.NestedString(o.Object, "roleRef", "name")
			role := kind + " " + name
			if kind == "Role" {
				role = kind + " " + o.GetNamespace() + "/" + name
			}
			if !have[role] {
				t.Errorf("%s binds %s, which the chart does not render", key(o), role)
			}
			subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
			for _, s := range subjects {
				s := s.(map[string]any)
				if s["kind"] == "ServiceAccount" && s["namespace"] == charts.Namespace && !have[fmt.Sprintf("ServiceAccount %s/%s", s["namespace"], s["name"])] {
					t.Errorf("%s binds ServiceAccount %s/%s, which the chart does not render", key(o), s["namespace"], s["name"])
				}
			}
		case "PodDisruptionBudget":
			selects(o, "spec", "selector", "matchLabels")
		case "Service":
			selects(o, "spec", "selector")
		case "PodMonitor":
			selects(o, "spec", "selector", "matchLabels")
			endpoints, _, _ := unstructured.NestedSlice(o.Object, "spec", "podMetricsEndpoints")
			for _, e := range endpoints {
				secret, _, _ := unstructured.NestedString(e.(map[string]any), "authorization", "credentials", "name")
				if !have["Secret "+o.GetNamespace()+"/"+secret] {
					t.Errorf("%s presents the token of Secret %s, which the chart does not render", key(o), secret)
				}
			}
		case "ServiceMonitor":
			m, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector", "matchLabels")
			found := slices.ContainsFunc(objs, func(s *unstructured.Unstructured) bool {
				return s.GetKind() == "Service" && s.GetNamespace() == o.GetNamespace() && labels.SelectorFromSet(m).Matches(labels.Set(s.GetLabels()))
			})
			if !found {
				t.Errorf("%s selects Services %v, and the chart renders none", key(o), m)
			}
		case "Secret":
			if sa := o.GetAnnotations()["kubernetes.io/service-account.name"]; sa != "" && !have["ServiceAccount "+o.GetNamespace()+"/"+sa] {
				t.Errorf("%s is a token of ServiceAccount %s, which the chart does not render", key(o), sa)
			}
		}
	}
}
