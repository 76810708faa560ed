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
	"cmp"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/manifests"
	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// enforceLabel is the namespace label the routing policies select on.
const enforceLabel = "dra-scheduler.io/enforce"

// TestOptOutRoutingAndTheLabelGuard installs manifests/install with the
// components admission/opt-out and admission/label-guard, as an operator's
// overlay lists them, and runs dra-scheduler as its ServiceAccount:
//   - a namespace created after the install, labelled by no one, is
//     routed: a pod that uses DRA and names no scheduler goes to
//     dra-scheduler and gets its device, and one naming another scheduler
//     is refused;
//   - kube-system and a namespace an admin labelled out are left alone;
//   - a tenant that may edit namespaces can neither label its namespace
//     out nor create one labelled, while its other label edits pass; a
//     cluster admin (system:masters) can.
func TestOptOutRoutingAndTheLabelGuard(t *testing.T) {
	cp := startInstall(t, manifests.OptOutDir, manifests.LabelGuardDir).cp
	e := &env{t: t, ctx: t.Context(), cp: cp, client: cp.Client, ns: "team-a"}
	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}})
	const driver = "routing.example.com"
	e.create(objects.MakeNode("node-1").Obj(),
		objects.DeviceClass(driver, driver),
		objects.MakeSlice("node-1", driver, "node-1").Device("dev-0", nil).Device("dev-1", nil).Obj(),
		objects.ClaimTemplate("one", e.ns, "dev", driver, 1))

	// A namespace nobody labelled is routed.
	admitted := waitAdmittedFor(e, objects.MakePod("routed", e.ns).ClaimFromTemplate("dev", "one").Obj(), schedulerapp.Name)
	if pod := e.waitScheduled(admitted.Name); pod.Spec.NodeName != "node-1" {
		t.Errorf("the routed pod is on %q, want node-1", pod.Spec.NodeName)
	}
	if claim := e.generatedClaim(admitted.Name, "dev"); claim.Status.Allocation == nil {
		t.Errorf("the routed pod is bound but its claim %s is not allocated", claim.Name)
	}
	_, err := e.client.CoreV1().Pods(e.ns).Create(e.ctx, objects.MakePod("other-scheduler", e.ns).Scheduler("other-scheduler").ClaimFromTemplate("dev", "one").Obj(), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "must set spec.schedulerName: dra-scheduler") {
		t.Errorf("a pod naming another scheduler in a routed namespace: %v, want the routing policy's refusal", err)
	}

	// kube-system and a namespace labelled out are not.
	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-out", Labels: map[string]string{enforceLabel: "false"}}})
	for _, ns := range []string{"kube-system", "team-out"} {
		for _, p := range []*v1.Pod{
			objects.MakePod("left-alone", ns).ClaimFromTemplate("dev", "one").Obj(),
			objects.MakePod("other-scheduler", ns).Scheduler("other-scheduler").ClaimFromTemplate("dev", "one").Obj(),
		} {
			created, err := e.client.CoreV1().Pods(ns).Create(e.ctx, p, metav1.CreateOptions{})
			if err != nil {
				t.Errorf("pod %s/%s: %v, want it admitted as it is", ns, p.Name, err)
				continue
			}
			if want := cmp.Or(p.Spec.SchedulerName, v1.DefaultSchedulerName); created.Spec.SchedulerName != want {
				t.Errorf("pod %s/%s was admitted with scheduler %q, want %q", ns, p.Name, created.Spec.SchedulerName, want)
			}
			_ = e.client.CoreV1().Pods(ns).Delete(e.ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		}
	}

	// The label guard: a tenant that may edit namespaces.
	tenant := tenantClient(e)
	const refusal = "may set, change or remove the label dra-scheduler.io/enforce of namespace"
	labelOut := func(client kubernetes.Interface, ns string) error {
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"false"}}}`, enforceLabel)
		_, err := client.CoreV1().Namespaces().Patch(e.ctx, ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	}
	e.waitFor("the API server to enforce the label guard", func() (bool, string) {
		err := labelOut(tenant, e.ns)
		if err == nil {
			// Not yet: take the label back.
			patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, enforceLabel)
			_, err = e.client.CoreV1().Namespaces().Patch(e.ctx, e.ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			return false, fmt.Sprintf("the tenant labelled %s out (%v)", e.ns, err)
		}
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), refusal), err.Error()
	})
	if _, err := tenant.CoreV1().Namespaces().Create(e.ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "tenant-out", Labels: map[string]string{enforceLabel: "false"},
	}}, metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), refusal) {
		t.Errorf("the tenant created a namespace labelled out: %v, want the label guard's refusal", err)
	}
	if _, err := tenant.CoreV1().Namespaces().Create(e.ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tenant-made"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("the tenant could not create a namespace without the label: %v", err)
	}
	if _, err := tenant.CoreV1().Namespaces().Patch(e.ctx, e.ns, types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"a"}}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("the tenant could not set another label: %v", err)
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, enforceLabel)
	if _, err := tenant.CoreV1().Namespaces().Patch(e.ctx, "team-out", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil || !strings.Contains(err.Error(), refusal) {
		t.Errorf("the tenant removed the label of team-out: %v, want the label guard's refusal", err)
	}
	// A cluster admin may.
	if err := labelOut(e.client, "tenant-made"); err != nil {
		t.Errorf("a cluster admin could not label a namespace out: %v", err)
	}
	if _, err := e.client.CoreV1().Namespaces().Patch(e.ctx, "team-out", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Errorf("a cluster admin could not remove the label: %v", err)
	}
}

// installed is a control plane with manifests/install applied and
// dra-scheduler running from the Deployment as its ServiceAccount.
type installed struct {
	cp      *controlplane.ControlPlane
	admin   *applier
	replica *replica
}

// startInstall starts a control plane, applies manifests/install with the
// components and runs dra-scheduler from the Deployment, as its
// ServiceAccount.
func startInstall(t *testing.T, components ...string) installed {
	t.Helper()
	cp, err := controlplane.Start(t.Context(), controlplane.Options{})
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	t.Cleanup(cp.Stop)
	admin := newApplier(t, cp.Config)
	deployment := admin.applyKustomization(manifests.InstallDir, components...)
	saKubeconfig := kubeconfigAs(t, cp, "installed-dra-scheduler", serviceaccount.MakeUsername(manifests.Namespace, manifests.ServiceAccount))
	r, _ := startFromDeployment(t, "installed", deployment, writeConfigMapConfig(t, cp, manifests.InstallDir, saKubeconfig), saKubeconfig)
	return installed{cp: cp, admin: admin, replica: r}
}

// waitAdmittedFor creates the pod until admission gives it scheduler
// (routing policies take effect, and stop taking effect, a moment after
// they are created or deleted), deleting whatever got in before, and
// returns it.
func waitAdmittedFor(e *env, p *v1.Pod, scheduler string) *v1.Pod {
	e.t.Helper()
	var admitted *v1.Pod
	e.waitFor("admission to give pod "+p.Name+" scheduler "+scheduler, func() (bool, string) {
		created, err := e.client.CoreV1().Pods(p.Namespace).Create(e.ctx, p.DeepCopy(), metav1.CreateOptions{})
		if err != nil {
			return false, err.Error()
		}
		if created.Spec.SchedulerName != scheduler {
			_ = e.client.CoreV1().Pods(p.Namespace).Delete(e.ctx, created.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
			e.waitFor("pod "+created.Name+" to be gone", func() (bool, string) {
				_, err := e.client.CoreV1().Pods(p.Namespace).Get(e.ctx, created.Name, metav1.GetOptions{})
				return apierrors.IsNotFound(err), fmt.Sprint(err)
			})
			return false, "admitted with scheduler " + created.Spec.SchedulerName
		}
		admitted = created
		return true, ""
	})
	return admitted
}

// tenantClient is a client for the user tenant (group tenants), who may
// create, update and patch namespaces, as a tenant admin may.
func tenantClient(e *env) kubernetes.Interface {
	e.t.Helper()
	rbac := e.client.RbacV1()
	if _, err := rbac.ClusterRoles().Create(e.ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "namespace-editor"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list", "create", "update", "patch"}}},
	}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := rbac.ClusterRoleBindings().Create(e.ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "tenant-namespace-editor"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "namespace-editor"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "tenant"}},
	}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	config := restclient.CopyConfig(e.cp.Config)
	config.Impersonate = restclient.ImpersonationConfig{UserName: "tenant", Groups: []string{"tenants"}}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		e.t.Fatal(err)
	}
	return client
}
