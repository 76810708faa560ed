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

package manifests_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dra-scheduler/dra-scheduler/manifests"
)

// monitoringGroup is the Prometheus operator's API group.
const monitoringGroup = "monitoring.coreos.com"

// monitoringObjects returns the objects of the install with the given
// monitoring components (none: MonitoringDir alone), by kind and name.
func monitoringObjects(t *testing.T, components ...string) map[string]*unstructured.Unstructured {
	t.Helper()
	if len(components) == 0 {
		components = []string{manifests.MonitoringDir}
	}
	objs, err := manifests.Build(manifests.InstallDir, components...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		out[o.GetKind()+"/"+o.GetName()] = o
	}
	return out
}

// convert converts o into into.
func convert(t *testing.T, o *unstructured.Unstructured, into any) {
	t.Helper()
	if o == nil {
		t.Fatal("object missing")
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

func matchLabelsOf(t *testing.T, o *unstructured.Unstructured, fields ...string) labels.Selector {
	t.Helper()
	m, _, err := unstructured.NestedStringMap(o.Object, fields...)
	if err != nil || len(m) == 0 {
		t.Fatalf("%s %s: no %s", o.GetKind(), o.GetName(), strings.Join(fields, "."))
	}
	return labels.SelectorFromSet(m)
}

func TestTheMonitoringComponentScrapesTheScheduler(t *testing.T) {
	var d appsv1.Deployment
	typed(t, manifests.InstallDir, "Deployment", schedulerName, &d)
	podLabels := labels.Set(d.Spec.Template.Labels)
	containerPorts := map[string]int32{}
	for _, p := range d.Spec.Template.Spec.Containers[0].Ports {
		containerPorts[p.Name] = p.ContainerPort
	}
	objs := monitoringObjects(t)
	if objs["PodMonitor/dra-scheduler"] != nil {
		t.Error("the monitoring component has a PodMonitor beside its ServiceMonitor: every series would be scraped twice")
	}

	var svc v1.Service
	convert(t, objs["Service/dra-scheduler-metrics"], &svc)
	if svc.Namespace != d.Namespace || !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) {
		t.Errorf("Service %s/%s selects %v, want the Deployment's pods in %s", svc.Namespace, svc.Name, svc.Spec.Selector, d.Namespace)
	}
	if len(svc.Spec.Ports) != 1 || containerPorts[svc.Spec.Ports[0].TargetPort.String()] != 10259 {
		t.Errorf("Service ports %v: want one whose targetPort names the container's secure port 10259", svc.Spec.Ports)
	}

	sm := objs["ServiceMonitor/dra-scheduler"]
	if sm == nil || sm.GetNamespace() != d.Namespace {
		t.Fatal("no ServiceMonitor dra-scheduler in the scheduler's namespace")
	}
	if !matchLabelsOf(t, sm, "spec", "selector", "matchLabels").Matches(labels.Set(svc.Labels)) {
		t.Errorf("the ServiceMonitor does not select the Service (labels %v)", svc.Labels)
	}
	endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(endpoints) != 1 {
		t.Fatalf("ServiceMonitor endpoints %v, want one", endpoints)
	}
	ep := endpoints[0].(map[string]any)
	if ep["port"] != svc.Spec.Ports[0].Name || ep["scheme"] != "https" || ep["path"] != "/metrics" || ep["bearerTokenFile"] == nil {
		t.Errorf("ServiceMonitor endpoint %v: want port %s, HTTPS, /metrics, with Prometheus' token", ep, svc.Spec.Ports[0].Name)
	}

	// The podmonitor component swaps the ServiceMonitor for a PodMonitor.
	objs = monitoringObjects(t, manifests.MonitoringDir, manifests.PodMonitorDir)
	if objs["ServiceMonitor/dra-scheduler"] != nil {
		t.Error("the podmonitor component keeps the ServiceMonitor beside its PodMonitor: every series would be scraped twice")
	}
	pm := objs["PodMonitor/dra-scheduler"]
	if pm == nil || pm.GetNamespace() != d.Namespace {
		t.Fatal("no PodMonitor dra-scheduler in the scheduler's namespace")
	}
	if !matchLabelsOf(t, pm, "spec", "selector", "matchLabels").Matches(podLabels) {
		t.Error("the PodMonitor does not select the Deployment's pods")
	}
	pmEndpoints, _, _ := unstructured.NestedSlice(pm.Object, "spec", "podMetricsEndpoints")
	if len(pmEndpoints) != 1 {
		t.Fatalf("PodMonitor endpoints %v, want one", pmEndpoints)
	}
	pep := pmEndpoints[0].(map[string]any)
	secretName, _, _ := unstructured.NestedString(pep, "authorization", "credentials", "name")
	if containerPorts[pep["port"].(string)] != 10259 || pep["scheme"] != "https" || secretName == "" {
		t.Errorf("PodMonitor endpoint %v: want the container's secure port, HTTPS and a token secret", pep)
	}
	var secret v1.Secret
	convert(t, objs["Secret/"+secretName], &secret)
	scraper := secret.Annotations[v1.ServiceAccountNameKey]
	if secret.Type != v1.SecretTypeServiceAccountToken || objs["ServiceAccount/"+scraper] == nil {
		t.Errorf("Secret %s: type %s for ServiceAccount %q; want a token of a ServiceAccount the component creates", secretName, secret.Type, scraper)
	}

	var role rbacv1.ClusterRole
	convert(t, objs["ClusterRole/dra-scheduler-metrics-reader"], &role)
	if len(role.Rules) != 1 || !slices.Equal(role.Rules[0].NonResourceURLs, []string{"/metrics"}) || !slices.Equal(role.Rules[0].Verbs, []string{"get"}) {
		t.Errorf("metrics reader rules %v: want exactly GET /metrics", role.Rules)
	}
	var binding rbacv1.ClusterRoleBinding
	convert(t, objs["ClusterRoleBinding/dra-scheduler-metrics-reader"], &binding)
	if binding.RoleRef.Name != role.Name || !slices.ContainsFunc(binding.Subjects, func(s rbacv1.Subject) bool {
		return s.Kind == "ServiceAccount" && s.Name == scraper && s.Namespace == d.Namespace
	}) {
		t.Errorf("the binding %v does not give %s the metrics reader role", binding.Subjects, scraper)
	}
}

func TestTheAlertsUseMetricsTheSchedulerExports(t *testing.T) {
	source, err := os.ReadFile("../pkg/plugins/draallocator/metrics/metrics.go")
	if err != nil {
		t.Fatal(err)
	}
	rule := monitoringObjects(t)["PrometheusRule/dra-scheduler"]
	if rule == nil {
		t.Fatal("no PrometheusRule dra-scheduler")
	}
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	var alerts []string
	metric := regexp.MustCompile(`dra_scheduler_([a-z_]+)`)
	for _, g := range groups {
		rules, _, _ := unstructured.NestedSlice(g.(map[string]any), "rules")
		for _, r := range rules {
			r := r.(map[string]any)
			alerts = append(alerts, r["alert"].(string))
			expr := r["expr"].(string)
			for _, m := range metric.FindAllStringSubmatch(expr, -1) {
				if !strings.Contains(string(source), `Name:           "`+m[1]+`"`) {
					t.Errorf("alert %s uses %s, which the plugin does not export", r["alert"], m[0])
				}
			}
		}
	}
	for _, want := range []string{"DRASchedulerDoubleAllocation", "DRASchedulerPluginPanic", "DRASchedulerStateDiffersFromAPI", "DRASchedulerClaimsPendingTooLong", "DRASchedulerDown", "DRAPodsPendingTooLong"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("alerts %v: %s missing", alerts, want)
		}
	}
}

func TestTheDownAlertWatchesTheLeaseTheSchedulerLeadsWith(t *testing.T) {
	lease := leaderElection(t).ResourceName
	rule := monitoringObjects(t)["PrometheusRule/dra-scheduler"]
	if rule == nil {
		t.Fatal("no PrometheusRule dra-scheduler")
	}
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	for _, g := range groups {
		rules, _, _ := unstructured.NestedSlice(g.(map[string]any), "rules")
		for _, r := range rules {
			r := r.(map[string]any)
			if r["alert"] != "DRASchedulerDown" {
				continue
			}
			// Absent (no replica scraped) counts as no leader.
			if want := `(max(leader_election_master_status{name="` + lease + `"}) or vector(0)) < 1`; r["expr"] != want || r["for"] != "5m" {
				t.Errorf("DRASchedulerDown is %q for %v, want %q for 5m (the lease %q the scheduler leads with)", r["expr"], r["for"], want, lease)
			}
			return
		}
	}
	t.Error("no alert DRASchedulerDown")
}

// alertRule returns the PrometheusRule's alert named name, nil if none.
func alertRule(t *testing.T, name string) map[string]any {
	t.Helper()
	rule := monitoringObjects(t)["PrometheusRule/dra-scheduler"]
	if rule == nil {
		t.Fatal("no PrometheusRule dra-scheduler")
	}
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	for _, g := range groups {
		rules, _, _ := unstructured.NestedSlice(g.(map[string]any), "rules")
		for _, r := range rules {
			if r := r.(map[string]any); r["alert"] == name {
				return r
			}
		}
	}
	return nil
}

func TestThePendingAlertCountsPodsForTheSchedulerOnNoNodeFromKubeStateMetrics(t *testing.T) {
	r := alertRule(t, "DRAPodsPendingTooLong")
	if r == nil {
		t.Fatal("no alert DRAPodsPendingTooLong")
	}
	expr := r["expr"].(string)
	// Not dra-scheduler's own series: they vanish when it is down.
	for _, want := range []string{
		`kube_pod_scheduler{name="` + schedulerName + `"}`,
		`kube_pod_info{node=""}`,
		`time() - kube_pod_created > 900`,
	} {
		if !strings.Contains(expr, want) {
			t.Errorf("DRAPodsPendingTooLong is %q, which lacks %q", expr, want)
		}
	}
	if strings.Contains(expr, "dra_scheduler_") || strings.Contains(expr, "scheduler_") && !strings.Contains(expr, "kube_pod_scheduler") {
		t.Errorf("DRAPodsPendingTooLong %q reads the scheduler's own metrics, which vanish when it is down", expr)
	}
	if r["for"] != "5m" {
		t.Errorf("DRAPodsPendingTooLong fires after %v, want 5m", r["for"])
	}
}

func TestTheDashboardShowsWhatOperatorsAskAbout(t *testing.T) {
	data, err := os.ReadFile("monitoring/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	source, err := os.ReadFile("../pkg/plugins/draallocator/metrics/metrics.go")
	if err != nil {
		t.Fatal(err)
	}
	metric := regexp.MustCompile(`dra_scheduler_([a-z_]+?)(_bucket)?[{\[]`)
	var exprs []string
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
			for _, m := range metric.FindAllStringSubmatch(tg.Expr, -1) {
				if !strings.Contains(string(source), `Name:           "`+m[1]+`"`) {
					t.Errorf("panel %q uses dra_scheduler_%s, which the plugin does not export", p.Title, m[1])
				}
			}
		}
	}
	all := strings.Join(exprs, "\n")
	for what, series := range map[string]string{
		"pods scheduled per second":    "scheduler_schedule_attempts_total",
		"creation-to-bound latency":    "scheduler_pod_scheduling_sli_duration_seconds_bucket",
		"plugin latency per extension": "dra_scheduler_extension_point_duration_seconds_bucket",
		"pending pods by reason":       "scheduler_unschedulable_pods",
		"double allocations":           "dra_scheduler_double_allocations_total",
		"plugin panics":                "dra_scheduler_plugin_panics_total",
	} {
		if !strings.Contains(all, series) {
			t.Errorf("the dashboard does not show %s (%s)", what, series)
		}
	}
}
