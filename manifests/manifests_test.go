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
	"crypto/sha256"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/manifests"
)

const schedulerName = "dra-scheduler"

func TestKustomizationsListEveryManifestOfTheirDirectory(t *testing.T) {
	for _, dir := range []string{manifests.InstallDir, manifests.ExamplesDir, manifests.MonitoringDir, manifests.PodMonitorDir, manifests.OptOutDir, manifests.LabelGuardDir} {
		t.Run(dir, func(t *testing.T) {
			listed, err := manifests.Resources(dir)
			if err != nil {
				t.Fatal(err)
			}
			onDisk, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, p := range onDisk {
				if name := filepath.Base(p); name != "kustomization.yaml" {
					want = append(want, name)
				}
			}
			got := slices.Sorted(slices.Values(listed))
			if !slices.Equal(got, want) {
				t.Errorf("%s/kustomization.yaml lists %v, the directory has %v", dir, got, want)
			}
		})
	}
}

func TestEveryObjectDecodesStrictlyIntoItsAPIType(t *testing.T) {
	strict := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	for _, dir := range []string{manifests.InstallDir, manifests.ExamplesDir, manifests.MonitoringDir, manifests.PodMonitorDir, manifests.OptOutDir, manifests.LabelGuardDir} {
		files, err := manifests.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if len(f.Objects) == 0 {
				t.Errorf("%s holds no object", f.Path)
			}
			for _, o := range f.Objects {
				if o.GroupVersionKind().Group == monitoringGroup {
					continue // no Go types here: TestTheMonitoringComponentScrapesTheScheduler checks them
				}
				data, err := o.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := strict.Decode(data, nil, nil); err != nil {
					t.Errorf("%s: %s %s: %v", f.Path, o.GetKind(), o.GetName(), err)
				}
			}
		}
	}
}

// The ConfigMap that applying the install, or the in-tree overlay, gives
// runs the profile of the matching file under config/, and leaves the
// client connection to the in-cluster config.
func TestTheConfigMapRunsTheShippedProfile(t *testing.T) {
	for dir, file := range map[string]string{
		manifests.InstallDir:       "config/dra-scheduler.yaml",
		manifests.InTreeOverlayDir: "config/in-tree.yaml",
	} {
		t.Run(dir, func(t *testing.T) {
			inCM := schedulerConfigOf(t, dir)
			profile, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			inFile := yamlObject(t, profile)
			if !reflect.DeepEqual(inCM["profiles"], inFile["profiles"]) {
				t.Errorf("the ConfigMap's profiles differ from %s's:\n%v\n%v", file, inCM["profiles"], inFile["profiles"])
			}
			if conn, _ := inCM["clientConnection"].(map[string]any); conn["kubeconfig"] != nil {
				t.Errorf("the ConfigMap names kubeconfig %v; in a pod the in-cluster config must be used", conn["kubeconfig"])
			}
		})
	}
	le := leaderElection(t)
	if !le.LeaderElect || le.ResourceName != schedulerName || le.ResourceNamespace != manifests.Namespace {
		t.Errorf("leader election %+v, want on, Lease %s/%s", le, manifests.Namespace, schedulerName)
	}
}

// schedulerConfigOf returns, decoded, the KubeSchedulerConfiguration that
// applying dir gives the ConfigMap.
func schedulerConfigOf(t *testing.T, dir string) map[string]any {
	t.Helper()
	cfg, err := manifests.SchedulerConfigOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	return yamlObject(t, cfg)
}

func yamlObject(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var out map[string]any
	if err := yaml.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

type leaderElectionConfig struct {
	LeaderElect       bool   `json:"leaderElect"`
	ResourceName      string `json:"resourceName"`
	ResourceNamespace string `json:"resourceNamespace"`
}

func leaderElection(t *testing.T) leaderElectionConfig {
	t.Helper()
	cfg, err := manifests.SchedulerConfig()
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		LeaderElection leaderElectionConfig `json:"leaderElection"`
	}
	if err := yaml.Unmarshal(cfg, &c); err != nil {
		t.Fatal(err)
	}
	return c.LeaderElection
}

func TestTheDeploymentIsHighlyAvailableProbedAndLockedDown(t *testing.T) {
	var d appsv1.Deployment
	typed(t, manifests.InstallDir, "Deployment", schedulerName, &d)
	if d.Namespace != manifests.Namespace {
		t.Errorf("namespace %q, want %q", d.Namespace, manifests.Namespace)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas %v, want 2", d.Spec.Replicas)
	}
	spec := d.Spec.Template.Spec
	if spec.ServiceAccountName != manifests.ServiceAccount {
		t.Errorf("serviceAccountName %q, want %q", spec.ServiceAccountName, manifests.ServiceAccount)
	}
	if spec.SecurityContext == nil || spec.SecurityContext.RunAsNonRoot == nil || !*spec.SecurityContext.RunAsNonRoot {
		t.Error("the pod does not require runAsNonRoot")
	}
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(spec.Containers))
	}
	c := spec.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("container security context %+v: want a read-only root filesystem and no privilege escalation", sc)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("resource requests %v: want cpu and memory", c.Resources.Requests)
	}
	for name, probe := range map[string]*v1.Probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
		if probe == nil || probe.HTTPGet == nil {
			t.Errorf("no HTTP probe of %s", name)
			continue
		}
		g := probe.HTTPGet
		if g.Path != name || g.Scheme != v1.URISchemeHTTPS || g.Port.IntValue() != 10259 {
			t.Errorf("probe %s:%s%s, want HTTPS:10259%s (kube-scheduler's secure port)", g.Scheme, g.Port.String(), g.Path, name)
		}
	}

	// Claim events requeue only the pods they concern.
	if !slices.Contains(c.Args, "--feature-gates=SchedulerPreQueueingHints=true") {
		t.Errorf("args %q do not turn on SchedulerPreQueueingHints", c.Args)
	}

	// --config points into the ConfigMap's volume.
	var configPath string
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--config="); ok {
			configPath = v
		}
	}
	var mountedFrom string
	for _, m := range c.VolumeMounts {
		if path.Join(m.MountPath, manifests.ConfigKey) != configPath {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil {
				mountedFrom = v.ConfigMap.Name
			}
		}
	}
	if mountedFrom != manifests.ConfigMapName {
		t.Errorf("--config=%s is not the %s key of ConfigMap %s (mounted from %q)", configPath, manifests.ConfigKey, manifests.ConfigMapName, mountedFrom)
	}
}

func TestTheLeaseTheSchedulerElectsOnIsTheOneItMayUpdate(t *testing.T) {
	le := leaderElection(t)
	var role rbacv1.Role
	typed(t, manifests.InstallDir, "Role", "dra-scheduler-leader-election", &role)
	if role.Namespace != le.ResourceNamespace {
		t.Errorf("the Role is in %q, the Lease in %q", role.Namespace, le.ResourceNamespace)
	}
	var canUpdate bool
	for _, r := range role.Rules {
		if slices.Contains(r.Resources, "leases") && slices.Contains(r.Verbs, "update") {
			canUpdate = slices.Equal(r.ResourceNames, []string{le.ResourceName})
		}
	}
	if !canUpdate {
		t.Errorf("the Role does not grant update on exactly the Lease %q: %+v", le.ResourceName, role.Rules)
	}
}

func TestTheExamplesUseDRASchedulerInAGuardedNamespace(t *testing.T) {
	files, err := manifests.Load(manifests.ExamplesDir)
	if err != nil {
		t.Fatal(err)
	}
	var pods int
	for _, f := range files {
		for _, o := range f.Objects {
			switch o.GetKind() {
			case "Namespace":
				if o.GetLabels()[manifests.EnforceLabel] != "true" {
					t.Errorf("namespace %s is not labelled %s=true", o.GetName(), manifests.EnforceLabel)
				}
			case "Pod":
				pods++
				name, _, _ := unstructured.NestedString(o.Object, "spec", "schedulerName")
				if name != schedulerName {
					t.Errorf("pod %s uses scheduler %q", o.GetName(), name)
				}
			}
		}
	}
	if pods == 0 {
		t.Error("the examples hold no pod")
	}
}

// typed finds the object of that kind and name among dir's manifests and
// converts it into into.
func typed(t *testing.T, dir, kind, name string, into runtime.Object) {
	t.Helper()
	files, err := manifests.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		objs = append(objs, f.Objects...)
	}
	typedAmong(t, objs, "the files of "+dir, kind, name, into)
}

// typedAmong converts the object of kind and name among objs, read from
// where, into into.
func typedAmong(t *testing.T, objs []*unstructured.Unstructured, where, kind, name string, into any) {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			convert(t, o, into)
			return
		}
	}
	t.Fatalf("no %s %s in %s", kind, name, where)
}

// driverDomains are the DNS domains whose DeviceClass names and extended
// resources DRA drivers' charts install (NVIDIA, the Kubernetes example
// driver, Intel, AMD); the examples must not define any of them.
var driverDomains = []string{"nvidia.com", "example.com", "intel.com", "amd.com"}

func TestTheExamplesLeaveEveryDriversObjectsAlone(t *testing.T) {
	files, err := manifests.Load(manifests.ExamplesDir)
	if err != nil {
		t.Fatal(err)
	}
	ownedByADriver := func(name string) bool {
		name = strings.SplitN(name, "/", 2)[0]
		for _, domain := range driverDomains {
			if name == domain || strings.HasSuffix(name, "."+domain) {
				return true
			}
		}
		return false
	}
	classes := 0
	for _, f := range files {
		for _, o := range f.Objects {
			switch o.GetKind() {
			case "Namespace":
			case "DeviceClass":
				classes++
				if !strings.HasPrefix(o.GetName(), "example-") || ownedByADriver(o.GetName()) {
					t.Errorf("%s: DeviceClass %s: example classes are named example-..., never like a driver's", f.Path, o.GetName())
				}
				if ext, ok, _ := unstructured.NestedString(o.Object, "spec", "extendedResourceName"); ok && (ownedByADriver(ext) || !strings.HasPrefix(ext, "example.dra-scheduler.io/")) {
					t.Errorf("%s: DeviceClass %s maps the extended resource %s, want one of example.dra-scheduler.io", f.Path, o.GetName(), ext)
				}
			default:
				if o.GetNamespace() == "" {
					t.Errorf("%s: %s %s is cluster-scoped: the examples may only add their namespace and their own DeviceClasses", f.Path, o.GetKind(), o.GetName())
				}
			}
		}
	}
	if classes == 0 {
		t.Error("the examples define no DeviceClass: what do their claims use?")
	}
}

func TestADisruptionBudgetKeepsOneReplicaOfTheDeployment(t *testing.T) {
	var d appsv1.Deployment
	typed(t, manifests.InstallDir, "Deployment", schedulerName, &d)
	var pdb policyv1.PodDisruptionBudget
	typed(t, manifests.InstallDir, "PodDisruptionBudget", schedulerName, &pdb)
	if pdb.Namespace != d.Namespace {
		t.Errorf("PodDisruptionBudget in %q, Deployment in %q", pdb.Namespace, d.Namespace)
	}
	selector, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		t.Fatalf("PodDisruptionBudget selector: %v", err)
	}
	if !selector.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("PodDisruptionBudget selector %s does not select the Deployment's pods (labels %v)", selector, d.Spec.Template.Labels)
	}
	replicas := int(ptr.Deref(d.Spec.Replicas, 1))
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 || replicas < 2 {
		t.Errorf("maxUnavailable %v with %d replicas: want 1 of at least 2, so that a drain always leaves a scheduler", pdb.Spec.MaxUnavailable, replicas)
	}
}

func TestAConfigurationChangeRollsThePods(t *testing.T) {
	for _, dir := range []string{manifests.InstallDir, manifests.InTreeOverlayDir} {
		t.Run(dir, func(t *testing.T) {
			objs := mustBuild(t, dir)
			var d appsv1.Deployment
			typedAmong(t, objs, "kustomize build "+dir, "Deployment", schedulerName, &d)
			cfg, err := manifests.ConfigOf(objs)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("%x", sha256.Sum256(cfg))
			if got := d.Spec.Template.Annotations[manifests.ConfigHashAnnotation]; got != want {
				t.Errorf("%s: the pod template's %s is %q, but the ConfigMap's %s hashes to %q: set the annotation to it (deployment.yaml), so that applying the new configuration rolls the pods",
					dir, manifests.ConfigHashAnnotation, got, manifests.ConfigKey, want)
			}
		})
	}
}

func TestEveryKustomizationBuildsAsKubectlApplyKDoes(t *testing.T) {
	for _, tc := range []struct {
		dir        string
		components []string
		// holds are the directories whose listed files hold what kustomize
		// builds, generated the objects it generates besides.
		holds     []string
		generated int
	}{
		{".", nil, []string{manifests.InstallDir}, 0},
		{manifests.InstallDir, nil, []string{manifests.InstallDir}, 0},
		{manifests.InstallDir, []string{manifests.MonitoringDir}, []string{manifests.InstallDir, manifests.MonitoringDir}, 1}, // the dashboard's ConfigMap
		{manifests.InTreeOverlayDir, nil, []string{manifests.InstallDir}, 0},
		{manifests.ExamplesDir, nil, []string{manifests.ExamplesDir}, 0},
	} {
		t.Run(path.Join(append([]string{tc.dir}, tc.components...)...), func(t *testing.T) {
			objs, err := manifests.Build(tc.dir, tc.components...)
			if err != nil {
				t.Fatal(err)
			}
			listed := tc.generated
			for _, d := range tc.holds {
				files, err := manifests.Load(d)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range files {
					listed += len(f.Objects)
				}
			}
			if len(objs) != listed {
				t.Errorf("kustomize built %d objects, the listed files hold %d (and %d generated)", len(objs), listed-tc.generated, tc.generated)
			}
		})
	}
}

func mustBuild(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := manifests.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// The A/B overlay changes the profile and the hash that rolls the pods,
// nothing else: the same RBAC, Lease, Deployment, admission policies.
func TestTheInTreeOverlayChangesOnlyTheProfile(t *testing.T) {
	install, overlay := mustBuild(t, manifests.InstallDir), mustBuild(t, manifests.InTreeOverlayDir)
	if len(install) != len(overlay) {
		t.Fatalf("the overlay builds %d objects, the install %d", len(overlay), len(install))
	}
	for i, o := range overlay {
		want := install[i].DeepCopy()
		got := o.DeepCopy()
		switch o.GetKind() {
		case "ConfigMap":
			unstructured.RemoveNestedField(want.Object, "data", manifests.ConfigKey)
			unstructured.RemoveNestedField(got.Object, "data", manifests.ConfigKey)
		case "Deployment":
			path := []string{"spec", "template", "metadata", "annotations", manifests.ConfigHashAnnotation}
			unstructured.RemoveNestedField(want.Object, path...)
			unstructured.RemoveNestedField(got.Object, path...)
		}
		if !reflect.DeepEqual(got.Object, want.Object) {
			t.Errorf("the overlay changes %s %s beyond its profile:\n%v\n%v", o.GetKind(), o.GetName(), got.Object, want.Object)
		}
	}

	// TestTheConfigMapRunsTheShippedProfile checks the overlay's profiles.
	inOverlay, inInstall := schedulerConfigOf(t, manifests.InTreeOverlayDir), schedulerConfigOf(t, manifests.InstallDir)
	delete(inOverlay, "profiles")
	delete(inInstall, "profiles")
	if !reflect.DeepEqual(inOverlay, inInstall) {
		t.Errorf("the overlay's configuration differs from the install's beyond the profiles:\n%v\n%v", inOverlay, inInstall)
	}
}

func TestEveryShippedConfigurationElectsOnTheConfigMapsLease(t *testing.T) {
	want := leaderElection(t)
	files, err := filepath.Glob("config/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("config/*.yaml: %v, %d files", err, len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			LeaderElection leaderElectionConfig `json:"leaderElection"`
		}
		if err := yaml.Unmarshal(data, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if c.LeaderElection != want {
			t.Errorf("%s elects on %+v, the ConfigMap (and the Role in rbac.yaml) on %+v: an A/B switch must keep the Lease", f, c.LeaderElection, want)
		}
	}
}

func TestEveryShippedConfigurationServesNoProfiling(t *testing.T) {
	configs := map[string][]byte{}
	for _, dir := range []string{manifests.InstallDir, "overlays/in-tree"} {
		cfg, err := manifests.SchedulerConfigOf(dir)
		if err != nil {
			t.Fatal(err)
		}
		configs[dir] = cfg
	}
	files, err := filepath.Glob("config/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("config/*.yaml: %v, %d files", err, len(files))
	}
	for _, f := range files {
		if configs[f], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range configs {
		var c struct {
			EnableProfiling *bool `json:"enableProfiling"`
		}
		if err := yaml.Unmarshal(data, &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// kube-scheduler's default is true: /debug/pprof for every token
		// that may GET the serving port.
		if c.EnableProfiling == nil || *c.EnableProfiling {
			t.Errorf("%s: enableProfiling is %v, want false", name, c.EnableProfiling)
		}
	}
}
