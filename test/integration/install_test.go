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
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
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
//   - every manifest of manifests/ applies server-side without error or
//     warning (PodSecurity "restricted" included);
//   - dra-scheduler, started from the ConfigMap's configuration with the
//     Deployment's flags and authenticated as its ServiceAccount
//     (impersonation, so RBAC judges the ServiceAccount), elects itself on
//     its Lease, answers the Deployment's probes and schedules the examples
//     end to end: a claim template, a MIG slice, a shared claim and a
//     DRA-backed extended resource;
//   - what its role does not grant stays forbidden;
//   - the admission policy rejects a claim-using pod aimed at the default
//     scheduler in a guarded namespace and admits the others.
func TestInstallManifests(t *testing.T) {
	ctx := t.Context()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	t.Cleanup(cp.Stop)
	admin := newApplier(t, cp.Config)

	install, err := manifests.Load(manifests.InstallDir)
	if err != nil {
		t.Fatal(err)
	}
	var deployment appsv1.Deployment
	for _, f := range install {
		for _, o := range f.Objects {
			admin.apply(f.Path, o)
			if o.GetKind() == "Deployment" {
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &deployment); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if w := admin.TakeWarnings(); len(w) > 0 {
		t.Errorf("applying manifests/ gave warnings: %q", w)
	}

	// dra-scheduler as its ServiceAccount, from the ConfigMap, with the
	// Deployment's flags (but --config, which points into the volume).
	saUser := serviceaccount.MakeUsername(manifests.Namespace, manifests.ServiceAccount)
	saConfig := restclient.CopyConfig(cp.Config)
	saConfig.Impersonate.UserName = saUser
	saKubeconfig := filepath.Join(cp.Dir, "dra-scheduler-sa.kubeconfig")
	if err := controlplane.WriteKubeconfig(saConfig, saKubeconfig); err != nil {
		t.Fatal(err)
	}
	configPath := writeConfigMapConfig(t, cp, saKubeconfig)
	// A separate process: with leader election on, kube-scheduler exits the
	// process when it stops.
	container := deployment.Spec.Template.Spec.Containers[0]
	flags := slices.DeleteFunc(slices.Clone(container.Args), func(a string) bool { return strings.HasPrefix(a, "--config=") })
	port := freePort(t)
	// In a pod, delegated authentication and authorization of the secure
	// port use the in-cluster configuration: here, the ServiceAccount's.
	r := startReplica(t, "installed", configPath, append(flags, "--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--authentication-kubeconfig="+saKubeconfig, "--authorization-kubeconfig="+saKubeconfig)...)
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
	t.Run("in a labelled namespace, claim-using pods without a scheduler go to dra-scheduler and pods naming another are refused", func(t *testing.T) {
		checkAdmissionPolicy(t, e)
	})
	t.Run("the monitoring component's reader role lets a ServiceAccount scrape /metrics over HTTPS, and only it", func(t *testing.T) {
		checkMetricsScrape(t, ctx, admin, cp.Client, port)
	})
}

// checkMetricsScrape applies the monitoring component (but the Prometheus
// operator's objects, whose CRDs this API server lacks) and scrapes the
// running scheduler's /metrics with ServiceAccount tokens, as Prometheus
// does: the scheduler asks the API server to authenticate the token
// (TokenReview) and to authorize GET /metrics (SubjectAccessReview).
func checkMetricsScrape(t *testing.T, ctx context.Context, admin *applier, client kubernetes.Interface, port int) {
	monitoring, err := manifests.Load(manifests.MonitoringDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range monitoring {
		for _, o := range f.Objects {
			if o.GroupVersionKind().Group != "monitoring.coreos.com" {
				admin.apply(f.Path, o)
			}
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
		hc := &http.Client{
			Timeout:   10 * time.Second,
			Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // self-signed serving certificate, as the ServiceMonitor accepts
		}
		defer hc.CloseIdleConnections()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/metrics", port), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tr.Status.Token)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("GET /metrics as %s: %v", serviceAccount, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
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

// writeConfigMapConfig writes the ConfigMap's KubeSchedulerConfiguration
// with kubeconfig as its client connection (in a pod, the in-cluster
// config) and returns its path.
func writeConfigMapConfig(t *testing.T, cp *controlplane.ControlPlane, kubeconfig string) string {
	t.Helper()
	raw, err := manifests.SchedulerConfig()
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
	path, err := cp.WriteSchedulerConfig("configmap-scheduler.yaml", out)
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
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // self-signed serving certificate, as the kubelet's probes accept
	}
	defer client.CloseIdleConnections()
	var last string
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-r.done:
			t.Fatalf("dra-scheduler exited while waiting for %s (its log follows)", path)
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d%s", port, path), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("probe %s on the secure port: %s", path, last)
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
// namespace and in an unguarded one.
func checkAdmissionPolicy(t *testing.T, e *env) {
	const message = "must set spec.schedulerName: dra-scheduler"
	claimPod := func(name, ns, scheduler string) *v1.Pod {
		p := objects.MakePod(name, ns).ClaimFromTemplate("gpu", "gpu-80gi").Obj()
		if scheduler != "" {
			p.Spec.SchedulerName = scheduler
		}
		return p
	}
	// A pod as a Deployment's template makes it (no schedulerName) in the
	// guarded namespace comes out aimed at dra-scheduler. The policies take
	// effect once the API server has compiled them: retry until the pod is
	// mutated, deleting whatever got in before.
	var admitted *v1.Pod
	e.waitFor("the mutating admission policy to send a claim-using pod to dra-scheduler", func() (bool, string) {
		created, err := e.client.CoreV1().Pods(e.ns).Create(e.ctx, claimPod("opted-in", e.ns, ""), metav1.CreateOptions{})
		if err != nil {
			return false, err.Error()
		}
		if created.Spec.SchedulerName != schedulerapp.Name {
			_ = e.client.CoreV1().Pods(e.ns).Delete(e.ctx, created.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
			e.waitFor("pod "+created.Name+" to be gone", func() (bool, string) {
				_, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, created.Name, metav1.GetOptions{})
				return apierrors.IsNotFound(err), fmt.Sprint(err)
			})
			return false, "admitted with scheduler " + created.Spec.SchedulerName
		}
		admitted = created
		return true, ""
	})
	if pod := e.waitScheduled(admitted.Name); pod.Spec.NodeName == "" {
		t.Errorf("the opted-in pod was not scheduled")
	}

	// Naming another scheduler explicitly is refused, not rewritten.
	_, err := e.client.CoreV1().Pods(e.ns).Create(e.ctx, claimPod("other-scheduler", e.ns, "other-scheduler"), metav1.CreateOptions{})
	if err == nil || !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), message) {
		t.Errorf("a claim-using pod naming another scheduler: %v, want a refusal saying %q", err, message)
	}

	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "unguarded"}})
	for _, tc := range []struct {
		pod  *v1.Pod
		want string
	}{
		{claimPod("ours", e.ns, schedulerapp.Name), schedulerapp.Name},
		{objects.MakePod("no-claims", e.ns).Obj(), v1.DefaultSchedulerName},
		{claimPod("elsewhere", "unguarded", ""), v1.DefaultSchedulerName},
	} {
		p := tc.pod
		created, err := e.client.CoreV1().Pods(p.Namespace).Create(e.ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Errorf("pod %s/%s (scheduler %q, %d claims) refused: %v", p.Namespace, p.Name, p.Spec.SchedulerName, len(p.Spec.ResourceClaims), err)
			continue
		}
		if created.Spec.SchedulerName != tc.want {
			t.Errorf("pod %s/%s (%d claims) came out with scheduler %q, want %q", p.Namespace, p.Name, len(p.Spec.ResourceClaims), created.Spec.SchedulerName, tc.want)
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

// apply applies obj, read from file.
func (a *applier) apply(file string, obj *unstructured.Unstructured) {
	a.t.Helper()
	if _, err := a.Apply(context.Background(), obj); err != nil {
		a.t.Fatalf("%s: %v", file, err)
	}
}
