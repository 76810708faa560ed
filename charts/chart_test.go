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
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/dra-scheduler/dra-scheduler/charts"
	"github.com/dra-scheduler/dra-scheduler/manifests"
)

// monitoringGroup is the Prometheus operator's API group, whose kinds
// client-go's scheme does not know.
const monitoringGroup = "monitoring.coreos.com"

// TestTheChartRendersWhatKustomizeBuilds is the chart's reference check:
// with the values below (none: the defaults), the chart renders the very
// objects kustomize builds from the manifests, field by field.
func TestTheChartRendersWhatKustomizeBuilds(t *testing.T) {
	inTree := map[string]any{"inTree": map[string]any{"enabled": true}}
	monitoring := map[string]any{"monitoring": map[string]any{"enabled": true}}
	optOut := map[string]any{"admission": map[string]any{"mode": "OptOut"}}
	labelGuard := map[string]any{"admission": map[string]any{"labelGuard": map[string]any{"enabled": true}}}
	podMonitor := map[string]any{"monitoring": map[string]any{"serviceMonitor": map[string]any{"enabled": false}, "podMonitor": map[string]any{"enabled": true}}}
	for _, tc := range []struct {
		name       string
		values     map[string]any
		dir        string
		components []string
	}{
		{"the default values render manifests/install", nil, manifests.InstallDir, nil},
		{"inTree.enabled renders the A/B overlay manifests/overlays/in-tree", inTree, manifests.InTreeOverlayDir, nil},
		{"monitoring.enabled renders manifests/install with the manifests/monitoring component", monitoring, manifests.InstallDir, []string{manifests.MonitoringDir}},
		{"inTree.enabled and monitoring.enabled render the overlay with the monitoring component", merge(inTree, monitoring), manifests.InTreeOverlayDir, []string{manifests.MonitoringDir}},
		{"monitoring.podMonitor.enabled instead of serviceMonitor renders the monitoring and podmonitor components", merge(monitoring, podMonitor), manifests.InstallDir, []string{manifests.MonitoringDir, manifests.PodMonitorDir}},
		{"admission.mode OptOut renders the opt-out component", optOut, manifests.InstallDir, []string{manifests.OptOutDir}},
		{"admission.labelGuard.enabled renders the label-guard component", labelGuard, manifests.InstallDir, []string{manifests.LabelGuardDir}},
		{"both render both components", merge(optOut, labelGuard), manifests.InstallDir, []string{manifests.OptOutDir, manifests.LabelGuardDir}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := manifests.Build(tc.dir, tc.components...)
			if err != nil {
				t.Fatal(err)
			}
			got := render(t, tc.values)
			compareObjects(t, got, want)
		})
	}
}

// compareObjects reports the objects only one side has and, for each
// object both have (same kind, namespace and name), the difference.
func compareObjects(t *testing.T, chart, kustomize []*unstructured.Unstructured) {
	t.Helper()
	got, want := byKey(t, "the chart", chart), byKey(t, "kustomize", kustomize)
	for _, k := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[k]
		if !ok {
			t.Errorf("the chart does not render %s, which kustomize builds", k)
			continue
		}
		if d := cmp.Diff(want[k].Object, g.Object); d != "" {
			t.Errorf("%s differs (-kustomize +chart):\n%s", k, d)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			t.Errorf("the chart renders %s, which kustomize does not build", k)
		}
	}
}

// key names an object as a cluster holds it: kind, namespace, name.
func key(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetKind() + " " + o.GetName()
	}
	return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
}

func byKey(t *testing.T, source string, objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if _, dup := out[key(o)]; dup {
			t.Errorf("%s has %s twice", source, key(o))
		}
		out[key(o)] = o
	}
	return out
}

// render renders the chart into the README's release namespace, failing
// the test on an error.
func render(t *testing.T, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	objs, err := charts.Render(charts.Namespace, values)
	if err != nil {
		t.Fatalf("values %v: %v", values, err)
	}
	return objs
}

// merge merges value trees, later ones winning.
func merge(trees ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, tree := range trees {
		for k, v := range tree {
			if sub, ok := v.(map[string]any); ok {
				if have, ok := out[k].(map[string]any); ok {
					out[k] = merge(have, sub)
					continue
				}
				out[k] = merge(sub)
				continue
			}
			out[k] = v
		}
	}
	return out
}

// set returns the value tree that sets the dotted path to v.
func set(path string, v any) map[string]any {
	parts := strings.Split(path, ".")
	tree := map[string]any{parts[len(parts)-1]: v}
	for i := len(parts) - 2; i >= 0; i-- {
		tree = map[string]any{parts[i]: tree}
	}
	return tree
}

// find returns the object of kind and name among objs, failing the test
// when there is none.
func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("the chart renders no %s %s", kind, name)
	return nil
}

// checkDecodesStrictly checks that every object decodes strictly into its
// API type (the Prometheus operator's kinds: that they have a spec).
func checkDecodesStrictly(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	strict := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	for _, o := range objs {
		if o.GroupVersionKind().Group == monitoringGroup {
			if spec, _, _ := unstructured.NestedMap(o.Object, "spec"); len(spec) == 0 {
				t.Errorf("%s has no spec", key(o))
			}
			continue
		}
		data, err := o.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := strict.Decode(data, nil, nil); err != nil {
			t.Errorf("%s: %v", key(o), err)
		}
	}
}

// checkConfigHash checks that the Deployment's pod template carries the
// SHA-256 of the ConfigMap's configuration, and returns the configuration.
func checkConfigHash(t *testing.T, objs []*unstructured.Unstructured) []byte {
	t.Helper()
	cfg, err := manifests.ConfigOf(objs)
	if err != nil {
		t.Fatal(err)
	}
	d := find(t, objs, "Deployment", "dra-scheduler")
	got, _, _ := unstructured.NestedString(d.Object, "spec", "template", "metadata", "annotations", manifests.ConfigHashAnnotation)
	if want := fmt.Sprintf("%x", sha256.Sum256(cfg)); got != want {
		t.Errorf("the pod template's %s is %q, the ConfigMap's %s hashes to %q: a configuration change would not roll the pods",
			manifests.ConfigHashAnnotation, got, manifests.ConfigKey, want)
	}
	return cfg
}
