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
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/manifests"
	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/kubeapply"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestInstallManifests installs dra-scheduler the way an operator does and
// proves the manifests right on a real kube-apiserver:
//   - manifests/install, built by kustomize as kubectl apply -k does,
//     applies server-side without error or warning (PodSecurity
//     "restricted" included);
//   - dra-scheduler, started from the ConfigMap's configuration with the
//     Deployment's flags and authenticated as its ServiceAccount
//     (impersonation, so RBAC judges the ServiceAccount), elects itself on
//     its Lease, answers the Deployment's probes and schedules the examples
//     end to end: a claim template, a MIG slice, a shared claim and a
//     DRA-backed extended resource;
//   - what its role does not grant stays forbidden;
//   - in a guarded namespace, the admission policies send pods that use
//     DRA (claims, a DeviceClass's extended resource, explicit or implicit)
//     and name no scheduler to dra-scheduler, refuse those naming another,
//     and leave every other pod, and every pod elsewhere, as it is.
func TestInstallManifests(t *testing.T) {
	ctx := t.Context()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	t.Cleanup(cp.Stop)
	admin := newApplier(t, cp.Config)

	deployment := admin.applyKustomization(manifests.InstallDir)

	// dra-scheduler as its ServiceAccount, from the ConfigMap, with the
	// Deployment's flags (but --config, which points into the volume).
	saUser := serviceaccount.MakeUsername(manifests.Namespace, manifests.ServiceAccount)
	saConfig := restclient.CopyConfig(cp.Config)
	saConfig.Impersonate.UserName = saUser
	saKubeconfig := filepath.Join(cp.Dir, "dra-scheduler-sa.kubeconfig")
	if err := controlplane.WriteKubeconfig(saConfig, saKubeconfig); err != nil {
		t.Fatal(err)
	}
	configPath := writeConfigMapConfig(t, cp, manifests.InstallDir, saKubeconfig)
	r, port := startFromDeployment(t, "installed", deployment, configPath, saKubeconfig)
	container := deployment.Spec.Template.Spec.Containers[0]
	for _, probe := range []*v1.Probe{container.StartupProbe, container.LivenessProbe, container.ReadinessProbe} {
		waitProbe(t, ctx, r, port, probe.HTTPGet.Path)
	}

	e := &env{t: t, ctx: ctx, cp: cp, client: cp.Client, ns: "gpu-workloads", schedulerConfig: configPath}
	e.waitFor("the Lease "+manifests.Namespace+"/dra-scheduler to name a holder", func() (bool, string) {
		lease, err := cp.Client.CoordinationV1().Leases(manifests.Namespace).Get(ctx, "dra-scheduler", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return holder(lease) != "", fmt.Sprintf("holder %q", holder(lease))
	})

	// A GPU cluster: H200s (the only GPUs with at least 80Gi), H100s and
	// Dynamic MIG; then the examples, applied as shipped.
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

	t.Run("what the role does not grant stays forbidden", func(t *testing.T) {
		checkForbidden(t, ctx, saConfig, saUser)
	})
	t.Run("in a labelled namespace, pods using DRA without a scheduler go to dra-scheduler and pods naming another are refused", func(t *testing.T) {
		checkAdmissionPolicy(t, e)
	})
	t.Run("the documented kubectl debug command for SIGUSR2 is admitted in the scheduler's namespace, and kubectl's default profile is not", func(t *testing.T) {
		checkDocumentedDebugCommand(t, e, &deployment)
	})
	t.Run("the monitoring component's reader role lets a ServiceAccount scrape /metrics over HTTPS, and only it", func(t *testing.T) {
		checkMetricsScrape(t, ctx, admin, cp.Client, port)
	})
	t.Run("kubectl dra, as a user bound to the shipped role, says a pod fits exactly where the scheduler places it", func(t *testing.T) {
		checkKubectlDRA(t, e, cp)
	})
	t.Run("kubectl dra fit, as a user bound to the shipped role, counts as many copies of a pod as the scheduler binds, and says why the next does not fit", func(t *testing.T) {
		checkKubectlDRAFit(t, e, cp)
	})
	// Last: it replaces the installed replica.
	t.Run("the in-tree overlay, applied over the install, rolls the pods and schedules with the in-tree plugin under the same RBAC and Lease", func(t *testing.T) {
		r.terminate()
		checkInTreeOverlay(t, e, admin, saKubeconfig)
	})
}

// checkInTreeOverlay applies manifests/overlays/in-tree over the install,
// as `kubectl apply -k` does, and runs its configuration as the
// ServiceAccount in place of the replica the rollout replaces (stopped by
// the caller). It schedules a claim-template pod and a DRA-backed
// extended-resource pod, and the replica's /metrics shows the in-tree
// plugin did: DRAAllocator allocated nothing.
func checkInTreeOverlay(t *testing.T, e *env, admin *applier, saKubeconfig string) {
	before, err := e.client.AppsV1().Deployments(manifests.Namespace).Get(e.ctx, "dra-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deployment := admin.applyKustomization(manifests.InTreeOverlayDir)
	after, err := e.client.AppsV1().Deployments(manifests.Namespace).Get(e.ctx, "dra-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if before.Generation == after.Generation || equality.Semantic.DeepEqual(before.Spec.Template, after.Spec.Template) {
		t.Errorf("applying the overlay left the pod template as it was (generation %d): the pods would keep the old configuration", after.Generation)
	}
	cm, err := e.client.CoreV1().ConfigMaps(manifests.Namespace).Get(e.ctx, manifests.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := manifests.SchedulerConfigOf(manifests.InTreeOverlayDir)
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data[manifests.ConfigKey] != string(want) {
		t.Fatalf("after applying the overlay the ConfigMap holds:\n%s\nwant the overlay's:\n%s", cm.Data[manifests.ConfigKey], want)
	}

	r, port := startFromDeployment(t, "in-tree", deployment, writeConfigMapConfig(t, e.cp, manifests.InTreeOverlayDir, saKubeconfig), saKubeconfig,
		"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics")
	waitProbe(t, e.ctx, r, port, deployment.Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Path)

	e.create(
		objects.MakePod("in-tree-claim", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("mig", "mig-1g10gb").Obj(),
		objects.MakePod("in-tree-extended-resource", e.ns).Scheduler(schedulerapp.Name).ExtendedResource("example.dra-scheduler.io/gpu", 1).Obj(),
	)
	e.waitScheduled("in-tree-claim")
	if pod := e.waitScheduled("in-tree-extended-resource"); pod.Status.ExtendedResourceClaimStatus == nil {
		t.Errorf("the in-tree plugin scheduled %s without writing its extendedResourceClaimStatus", pod.Name)
	}
	if claim := e.generatedClaim("in-tree-claim", "mig"); claim.Status.Allocation == nil {
		t.Errorf("the in-tree plugin scheduled in-tree-claim but claim %s is not allocated", claim.Name)
	}
	metrics := scrapeOpen(t, e.ctx, port)
	if !strings.Contains(metrics, `scheduler_schedule_attempts_total{profile="dra-scheduler",result="scheduled"}`) {
		t.Errorf("the overlay's replica reports no scheduled pod in profile dra-scheduler")
	}
	if n := sampleValue(metrics, "dra_scheduler_claims_allocated_total"); n != 0 {
		t.Errorf("DRAAllocator allocated %v claims under the in-tree overlay", n)
	}
}

// sampleValue returns the value of the unlabelled series name in a
// Prometheus text exposition, 0 when it is absent.
func sampleValue(text, name string) float64 {
	for line := range strings.Lines(text) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	return 0
}

// scrapeOpen GETs /metrics from a replica that serves it to anyone
// (--authorization-always-allow-paths).
func scrapeOpen(t *testing.T, ctx context.Context, port int) string {
	t.Helper()
	code, body, err := getSecurePort(ctx, port, "/metrics", "")
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v %s", code, err, body)
	}
	return body
}

// checkMetricsScrape applies the install with the monitoring and podmonitor
// components (but the Prometheus operator's objects, whose CRDs this API
// server lacks) and scrapes the running scheduler's /metrics with
// ServiceAccount tokens, as Prometheus does: the scheduler asks the API
// server to authenticate the token (TokenReview) and to authorize GET
// /metrics (SubjectAccessReview).
func checkMetricsScrape(t *testing.T, ctx context.Context, admin *applier, client kubernetes.Interface, port int) {
	monitoring, err := manifests.Build(manifests.InstallDir, manifests.MonitoringDir, manifests.PodMonitorDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range monitoring {
		if o.GroupVersionKind().Group != "monitoring.coreos.com" {
			admin.apply("the install with monitoring/podmonitor", o)
		}
	}
	if _, err := client.CoreV1().ServiceAccounts(manifests.Namespace).Create(ctx,
		&v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "not-a-scraper"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	scrape := func(serviceAccount string) (int, string) {
		tr, err := client.CoreV1().ServiceAccounts(manifests.Namespace).CreateToken(ctx, serviceAccount, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("token for %s: %v", serviceAccount, err)
		}
		code, body, err := getSecurePort(ctx, port, "/metrics", tr.Status.Token)
		if err != nil {
			t.Fatalf("as %s: %v", serviceAccount, err)
		}
		return code, body
	}
	// RBAC changes reach the authorizer through its informers: poll.
	var code int
	var body string
	deadline := time.Now().Add(waitTimeout)
	for {
		code, body = scrape("dra-scheduler-metrics-scraper")
		if code == http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code != http.StatusOK {
		t.Fatalf("GET /metrics with the scraper's token: %d %s", code, body)
	}
	for _, series := range []string{"dra_scheduler_build_info{", "dra_scheduler_extension_point_duration_seconds_bucket{"} {
		if !strings.Contains(body, series) {
			t.Errorf("/metrics has no %s series", series)
		}
	}
	if code, body := scrape("not-a-scraper"); code != http.StatusForbidden {
		t.Errorf("GET /metrics with a token the role does not cover: %d %s, want 403", code, body)
	}
}

// startFromDeployment runs the Deployment's container as a replica: a
// separate process (with leader election on, kube-scheduler exits the
// process when it stops) with the container's flags but --config, which
// points into the volume: configPath instead. It serves on a free port of
// 127.0.0.1, returned, and authenticates and authorizes its requests
// through kubeconfig, as in a pod through the in-cluster configuration;
// extra flags come last.
func startFromDeployment(t *testing.T, name string, d appsv1.Deployment, configPath, kubeconfig string, extra ...string) (*replica, int) {
	t.Helper()
	container := d.Spec.Template.Spec.Containers[0]
	flags := slices.DeleteFunc(slices.Clone(container.Args), func(a string) bool { return strings.HasPrefix(a, "--config=") })
	port := freePort(t)
	flags = append(flags, "--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig)
	return startReplica(t, name, configPath, append(flags, extra...)...), port
}

// writeConfigMapConfig writes the KubeSchedulerConfiguration of the
// ConfigMap that applying dir (manifests.InstallDir or an overlay) gives,
// with kubeconfig as its client connection (in a pod, the in-cluster
// config), and returns its path.
func writeConfigMapConfig(t *testing.T, cp *controlplane.ControlPlane, dir, kubeconfig string) string {
	t.Helper()
	raw, err := manifests.SchedulerConfigOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
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
	path, err := cp.WriteSchedulerConfig(strings.ReplaceAll(dir, "/", "-")+"-configmap-scheduler.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func holder(lease *coordinationv1.Lease) string {
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitProbe waits until the replica's secure port answers path with 200,
// as the kubelet probes it (HTTPS, no client certificate, no token).
func waitProbe(t *testing.T, ctx context.Context, r *replica, port int, path string) {
	t.Helper()
	var last string
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-r.done:
			t.Fatalf("dra-scheduler exited while waiting for %s (its log follows)", path)
		default:
		}
		code, _, err := getSecurePort(ctx, port, path, "")
		if err == nil && code == http.StatusOK {
			return
		}
		last = fmt.Sprint(code, " ", err)
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("probe %s on the secure port: %s", path, last)
}

// getSecurePort GETs path from a replica's secure port on 127.0.0.1, as the
// kubelet's probes and Prometheus do: HTTPS accepting the self-signed
// serving certificate, with token as the bearer token unless it is "".
func getSecurePort(ctx context.Context, port int, path, token string) (code int, body string, err error) {
	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // self-signed serving certificate, as probes and the ServiceMonitor accept
	}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d%s", port, path), nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), err
}

// checkExamplePlacements checks what the examples asked for is what they
// got.
func checkExamplePlacements(t *testing.T, e *env, bigGPUs inventorygen.Cluster) {
	t.Helper()
	trainer := e.pod("trainer")
	if bigGPUs.Node(trainer.Spec.NodeName) == nil {
		t.Errorf("trainer (one GPU with at least 80Gi) landed on %s, not on an H200 node", trainer.Spec.NodeName)
	}
	if got := results(e.generatedClaim("trainer", "gpu")); !strings.Contains(got, "gpu-") {
		t.Errorf("trainer's claim holds %s", got)
	}
	if got := results(e.generatedClaim("inference", "mig")); !strings.Contains(got, "-mig-1g10gb-") {
		t.Errorf("inference's claim holds %s, want a 1g.10gb MIG device", got)
	}

	a, b := e.pod("shared-gpu-a"), e.pod("shared-gpu-b")
	if a.Spec.NodeName != b.Spec.NodeName {
		t.Errorf("the pods sharing a claim run on %s and %s", a.Spec.NodeName, b.Spec.NodeName)
	}
	shared := e.claim("shared-gpu")
	var consumers []string
	for _, r := range shared.Status.ReservedFor {
		consumers = append(consumers, r.Name)
	}
	slices.Sort(consumers)
	if !slices.Equal(consumers, []string{"shared-gpu-a", "shared-gpu-b"}) || shared.Status.Allocation == nil || len(shared.Status.Allocation.Devices.Results) != 1 {
		t.Errorf("shared claim: one device reserved for both pods wanted, got %s reserved for %v", results(shared), consumers)
	}

	ext := e.pod("extended-resource")
	if ext.Status.ExtendedResourceClaimStatus == nil {
		t.Fatal("the extended-resource pod has no extendedResourceClaimStatus")
	}
	claim, err := e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, ext.Status.ExtendedResourceClaimStatus.ResourceClaimName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the extended-resource pod's claim: %v", err)
	}
	if claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 {
		t.Errorf("example.dra-scheduler.io/gpu: 1 got %s", results(claim))
	}
}

// checkForbidden checks, as the ServiceAccount, actions outside its role:
// the default scheduler's Lease, Secrets, changing the inventory, editing
// nodes. Each must be refused by authorization (not missing).
func checkForbidden(t *testing.T, ctx context.Context, saConfig *restclient.Config, user string) {
	client, err := kubernetes.NewForConfig(saConfig)
	if err != nil {
		t.Fatal(err)
	}
	// The permission the scheduler relies on is there: the check below is
	// about authorization, not a broken identity.
	if _, err := client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		t.Fatalf("%s cannot list ResourceSlices: %v", user, err)
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "kube-scheduler", Namespace: metav1.NamespaceSystem}}
	for what, call := range map[string]func() error{
		"take the default scheduler's Lease": func() error {
			_, err := client.CoordinationV1().Leases(metav1.NamespaceSystem).Create(ctx, lease, metav1.CreateOptions{})
			return err
		},
		"update the default scheduler's Lease": func() error {
			_, err := client.CoordinationV1().Leases(metav1.NamespaceSystem).Update(ctx, lease, metav1.UpdateOptions{})
			return err
		},
		"read Secrets": func() error {
			_, err := client.CoreV1().Secrets(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{})
			return err
		},
		"delete a DeviceClass": func() error {
			return client.ResourceV1().DeviceClasses().Delete(ctx, "gpu.nvidia.com", metav1.DeleteOptions{})
		},
		"publish a ResourceSlice": func() error {
			_, err := client.ResourceV1().ResourceSlices().Create(ctx, objects.MakeSlice("rogue", "gpu.nvidia.com", "h100-0").Device("gpu-99", nil).Obj(), metav1.CreateOptions{})
			return err
		},
		"label a node": func() error {
			_, err := client.CoreV1().Nodes().Patch(ctx, "h100-0", types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{})
			return err
		},
		"create a pod": func() error {
			_, err := client.CoreV1().Pods("gpu-workloads").Create(ctx, objects.MakePod("rogue", "gpu-workloads").Obj(), metav1.CreateOptions{})
			return err
		},
	} {
		if err := call(); !apierrors.IsForbidden(err) {
			t.Errorf("%s may %s: got %v, want Forbidden", user, what, err)
		}
	}
}

// checkAdmissionPolicy creates pods as an admin in the guarded examples
// namespace and in an unguarded one. A pod uses DRA through a claim, the
// extended resource a DeviceClass sets (example-nvidia-gpu's
// example.dra-scheduler.io/gpu) or the one every class has implicitly.
func checkAdmissionPolicy(t *testing.T, e *env) {
	const (
		refusal  = "must set spec.schedulerName: dra-scheduler"
		explicit = v1.ResourceName("example.dra-scheduler.io/gpu")
		implicit = v1.ResourceName(resourceapi.ResourceDeviceClassPrefix + "example-nvidia-gpu")
		unmapped = v1.ResourceName("example.com/fpga")
	)
	claimPod := func(name, ns string) *objects.PodWrapper {
		return objects.MakePod(name, ns).ClaimFromTemplate("gpu", "gpu-80gi")
	}
	explicitPod := func(name, ns string) *objects.PodWrapper {
		return objects.MakePod(name, ns).ExtendedResource(explicit, 1)
	}
	implicitPod := func(name, ns string) *objects.PodWrapper {
		return objects.MakePod(name, ns).InitContainerExtendedResource(implicit, 1)
	}

	// A pod as a Deployment's template makes it (no schedulerName) in the
	// guarded namespace comes out aimed at dra-scheduler and is scheduled.
	// The policies take effect once the API server has compiled them and
	// listed their parameters (the DeviceClasses): waitAdmittedFor retries
	// until the pod is mutated.
	for _, p := range []*v1.Pod{
		claimPod("claim-opted-in", e.ns).Obj(),
		explicitPod("class-extended-resource-opted-in", e.ns).Obj(),
		implicitPod("implicit-extended-resource-opted-in", e.ns).Scheduler(v1.DefaultSchedulerName).Obj(),
	} {
		admitted := waitAdmittedFor(e, p, schedulerapp.Name)
		if pod := e.waitScheduled(admitted.Name); pod.Spec.NodeName == "" {
			t.Errorf("the opted-in pod %s was not scheduled", pod.Name)
		}
	}

	// Naming another scheduler explicitly is refused, not rewritten; the
	// message says why and, for a class's extended resource, which class.
	for _, tc := range []struct {
		pod  *v1.Pod
		says string
	}{
		{claimPod("claim-other-scheduler", e.ns).Scheduler("other-scheduler").Obj(), "pods with resourceClaims"},
		{explicitPod("class-extended-resource-other-scheduler", e.ns).Scheduler("other-scheduler").Obj(), "pods with example.dra-scheduler.io/gpu (DeviceClass example-nvidia-gpu)"},
		{implicitPod("implicit-extended-resource-other-scheduler", e.ns).Scheduler("other-scheduler").Obj(), "pods with a DeviceClass extended resource"},
	} {
		_, err := e.client.CoreV1().Pods(e.ns).Create(e.ctx, tc.pod, metav1.CreateOptions{})
		if err == nil || !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), refusal) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("pod %s naming another scheduler: %v, want a refusal saying %q and %q", tc.pod.Name, err, tc.says, refusal)
		}
	}

	// Everything else is admitted as it is.
	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "unguarded"}})
	for _, tc := range []struct {
		pod  *v1.Pod
		want string
	}{
		{claimPod("claim-ours", e.ns).Scheduler(schedulerapp.Name).Obj(), schedulerapp.Name},
		{objects.MakePod("no-dra", e.ns).Obj(), v1.DefaultSchedulerName},
		{objects.MakePod("unmapped-extended-resource", e.ns).ExtendedResource(unmapped, 1).Obj(), v1.DefaultSchedulerName},
		{objects.MakePod("unmapped-extended-resource-other-scheduler", e.ns).ExtendedResource(unmapped, 1).Scheduler("other-scheduler").Obj(), "other-scheduler"},
		{claimPod("claim-elsewhere", "unguarded").Obj(), v1.DefaultSchedulerName},
		{explicitPod("class-extended-resource-elsewhere", "unguarded").Obj(), v1.DefaultSchedulerName},
		{implicitPod("implicit-extended-resource-elsewhere", "unguarded").Scheduler("other-scheduler").Obj(), "other-scheduler"},
	} {
		p := tc.pod
		created, err := e.client.CoreV1().Pods(p.Namespace).Create(e.ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Errorf("pod %s/%s (scheduler %q) refused: %v", p.Namespace, p.Name, p.Spec.SchedulerName, err)
			continue
		}
		if created.Spec.SchedulerName != tc.want {
			t.Errorf("pod %s/%s came out with scheduler %q, want %q", p.Namespace, p.Name, created.Spec.SchedulerName, tc.want)
		}
	}
}

// applier applies objects as an admin, failing the test on error.
type applier struct {
	t *testing.T
	*kubeapply.Applier
}

func newApplier(t *testing.T, config *restclient.Config) *applier {
	a, err := kubeapply.New(config)
	if err != nil {
		t.Fatal(err)
	}
	return &applier{t: t, Applier: a}
}

// applyKustomization applies what kustomize builds from the manifests'
// dir, as kubectl apply -k does, failing the test on an error and flagging
// warnings, and returns the Deployment it applied.
func (a *applier) applyKustomization(dir string, components ...string) appsv1.Deployment {
	a.t.Helper()
	objs, err := manifests.Build(dir, components...)
	if err != nil {
		a.t.Fatal(err)
	}
	var deployment appsv1.Deployment
	for _, o := range objs {
		a.apply(dir, o)
		if o.GetKind() == "Deployment" {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &deployment); err != nil {
				a.t.Fatal(err)
			}
		}
	}
	if w := a.TakeWarnings(); len(w) > 0 {
		a.t.Errorf("applying %s gave warnings: %q", dir, w)
	}
	return deployment
}

// apply applies obj, read from file.
func (a *applier) apply(file string, obj *unstructured.Unstructured) {
	a.t.Helper()
	if _, err := a.Apply(context.Background(), obj); err != nil {
		a.t.Fatalf("%s: %v", file, err)
	}
}
