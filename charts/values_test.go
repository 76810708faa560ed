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
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/dra-scheduler/dra-scheduler/charts"
	"github.com/dra-scheduler/dra-scheduler/manifests"
	draconfig "github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	drascheme "github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config/scheme"
)

// rendering is the chart rendered with some values, with accessors for
// the objects a check looks at.
type rendering struct {
	t    *testing.T
	objs []*unstructured.Unstructured
}

func (r rendering) deployment() appsv1.Deployment {
	var d appsv1.Deployment
	convert(r.t, find(r.t, r.objs, "Deployment", "dra-scheduler"), &d)
	return d
}

func (r rendering) container() v1.Container {
	return r.deployment().Spec.Template.Spec.Containers[0]
}

// config returns the scheduler configuration, checked as dra-scheduler
// loads it, after checking the pod template carries its hash.
func (r rendering) config() (raw string, args *draconfig.DRAAllocatorArgs, le leaderElection) {
	cfg := checkConfigHash(r.t, r.objs)
	loaded := loadConfig(r.t, cfg)
	l := loaded.LeaderElection
	return string(cfg), draArgs(r.t, loaded), leaderElection{
		on: l.LeaderElect, name: l.ResourceName, namespace: l.ResourceNamespace,
		lease: l.LeaseDuration.Duration, renew: l.RenewDeadline.Duration, retry: l.RetryPeriod.Duration,
		qps: loaded.ClientConnection.QPS, burst: loaded.ClientConnection.Burst,
		scheduler: loaded.Profiles[0].SchedulerName,
	}
}

// leaderElection and the client settings of a configuration.
type leaderElection struct {
	on                  bool
	name, namespace     string
	lease, renew, retry time.Duration
	qps                 float32
	burst               int32
	scheduler           string
}

func convert(t *testing.T, o *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
		t.Fatalf("%s: %v", key(o), err)
	}
}

// TestEachValueShowsInTheRendering sets values away from their defaults
// and checks that each lands where it should, and nowhere it should not.
func TestEachValueShowsInTheRendering(t *testing.T) {
	defaultArgs, err := draArgsOfDefaults()
	if err != nil {
		t.Fatal(err)
	}
	defaultHash := podAnnotation(t, render(t, nil), manifests.ConfigHashAnnotation)
	for _, tc := range []struct {
		name   string
		values map[string]any
		check  func(t *testing.T, r rendering)
	}{
		{"an empty image tag runs the chart's appVersion", nil, func(t *testing.T, r rendering) {
			ch, err := charts.Load()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := r.container().Image, "ghcr.io/dra-scheduler/dra-scheduler:"+ch.Metadata.AppVersion; got != want {
				t.Errorf("image %q, want %q", got, want)
			}
		}},
		{"image.repository and image.tag name the image", merge(set("image.repository", "registry.example.com/dra"), set("image.tag", "v9")), func(t *testing.T, r rendering) {
			if got := r.container().Image; got != "registry.example.com/dra:v9" {
				t.Errorf("image %q", got)
			}
		}},
		{"image.digest replaces the tag", merge(set("image.tag", "v9"), set("image.digest", "sha256:"+strings.Repeat("ab", 32))), func(t *testing.T, r rendering) {
			if got, want := r.container().Image, "ghcr.io/dra-scheduler/dra-scheduler@sha256:"+strings.Repeat("ab", 32); got != want {
				t.Errorf("image %q, want %q", got, want)
			}
		}},
		{"image.pullPolicy and imagePullSecrets reach the pod", merge(set("image.pullPolicy", "Always"), set("imagePullSecrets", []any{map[string]any{"name": "regcred"}})), func(t *testing.T, r rendering) {
			if got := r.container().ImagePullPolicy; got != v1.PullAlways {
				t.Errorf("imagePullPolicy %q", got)
			}
			if got := r.deployment().Spec.Template.Spec.ImagePullSecrets; !slices.Equal(got, []v1.LocalObjectReference{{Name: "regcred"}}) {
				t.Errorf("imagePullSecrets %v", got)
			}
		}},
		{"replicas, resources and the pod's placement settings reach the pod", merge(
			set("replicas", 3),
			set("resources", map[string]any{"requests": map[string]any{"cpu": "2", "memory": "4Gi"}}),
			set("nodeSelector", map[string]any{"node-role.kubernetes.io/control-plane": ""}),
			set("tolerations", []any{map[string]any{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"}}),
			set("affinity", nil),
			set("topologySpreadConstraints", []any{map[string]any{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway",
				"labelSelector": map[string]any{"matchLabels": map[string]any{"app.kubernetes.io/name": "dra-scheduler"}}}}),
			set("priorityClassName", ""),
			set("podAnnotations", map[string]any{"example.com/team": "ml"}),
		), func(t *testing.T, r rendering) {
			d := r.deployment()
			spec := d.Spec.Template.Spec
			if *d.Spec.Replicas != 3 {
				t.Errorf("replicas %d", *d.Spec.Replicas)
			}
			if res := spec.Containers[0].Resources; res.Requests.Cpu().String() != "2" || res.Requests.Memory().String() != "4Gi" || res.Limits.Memory().String() != "2Gi" {
				t.Errorf("resources %v", res)
			}
			if spec.NodeSelector["node-role.kubernetes.io/control-plane"] != "" || len(spec.NodeSelector) != 1 {
				t.Errorf("nodeSelector %v", spec.NodeSelector)
			}
			if len(spec.Tolerations) != 1 || spec.Tolerations[0].Effect != v1.TaintEffectNoSchedule {
				t.Errorf("tolerations %v", spec.Tolerations)
			}
			if spec.Affinity != nil {
				t.Errorf("affinity %v, want none", spec.Affinity)
			}
			if len(spec.TopologySpreadConstraints) != 1 || spec.TopologySpreadConstraints[0].TopologyKey != "topology.kubernetes.io/zone" {
				t.Errorf("topologySpreadConstraints %v", spec.TopologySpreadConstraints)
			}
			if spec.PriorityClassName != "" {
				t.Errorf("priorityClassName %q, want none", spec.PriorityClassName)
			}
			if a := d.Spec.Template.Annotations; a["example.com/team"] != "ml" || a[manifests.ConfigHashAnnotation] != defaultHash {
				t.Errorf("pod annotations %v, want example.com/team and the unchanged config hash", a)
			}
		}},
		{"every plugin arg reaches DRAAllocator, and the new configuration rolls the pods", merge(
			set("plugin.weight", 10),
			set("plugin.placementWeight", 5),
			set("plugin.args", map[string]any{"filterTimeout": "0s", "bindingTimeout": "5m", "scoringStrategy": map[string]any{"type": "MostAllocated"},
				"deviceSelectionPolicy": "Packing", "preemption": "Disabled", "placementScoring": "LeastAllocated", "maxPlacements": 0,
				"consistencyCheckInterval": "0s"}),
		), func(t *testing.T, r rendering) {
			raw, args, _ := r.config()
			want := draconfig.DRAAllocatorArgs{
				FilterTimeout: metav1.Duration{}, BindingTimeout: metav1.Duration{Duration: 5 * time.Minute},
				ScoringStrategy:       draconfig.ScoringStrategy{Type: draconfig.MostAllocated},
				DeviceSelectionPolicy: draconfig.Packing, Preemption: draconfig.PreemptionDisabled,
				PlacementScoring: draconfig.PlacementLeastAllocated, MaxPlacements: 0,
				ConsistencyCheckInterval: metav1.Duration{},
			}
			if d := cmp.Diff(want, *args); d != "" {
				t.Errorf("DRAAllocator args (-want +got):\n%s", d)
			}
			if !slices.Contains(loadConfig(t, []byte(raw)).Profiles[0].Plugins.MultiPoint.Enabled, schedconfig.Plugin{Name: "DRAAllocator", Weight: 10}) {
				t.Errorf("the profile does not give DRAAllocator weight 10:\n%s", raw)
			}
			if !slices.Contains(loadConfig(t, []byte(raw)).Profiles[0].Plugins.PlacementScore.Enabled, schedconfig.Plugin{Name: "DRAAllocator", Weight: 5}) {
				t.Errorf("the profile does not give DRAAllocator placement weight 5:\n%s", raw)
			}
			if podAnnotation(t, r.objs, manifests.ConfigHashAnnotation) == defaultHash {
				t.Error("the pod template's config hash did not change: an upgrade would not roll the pods")
			}
		}},
		{"null plugin args are left to the plugin's defaults", set("plugin.args", map[string]any{"filterTimeout": nil, "bindingTimeout": nil,
			"scoringStrategy": nil, "deviceSelectionPolicy": nil, "preemption": nil, "placementScoring": nil, "maxPlacements": nil,
			"consistencyCheckInterval": nil}), func(t *testing.T, r rendering) {
			raw, args, _ := r.config()
			if !strings.Contains(raw, "args: {}") {
				t.Errorf("the DRAAllocator args are not empty:\n%s", raw)
			}
			if *args != *defaultArgs {
				t.Errorf("args %+v, want the defaults %+v", *args, *defaultArgs)
			}
		}},
		{"the in-tree mode gives DynamicResources the plugin timeouts and leaves DRAAllocator out", merge(set("inTree.enabled", true), set("plugin.args.filterTimeout", "3s"),
			set("plugin.args.preemption", "Disabled")), func(t *testing.T, r rendering) {
			raw, _, _ := r.config()
			if !strings.Contains(raw, "- name: DynamicResources\n    args:\n      filterTimeout: 3s\n      bindingTimeout: 600s\n") || strings.Contains(raw, "DRAAllocator") || strings.Contains(raw, "preemption") {
				t.Errorf("configuration:\n%s", raw)
			}
		}},
		{"schedulerName names the profile and the scheduler the admission policies require and set", set("schedulerName", "gpu-scheduler"), func(t *testing.T, r rendering) {
			_, _, le := r.config()
			if le.scheduler != "gpu-scheduler" {
				t.Errorf("profile schedulerName %q", le.scheduler)
			}
			for _, o := range r.objs {
				if o.GroupVersionKind().Group != "admissionregistration.k8s.io" || strings.HasSuffix(o.GetKind(), "Binding") {
					continue
				}
				data, _ := json.Marshal(o.Object["spec"])
				if strings.Contains(string(data), "'dra-scheduler'") || strings.Contains(string(data), `\"dra-scheduler\"`) ||
					!strings.Contains(string(data), "gpu-scheduler") {
					t.Errorf("%s does not name gpu-scheduler alone: %s", key(o), data)
				}
			}
		}},
		{"the client rate and the leader election settings reach the configuration and the Role", merge(
			set("clientConnection", map[string]any{"qps": 250, "burst": 500}),
			set("leaderElection", map[string]any{"leaseName": "gpu-scheduler-lease", "leaseDuration": "30s", "renewDeadline": "20s", "retryPeriod": "4s"}),
		), func(t *testing.T, r rendering) {
			_, _, le := r.config()
			want := leaderElection{on: true, name: "gpu-scheduler-lease", namespace: charts.Namespace, lease: 30 * time.Second, renew: 20 * time.Second, retry: 4 * time.Second,
				qps: 250, burst: 500, scheduler: "dra-scheduler"}
			if le != want {
				t.Errorf("configuration %+v, want %+v", le, want)
			}
			var role rbacv1.Role
			convert(t, find(t, r.objs, "Role", "dra-scheduler-leader-election"), &role)
			if !slices.ContainsFunc(role.Rules, func(p rbacv1.PolicyRule) bool {
				return slices.Equal(p.ResourceNames, []string{"gpu-scheduler-lease"}) && slices.Contains(p.Verbs, "update")
			}) {
				t.Errorf("the Role does not let the scheduler update its Lease: %+v", role.Rules)
			}
		}},
		{"one replica without leader election has no Lease and no Role for it", merge(set("leaderElection.enabled", false), set("replicas", 1)), func(t *testing.T, r rendering) {
			_, _, le := r.config()
			if le.on {
				t.Error("leaderElect is on")
			}
			for _, o := range r.objs {
				if o.GetName() == "dra-scheduler-leader-election" {
					t.Errorf("%s rendered", key(o))
				}
			}
		}},
		{"featureGates, logLevel and extraArgs become flags after --config", merge(
			set("featureGates", map[string]any{"SchedulerPreQueueingHints": false, "DRAPartitionableDevices": true}),
			set("logLevel", 4),
			set("extraArgs", []any{"--kube-api-content-type=application/json"}),
		), func(t *testing.T, r rendering) {
			want := []string{"--config=/etc/dra-scheduler/config.yaml", "--feature-gates=DRAPartitionableDevices=true,SchedulerPreQueueingHints=false",
				"--v=4", "--kube-api-content-type=application/json"}
			if got := r.container().Args; !slices.Equal(got, want) {
				t.Errorf("args %q, want %q", got, want)
			}
		}},
		{"no feature gates: no --feature-gates flag", set("featureGates", nil), func(t *testing.T, r rendering) {
			if got := r.container().Args; slices.ContainsFunc(got, func(a string) bool { return strings.HasPrefix(a, "--feature-gates") }) {
				t.Errorf("args %q", got)
			}
		}},
		{"podDisruptionBudget.minAvailable replaces maxUnavailable", set("podDisruptionBudget.minAvailable", "50%"), func(t *testing.T, r rendering) {
			var pdb policyv1.PodDisruptionBudget
			convert(t, find(t, r.objs, "PodDisruptionBudget", "dra-scheduler"), &pdb)
			if pdb.Spec.MaxUnavailable != nil || pdb.Spec.MinAvailable == nil || *pdb.Spec.MinAvailable != intstr.FromString("50%") {
				t.Errorf("PodDisruptionBudget spec %+v", pdb.Spec)
			}
		}},
		{"podDisruptionBudget.maxUnavailable sets the budget", set("podDisruptionBudget.maxUnavailable", 2), func(t *testing.T, r rendering) {
			var pdb policyv1.PodDisruptionBudget
			convert(t, find(t, r.objs, "PodDisruptionBudget", "dra-scheduler"), &pdb)
			if pdb.Spec.MaxUnavailable == nil || *pdb.Spec.MaxUnavailable != intstr.FromInt32(2) || pdb.Spec.MinAvailable != nil {
				t.Errorf("PodDisruptionBudget spec %+v", pdb.Spec)
			}
		}},
		{"allocationGuard.drivers limits the guard to those drivers' devices", set("allocationGuard.drivers", []any{"gpu.example.com"}), func(t *testing.T, r rendering) {
			policy := find(t, r.objs, "ValidatingAdmissionPolicy", "dra-scheduler-allocates")
			conditions, _, _ := unstructured.NestedSlice(policy.Object, "spec", "matchConditions")
			var exprs []string
			for _, c := range conditions {
				exprs = append(exprs, c.(map[string]any)["expression"].(string))
			}
			if !slices.ContainsFunc(exprs, func(e string) bool { return strings.Contains(e, "r.driver in ['gpu.example.com']") }) {
				t.Errorf("match conditions %q do not limit the guard to gpu.example.com", exprs)
			}
		}},
		{"allocationGuard.enabled false leaves the guard out", set("allocationGuard.enabled", false), func(t *testing.T, r rendering) {
			for _, o := range r.objs {
				if o.GetName() == "dra-scheduler-allocates" {
					t.Errorf("%s rendered", key(o))
				}
			}
		}},
		{"the admission label selects the namespaces the policies guard", merge(set("admission.namespaceLabel", "example.com/gpu-team"), set("admission.namespaceLabelValue", "yes")), func(t *testing.T, r rendering) {
			bindings := 0
			for _, o := range r.objs {
				if !strings.HasSuffix(o.GetKind(), "AdmissionPolicyBinding") || o.GetName() == "dra-scheduler-allocates" {
					// The allocation guard holds in every namespace.
					continue
				}
				bindings++
				got, _, _ := unstructured.NestedStringMap(o.Object, "spec", "matchResources", "namespaceSelector", "matchLabels")
				if !cmp.Equal(got, map[string]string{"example.com/gpu-team": "yes"}) {
					t.Errorf("%s selects namespaces %v", key(o), got)
				}
			}
			if bindings != 4 {
				t.Errorf("%d policy bindings, want 4", bindings)
			}
		}},
		{"admission.mode OptOut routes every namespace but kube-system, the excluded ones and those labelled out", merge(
			set("admission.mode", "OptOut"),
			set("admission.excludedNamespaces", []any{"batch", "kube-system"}),
			set("admission.namespaceLabel", "example.com/gpu-team"),
			set("admission.optOutLabelValue", "no"),
		), func(t *testing.T, r rendering) {
			want := []any{
				map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": []any{"kube-system", "batch"}},
				map[string]any{"key": "example.com/gpu-team", "operator": "NotIn", "values": []any{"no"}},
			}
			bindings := 0
			for _, o := range r.objs {
				if !strings.HasSuffix(o.GetKind(), "AdmissionPolicyBinding") || o.GetName() == "dra-scheduler-allocates" {
					continue
				}
				bindings++
				selector, _, _ := unstructured.NestedMap(o.Object, "spec", "matchResources", "namespaceSelector")
				if d := cmp.Diff(map[string]any{"matchExpressions": want}, selector); d != "" {
					t.Errorf("%s selects namespaces (-want +got):\n%s", key(o), d)
				}
			}
			if bindings != 4 {
				t.Errorf("%d policy bindings, want 4", bindings)
			}
		}},
		{"admission.labelGuard lets the admin groups alone change the namespace label", merge(
			set("admission.labelGuard", map[string]any{"enabled": true, "adminGroups": []any{"platform-admins", `team "a"`}}),
			set("admission.namespaceLabel", "example.com/gpu-team"),
		), func(t *testing.T, r rendering) {
			policy := find(t, r.objs, "ValidatingAdmissionPolicy", "dra-scheduler-enforce-label")
			find(t, r.objs, "ValidatingAdmissionPolicyBinding", "dra-scheduler-enforce-label")
			variables, _, _ := unstructured.NestedSlice(policy.Object, "spec", "variables")
			if len(variables) == 0 || variables[0].(map[string]any)["expression"] != `["platform-admins","team \"a\""]` {
				t.Errorf("variables %v: want the admin groups as a CEL list first", variables)
			}
			conditions, _, _ := unstructured.NestedSlice(policy.Object, "spec", "matchConditions")
			if len(conditions) != 1 || !strings.Contains(conditions[0].(map[string]any)["expression"].(string), "'example.com/gpu-team'") {
				t.Errorf("matchConditions %v: want the namespace label", conditions)
			}
		}},
		{"admission.labelGuard is left out without the admission policies", merge(set("admission.labelGuard.enabled", true), set("admission.enabled", false)), func(t *testing.T, r rendering) {
			for _, o := range r.objs {
				if o.GetName() == "dra-scheduler-enforce-label" {
					t.Errorf("%s rendered", key(o))
				}
			}
		}},
		{"commonLabels label every object, and no selector", merge(set("commonLabels", map[string]any{"example.com/owner": "platform"}), set("monitoring.enabled", true)), func(t *testing.T, r rendering) {
			for _, o := range r.objs {
				if o.GetLabels()["example.com/owner"] != "platform" {
					t.Errorf("%s is not labelled: %v", key(o), o.GetLabels())
				}
			}
			d := r.deployment()
			if d.Spec.Selector.MatchLabels["example.com/owner"] != "" || d.Spec.Template.Labels["example.com/owner"] != "platform" {
				t.Errorf("selector %v, pod labels %v: want the label on the pods only", d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
			}
		}},
		{"namespace.create=false leaves the namespace out", set("namespace.create", false), func(t *testing.T, r rendering) {
			for _, o := range r.objs {
				if o.GetKind() == "Namespace" {
					t.Errorf("%s rendered", key(o))
				}
			}
		}},
		{"the monitoring parts take their labels, interval, namespace and Prometheus' ServiceAccount", merge(
			set("monitoring.enabled", true),
			set("monitoring.serviceMonitor", map[string]any{"interval": "15s", "labels": map[string]any{"release": "kube-prometheus-stack"}}),
			set("monitoring.podMonitor.enabled", false),
			set("monitoring.prometheusRule.labels", map[string]any{"release": "kube-prometheus-stack"}),
			set("monitoring.grafanaDashboard", map[string]any{"namespace": "grafana", "labels": map[string]any{"grafana_dashboard": "dra"}}),
			set("monitoring.prometheusServiceAccount", map[string]any{"name": "prometheus", "namespace": "observability"}),
		), func(t *testing.T, r rendering) {
			sm := find(t, r.objs, "ServiceMonitor", "dra-scheduler")
			endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
			if sm.GetLabels()["release"] != "kube-prometheus-stack" || len(endpoints) != 1 || endpoints[0].(map[string]any)["interval"] != "15s" {
				t.Errorf("ServiceMonitor labels %v, endpoints %v", sm.GetLabels(), endpoints)
			}
			if pr := find(t, r.objs, "PrometheusRule", "dra-scheduler"); pr.GetLabels()["release"] != "kube-prometheus-stack" {
				t.Errorf("PrometheusRule labels %v", pr.GetLabels())
			}
			if cm := find(t, r.objs, "ConfigMap", "dra-scheduler-dashboard"); cm.GetNamespace() != "grafana" || !cmp.Equal(cm.GetLabels(), map[string]string{"grafana_dashboard": "dra"}) {
				t.Errorf("dashboard ConfigMap in %q labelled %v", cm.GetNamespace(), cm.GetLabels())
			}
			var crb rbacv1.ClusterRoleBinding
			convert(t, find(t, r.objs, "ClusterRoleBinding", "dra-scheduler-metrics-reader"), &crb)
			if want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "prometheus", Namespace: "observability"}}; !cmp.Equal(crb.Subjects, want) {
				t.Errorf("the metrics reader is bound to %v, want %v", crb.Subjects, want)
			}
		}},
		{"the Prometheus rule's templates reach Prometheus unrendered", set("monitoring.enabled", true), func(t *testing.T, r rendering) {
			data, _ := json.Marshal(find(t, r.objs, "PrometheusRule", "dra-scheduler").Object)
			for _, s := range []string{"{{ $labels.extension_point }}", "{{ $labels.kind }}", "{{ $value }}", "{{ $labels.profile }}"} {
				if !strings.Contains(string(data), s) {
					t.Errorf("the PrometheusRule lost %s", s)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, tc.values)
			checkDecodesStrictly(t, objs)
			tc.check(t, rendering{t: t, objs: objs})
		})
	}
}

// TestAnotherReleaseNamespaceHoldsTheNamespacedObjectsAndTheLease: the
// chart follows --namespace; what lives elsewhere (kube-system's
// RoleBinding, Prometheus' ServiceAccount) stays there.
func TestAnotherReleaseNamespaceHoldsTheNamespacedObjectsAndTheLease(t *testing.T) {
	objs, err := charts.Render("gpu-system", set("monitoring.enabled", true))
	if err != nil {
		t.Fatal(err)
	}
	r := rendering{t: t, objs: objs}
	for _, o := range objs {
		switch {
		case o.GetKind() == "Namespace":
			if o.GetName() != "gpu-system" {
				t.Errorf("%s rendered", key(o))
			}
		case o.GetNamespace() == "" || o.GetNamespace() == "gpu-system":
		case o.GetKind() == "RoleBinding" && o.GetNamespace() == "kube-system":
		default:
			t.Errorf("%s is outside the release namespace", key(o))
		}
	}
	if _, _, le := r.config(); le.namespace != "gpu-system" {
		t.Errorf("the Lease is in %q", le.namespace)
	}
	var crb rbacv1.ClusterRoleBinding
	convert(t, find(t, objs, "ClusterRoleBinding", "dra-scheduler"), &crb)
	if crb.Subjects[0].Namespace != "gpu-system" {
		t.Errorf("the ClusterRole is bound to %+v", crb.Subjects)
	}
}

// TestTheChartRefusesToTakeOverASharedNamespace: with namespace.create, a
// release in default or a kube-* namespace would make it part of the
// release; the chart refuses, saying what to do.
func TestTheChartRefusesToTakeOverASharedNamespace(t *testing.T) {
	for _, ns := range []string{"default", "kube-system"} {
		_, err := charts.Render(ns, nil)
		if err == nil || !strings.Contains(err.Error(), "namespace.create") || !strings.Contains(err.Error(), ns) {
			t.Errorf("release namespace %s: %v, want a refusal naming namespace.create", ns, err)
		}
		if _, err := charts.Render(ns, set("namespace.create", false)); err != nil {
			t.Errorf("release namespace %s with namespace.create=false: %v", ns, err)
		}
	}
}

// TestTheChartRefusesReplicasWithoutLeaderElection: two replicas without
// leader election would be two schedulers allocating the same devices.
func TestTheChartRefusesReplicasWithoutLeaderElection(t *testing.T) {
	_, err := charts.Render(charts.Namespace, set("leaderElection.enabled", false))
	if err == nil || !strings.Contains(err.Error(), "leaderElection.enabled") || !strings.Contains(err.Error(), "replicas") {
		t.Errorf("2 replicas without leader election: %v, want a refusal naming leaderElection.enabled and replicas", err)
	}
}

// draArgsOfDefaults returns the args DRAAllocator runs with when its
// pluginConfig sets none.
func draArgsOfDefaults() (*draconfig.DRAAllocatorArgs, error) { return drascheme.Decode(nil) }

// TestTheSchemaRefusesBadValuesNamingThem: values.schema.json refuses a
// misspelt, mistyped or out-of-range value before anything renders, and
// the error names the value.
func TestTheSchemaRefusesBadValuesNamingThem(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values map[string]any
		says   []string
	}{
		{"an unknown top-level value is refused", set("replica", 3), []string{"'replica'"}},
		{"replicas given as a word is refused", set("replicas", "two"), []string{"/replicas", "want integer"}},
		{"a misspelt plugin arg is refused", set("plugin.args.premption", "Disabled"), []string{"/plugin/args", "'premption'"}},
		{"preemption other than Enabled or Disabled is refused", set("plugin.args.preemption", "Maybe"), []string{"/plugin/args/preemption", "Enabled", "Disabled"}},
		{"an unknown scoring strategy is refused", set("plugin.args.scoringStrategy.type", "Fastest"), []string{"/plugin/args/scoringStrategy/type", "MostAllocated"}},
		{"an unknown device selection policy is refused", set("plugin.args.deviceSelectionPolicy", "BestFit"), []string{"/plugin/args/deviceSelectionPolicy", "Packing"}},
		{"a timeout without a unit is refused", set("plugin.args.filterTimeout", "10"), []string{"/plugin/args/filterTimeout"}},
		{"a zero bindingTimeout is refused", set("plugin.args.bindingTimeout", "0s"), []string{"/plugin/args/bindingTimeout"}},
		{"a plugin weight of 0 is refused", set("plugin.weight", 0), []string{"/plugin/weight"}},
		{"a scheduler name that is no DNS name is refused", set("schedulerName", "DRA scheduler"), []string{"/schedulerName"}},
		{"a feature gate set to a word is refused", set("featureGates.SchedulerPreQueueingHints", "yes"), []string{"/featureGates/SchedulerPreQueueingHints", "want boolean"}},
		{"an extra arg that is no flag is refused", set("extraArgs", []any{"v=4"}), []string{"/extraArgs/0"}},
		{"an unknown pull policy is refused", set("image.pullPolicy", "Sometimes"), []string{"/image/pullPolicy"}},
		{"a digest without its algorithm is refused", set("image.digest", strings.Repeat("ab", 32)), []string{"/image/digest"}},
		{"a misspelt image value is refused", set("image.tags", "v1"), []string{"/image", "'tags'"}},
		{"a budget that is neither a number nor a percentage is refused", set("podDisruptionBudget.minAvailable", "half"), []string{"/podDisruptionBudget/minAvailable"}},
		{"a misspelt monitoring part is refused", set("monitoring.serviceMonitors.enabled", true), []string{"/monitoring", "'serviceMonitors'"}},
		{"a monitoring switch given as a string is refused", set("monitoring.podMonitor.enabled", "false"), []string{"/monitoring/podMonitor/enabled", "want boolean"}},
		{"an admission label that is no label key is refused", set("admission.namespaceLabel", "not a label"), []string{"/admission/namespaceLabel"}},
		{"an unknown routing mode is refused", set("admission.mode", "optout"), []string{"/admission/mode"}},
		{"a label guard without admin groups is refused", set("admission.labelGuard.adminGroups", []any{}), []string{"/admission/labelGuard/adminGroups"}},
		{"an excluded namespace that is no namespace name is refused", set("admission.excludedNamespaces", []any{"Batch"}), []string{"/admission/excludedNamespaces/0"}},
		{"an unknown resources field is refused", set("resources.request", map[string]any{"cpu": "1"}), []string{"/resources", "'request'"}},
		{"a client qps of 0 is refused", set("clientConnection.qps", 0), []string{"/clientConnection/qps"}},
		{"inTree given as a bare boolean is refused", set("inTree", true), []string{"/inTree", "want object"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := charts.Render(charts.Namespace, tc.values)
			if err == nil {
				t.Fatalf("values %v rendered", tc.values)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("the error does not say %q:\n%v", s, err)
				}
			}
		})
	}
}

// TestTheSchemaOffersExactlyThePluginsChoices keeps the enums of
// values.schema.json equal to what DRAAllocator accepts.
func TestTheSchemaOffersExactlyThePluginsChoices(t *testing.T) {
	ch, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(ch.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	enum := func(path ...string) []string {
		node := schema
		for _, p := range path {
			node = node["properties"].(map[string]any)[p].(map[string]any)
		}
		var out []string
		for _, v := range node["enum"].([]any) {
			if v != nil {
				out = append(out, v.(string))
			}
		}
		slices.Sort(out)
		return out
	}
	toStrings := func(vs ...string) []string { slices.Sort(vs); return vs }
	var strategies, policies []string
	for _, s := range draconfig.ScoringStrategyTypes() {
		strategies = append(strategies, string(s))
	}
	for _, p := range draconfig.DeviceSelectionPolicies() {
		policies = append(policies, string(p))
	}
	for _, tc := range []struct {
		path []string
		want []string
	}{
		{[]string{"plugin", "args", "scoringStrategy", "type"}, toStrings(strategies...)},
		{[]string{"plugin", "args", "deviceSelectionPolicy"}, toStrings(policies...)},
		{[]string{"plugin", "args", "preemption"}, toStrings(string(draconfig.PreemptionEnabled), string(draconfig.PreemptionDisabled))},
	} {
		if got := enum(tc.path...); !slices.Equal(got, tc.want) {
			t.Errorf("values.schema.json offers %v for %s, DRAAllocator accepts %v", got, strings.Join(tc.path, "."), tc.want)
		}
	}
}

// podAnnotation returns an annotation of the Deployment's pod template.
func podAnnotation(t *testing.T, objs []*unstructured.Unstructured, name string) string {
	t.Helper()
	v, _, _ := unstructured.NestedString(find(t, objs, "Deployment", "dra-scheduler").Object, "spec", "template", "metadata", "annotations", name)
	return v
}

// TestEveryValueIsTypedAndDocumented walks values.yaml: every value has
// its type in values.schema.json and a row in README.md, which names it
// in full (`plugin.args.preemption`) or after a sibling
// (`clientConnection.qps`, `.burst`).
func TestEveryValueIsTypedAndDocumented(t *testing.T) {
	ch, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(ch.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	readme, err := charts.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for line := range strings.Lines(string(readme)) {
		if strings.HasPrefix(line, "| `") {
			rows = append(rows, line)
		}
	}
	documented := func(path string) bool {
		i := strings.LastIndex(path, ".")
		return slices.ContainsFunc(rows, func(row string) bool {
			cell := strings.SplitN(row, "|", 3)[1]
			return strings.Contains(cell, "`"+path+"`") ||
				i > 0 && strings.Contains(cell, "`"+path[:i+1]) && strings.Contains(cell, "`"+path[i:]+"`")
		})
	}
	paths := 0
	var walk func(prefix string, values map[string]any, node map[string]any)
	walk = func(prefix string, values map[string]any, node map[string]any) {
		props, _ := node["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(values)) {
			path := strings.TrimPrefix(prefix+"."+name, ".")
			sub, typed := props[name].(map[string]any)
			if !typed {
				t.Errorf("values.schema.json does not type %s", path)
				continue
			}
			if m, ok := values[name].(map[string]any); ok && sub["properties"] != nil && !documented(path) {
				walk(path, m, sub)
				continue
			}
			paths++
			if !documented(path) {
				t.Errorf("README.md has no row for %s", path)
			}
		}
	}
	walk("", ch.Values, schema)
	if paths < 40 {
		t.Errorf("only %d values found in values.yaml", paths)
	}
}

// TestTheNotesSayHowToCheckAndOptIn: what helm install prints follows
// the values: the scheduler name, the Lease, the namespace label, the mode.
func TestTheNotesSayHowToCheckAndOptIn(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values map[string]any
		say    []string
		sayNot []string
	}{
		{"the defaults name the scheduler, its Lease and the label that opts a namespace in", nil,
			[]string{"spec.schedulerName: dra-scheduler", "with DRAAllocator", "get lease dra-scheduler", "kubectl label namespace <namespace> dra-scheduler.io/enforce=true"},
			[]string{"in-tree"}},
		{"the in-tree mode says so, and how to go back", set("inTree.enabled", true),
			[]string{"the in-tree DynamicResources plugin", "--set inTree.enabled=false"}, nil},
		{"OptOut says which namespaces are routed and how to opt one out", merge(set("admission.mode", "OptOut"), set("admission.excludedNamespaces", []any{"batch"})),
			[]string{"Every namespace but kube-system, batch is routed", "kubectl label namespace <namespace> dra-scheduler.io/enforce=false"}, []string{"enforce=true", "Only members of"}},
		{"the label guard says who may change the label", set("admission.labelGuard.enabled", true),
			[]string{"Only members of system:masters may set, change or remove that label"}, nil},
		{"without the admission policies, pods must name the scheduler themselves", merge(set("admission.enabled", false), set("schedulerName", "gpu")),
			[]string{"pods must set spec.schedulerName: gpu themselves"}, []string{"kubectl label namespace"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			notes, err := charts.Notes(charts.Namespace, tc.values)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.say {
				if !strings.Contains(notes, s) {
					t.Errorf("the notes do not say %q:\n%s", s, notes)
				}
			}
			for _, s := range tc.sayNot {
				if strings.Contains(notes, s) {
					t.Errorf("the notes say %q:\n%s", s, notes)
				}
			}
		})
	}
}
