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

package integration

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/kube"

	"github.com/dra-scheduler/dra-scheduler/charts"
	"github.com/dra-scheduler/dra-scheduler/manifests"
	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestHelmChart installs, upgrades and uninstalls charts/dra-scheduler with
// Helm's own SDK (what `helm install --namespace dra-scheduler
// --create-namespace`, `helm upgrade` and `helm uninstall` run) on a real
// kube-apiserver, and runs dra-scheduler the way each revision's
// Deployment would, from the ConfigMap in the cluster, as its
// ServiceAccount:
//   - installed with the defaults, it schedules the examples;
//   - an upgrade changing a plugin arg changes the pod template's config
//     hash (the pods roll), and a replica started from the new ConfigMap
//     runs with the new arg (/configz);
//   - an upgrade to the in-tree mode switches the profile: the in-tree
//     plugin schedules, DRAAllocator allocates nothing;
//   - uninstalling leaves no object of the chart, nor Helm's release
//     records, behind.
func TestHelmChart(t *testing.T) {
	ctx := t.Context()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	t.Cleanup(cp.Stop)
	ch, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	helm := newHelm(t, cp)
	ns := charts.Namespace

	install := action.NewInstall(helm)
	install.ReleaseName, install.Namespace, install.CreateNamespace = charts.ReleaseName, ns, true
	// No kubelet runs the pods: wait for nothing but hooks (the chart has none).
	install.WaitStrategy, install.Timeout = kube.HookOnlyStrategy, time.Minute
	if _, err := install.RunWithContext(ctx, ch, nil); err != nil {
		t.Fatalf("helm install: %v", err)
	}
	checkReleaseObjects(t, cp, nil, true)
	nsObj, err := cp.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := nsObj.Labels["pod-security.kubernetes.io/enforce"]; got != "restricted" {
		t.Errorf("namespace %s is labelled pod-security.kubernetes.io/enforce=%q after helm install --create-namespace, want restricted (the chart's Namespace)", ns, got)
	}

	// dra-scheduler as its ServiceAccount, from the ConfigMap, with the
	// Deployment's flags.
	saKubeconfig := kubeconfigAs(t, cp, "helm-sa", serviceaccount.MakeUsername(ns, manifests.ServiceAccount))
	e := &env{t: t, ctx: ctx, cp: cp, client: cp.Client, ns: "gpu-workloads"}
	deployment := e.deploymentOf()
	r, port := startFromDeployment(t, "helm-installed", deployment, writeClusterConfig(t, e, "installed", saKubeconfig), saKubeconfig)
	waitProbe(t, ctx, r, port, deployment.Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Path)

	h200 := inventorygen.NvidiaH200(1)
	cluster := h200.Merge(inventorygen.NvidiaH100(1), inventorygen.DynamicMIG(1, 2))
	for _, n := range cluster.Nodes {
		n := n.DeepCopy()
		n.UID = ""
		e.create(n)
	}
	for _, s := range cluster.Slices {
		s := s.DeepCopy()
		s.OwnerReferences = nil
		e.create(s)
	}
	admin := newApplier(t, cp.Config)
	examples, err := manifests.Load(manifests.ExamplesDir)
	if err != nil {
		t.Fatal(err)
	}
	var pods []string
	for _, f := range examples {
		for _, o := range f.Objects {
			admin.apply(f.Path, o)
			if o.GetKind() == "Pod" {
				pods = append(pods, o.GetName())
			}
		}
	}
	for _, name := range pods {
		e.waitScheduled(name)
	}
	checkExamplePlacements(t, e, h200)

	t.Run("helm upgrade with a changed plugin arg rolls the pods, and the new replica runs with it", func(t *testing.T) {
		e := &env{t: t, ctx: ctx, cp: cp, client: cp.Client, ns: e.ns}
		packing := map[string]any{"plugin": map[string]any{"args": map[string]any{"deviceSelectionPolicy": "Packing"}}}
		after := e.helmUpgrade(helm, ch, packing, deployment)
		r.terminate() // the installed replica, replaced by the rollout
		packed, port := startFromDeployment(t, "helm-packing", after, writeClusterConfig(t, e, "packing", saKubeconfig), saKubeconfig,
			"--authorization-always-allow-paths=/healthz,/readyz,/livez,/configz")
		waitProbe(t, ctx, packed, port, after.Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Path)
		code, body, err := getSecurePort(ctx, port, "/configz", "")
		if err != nil || code != 200 {
			t.Fatalf("GET /configz: %d %v %s", code, err, body)
		}
		args, ok := pluginArgsIn(body, "DRAAllocator")
		if !ok || args["deviceSelectionPolicy"] != "Packing" {
			t.Errorf("the replica started from the upgraded ConfigMap runs DRAAllocator with args %v, want deviceSelectionPolicy Packing:\n%s", args, tail(body, 3000))
		}
		e.create(objects.MakePod("after-upgrade", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("mig", "mig-1g10gb").Obj())
		e.waitScheduled("after-upgrade")
		packed.terminate()
		deployment = after
	})

	t.Run("helm upgrade to the in-tree mode switches the profile to the in-tree plugin", func(t *testing.T) {
		e := &env{t: t, ctx: ctx, cp: cp, client: cp.Client, ns: e.ns}
		after := e.helmUpgrade(helm, ch, map[string]any{"inTree": map[string]any{"enabled": true}}, deployment)
		r, port := startFromDeployment(t, "helm-in-tree", after, writeClusterConfig(t, e, "in-tree", saKubeconfig), saKubeconfig,
			"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics,/configz")
		waitProbe(t, ctx, r, port, after.Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Path)
		_, body, err := getSecurePort(ctx, port, "/configz", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := pluginArgsIn(body, "DynamicResources"); !ok || strings.Contains(body, "DRAAllocator") {
			t.Errorf("the in-tree replica's configuration configures DynamicResources: %v, names DRAAllocator: %v", ok, strings.Contains(body, "DRAAllocator"))
		}
		e.create(objects.MakePod("in-tree-after-upgrade", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("mig", "mig-1g10gb").Obj())
		e.waitScheduled("in-tree-after-upgrade")
		if n := sampleValue(scrapeOpen(t, ctx, port), "dra_scheduler_claims_allocated_total"); n != 0 {
			t.Errorf("DRAAllocator allocated %v claims in the in-tree mode", n)
		}
		r.terminate()
	})

	t.Run("helm uninstall leaves no object of the chart behind", func(t *testing.T) {
		uninstall := action.NewUninstall(helm)
		uninstall.WaitStrategy, uninstall.Timeout = kube.HookOnlyStrategy, time.Minute
		if _, err := uninstall.Run(charts.ReleaseName); err != nil {
			t.Fatalf("helm uninstall: %v", err)
		}
		e := &env{t: t, ctx: ctx, cp: cp, client: cp.Client, ns: e.ns}
		e.waitFor("namespace "+ns+" to be gone", func() (bool, string) {
			n, err := cp.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, ""
			}
			return false, fmt.Sprintf("%v %v", n.Status.Phase, err)
		})
		checkReleaseObjects(t, cp, map[string]any{"inTree": map[string]any{"enabled": true}}, false)
		secrets, err := cp.Client.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: "owner=helm,name=" + charts.ReleaseName})
		if err != nil {
			t.Fatal(err)
		}
		if len(secrets.Items) > 0 {
			t.Errorf("Helm's release records are left: %d Secrets, the first %s/%s", len(secrets.Items), secrets.Items[0].Namespace, secrets.Items[0].Name)
		}
	})
}

// newHelm returns Helm's action configuration for the control plane's
// admin, with releases stored as Secrets in the chart's namespace, as the
// helm command's defaults do.
func newHelm(t *testing.T, cp *controlplane.ControlPlane) *action.Configuration {
	t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = ptr.To(cp.Kubeconfig)
	flags.Namespace = ptr.To(charts.Namespace)
	flags.CacheDir = ptr.To(t.TempDir())
	cfg := action.NewConfiguration()
	if err := cfg.Init(flags, charts.Namespace, "secrets"); err != nil {
		t.Fatalf("helm configuration: %v", err)
	}
	// This kube-apiserver is built from go.mod's k8s.io/kubernetes without
	// version stamping, so it reports v0.0.0-master, which the chart's
	// kubeVersion (>=1.37) refuses: tell Helm the module's version, as a
	// real cluster's API server reports it.
	apiVersions, err := action.GetVersionSet(cp.Client.Discovery())
	if err != nil {
		t.Fatal(err)
	}
	kubeVersion, err := common.ParseKubeVersion(kubernetesModuleVersion(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Capabilities = &common.Capabilities{KubeVersion: *kubeVersion, APIVersions: apiVersions, HelmVersion: common.DefaultCapabilities.HelmVersion}
	return cfg
}

// kubernetesModuleVersion returns the version of k8s.io/kubernetes go.mod
// requires, whose kube-apiserver this test runs (test binaries carry no
// module versions in their build information).
func kubernetesModuleVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes (v\S+)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("go.mod requires no k8s.io/kubernetes")
	}
	return string(m[1])
}

// helmUpgrade runs `helm upgrade` with values over the chart's defaults,
// and checks the Deployment's pod template changed, carrying the new
// ConfigMap's hash, so that the pods roll. It returns the new Deployment.
func (e *env) helmUpgrade(helm *action.Configuration, ch *chartv2.Chart, values map[string]any, before appsv1.Deployment) appsv1.Deployment {
	e.t.Helper()
	upgrade := action.NewUpgrade(helm)
	upgrade.Namespace = charts.Namespace
	upgrade.WaitStrategy, upgrade.Timeout = kube.HookOnlyStrategy, time.Minute
	if _, err := upgrade.RunWithContext(e.ctx, charts.ReleaseName, ch, values); err != nil {
		e.t.Fatalf("helm upgrade with %v: %v", values, err)
	}
	checkReleaseObjects(e.t, e.cp, values, true)
	after := e.deploymentOf()
	cm, err := e.client.CoreV1().ConfigMaps(charts.Namespace).Get(e.ctx, manifests.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	hash := after.Spec.Template.Annotations[manifests.ConfigHashAnnotation]
	if want := fmt.Sprintf("%x", sha256.Sum256([]byte(cm.Data[manifests.ConfigKey]))); hash != want {
		e.t.Errorf("after helm upgrade the pod template's %s is %q, the ConfigMap's configuration hashes to %q", manifests.ConfigHashAnnotation, hash, want)
	}
	if hash == before.Spec.Template.Annotations[manifests.ConfigHashAnnotation] || after.Generation == before.Generation {
		e.t.Errorf("helm upgrade with %v left the pod template's config hash %q (generation %d): the pods would keep the old configuration", values, hash, after.Generation)
	}
	return after
}

// deploymentOf returns the chart's Deployment as the cluster holds it.
func (e *env) deploymentOf() appsv1.Deployment {
	e.t.Helper()
	d, err := e.client.AppsV1().Deployments(charts.Namespace).Get(e.ctx, "dra-scheduler", metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return *d
}

// writeClusterConfig writes the KubeSchedulerConfiguration the chart's
// ConfigMap holds in the cluster, with kubeconfig as its client connection
// (in a pod, the in-cluster config), and returns its path.
func writeClusterConfig(t *testing.T, e *env, name, kubeconfig string) string {
	t.Helper()
	cm, err := e.client.CoreV1().ConfigMaps(charts.Namespace).Get(e.ctx, manifests.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal([]byte(cm.Data[manifests.ConfigKey]), &cfg); err != nil {
		t.Fatalf("ConfigMap %s: %v", manifests.ConfigMapName, err)
	}
	conn, _ := cfg["clientConnection"].(map[string]any)
	if conn == nil {
		conn = map[string]any{}
	}
	conn["kubeconfig"] = kubeconfig
	cfg["clientConnection"] = conn
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path, err := e.cp.WriteSchedulerConfig("helm-"+name+"-scheduler.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// checkReleaseObjects checks that every object the chart renders with
// values is in the cluster (present) or gone (!present).
func checkReleaseObjects(t *testing.T, cp *controlplane.ControlPlane, values map[string]any, present bool) {
	t.Helper()
	objs, err := charts.Render(charts.Namespace, values)
	if err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cp.Client.Discovery()))
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s: %v", gvk, err)
		}
		var got *unstructured.Unstructured
		if o.GetNamespace() == "" {
			got, err = client.Resource(m.Resource).Get(t.Context(), o.GetName(), metav1.GetOptions{})
		} else {
			got, err = client.Resource(m.Resource).Namespace(o.GetNamespace()).Get(t.Context(), o.GetName(), metav1.GetOptions{})
		}
		switch {
		case present && err != nil:
			t.Errorf("%s %s/%s, which the chart renders, is not in the cluster: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		case !present && err == nil:
			t.Errorf("%s %s/%s is still in the cluster after helm uninstall (deletion %v)", o.GetKind(), o.GetNamespace(), o.GetName(), got.GetDeletionTimestamp())
		case !present && !apierrors.IsNotFound(err):
			t.Errorf("%s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
}

// pluginArgsIn finds, in kube-scheduler's /configz, the args of the
// pluginConfig entry for plugin.
func pluginArgsIn(configz, plugin string) (map[string]any, bool) {
	var doc any
	if err := json.Unmarshal([]byte(configz), &doc); err != nil {
		return nil, false
	}
	var find func(v any) (map[string]any, bool)
	find = func(v any) (map[string]any, bool) {
		switch v := v.(type) {
		case map[string]any:
			name, _ := v["Name"].(string)
			if name == "" {
				name, _ = v["name"].(string)
			}
			args, ok := v["Args"]
			if !ok {
				args, ok = v["args"]
			}
			if name == plugin && ok {
				m, _ := args.(map[string]any)
				return m, true
			}
			for _, sub := range v {
				if m, ok := find(sub); ok {
					return m, true
				}
			}
		case []any:
			for _, sub := range v {
				if m, ok := find(sub); ok {
					return m, true
				}
			}
		}
		return nil, false
	}
	return find(doc)
}
