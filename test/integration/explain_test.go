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
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceusage"
	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/pkg/kubectldra"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// explainRole is the ClusterRole manifests/install ships for kubectl dra.
const explainRole = "dra-scheduler:explain"

// checkKubectlDRA runs kubectl dra as a user bound only to the shipped
// explainRole, against the installed dra-scheduler:
//   - explain pod says "fits" on exactly the nodes where the scheduler
//     places a copy of the pod pinned to each node, and the reason it
//     gives for a node is the one the scheduler counts for it;
//   - explain from a dump of the same objects answers the same;
//   - usage counts the devices the scheduler allocated.
func checkKubectlDRA(t *testing.T, e *env, cp *controlplane.ControlPlane) {
	const (
		driver = "explain.example.com"
		user   = "explainer"
	)
	e.t = t
	ctx := e.ctx
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "explainer-dra-explain"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: explainRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
	}
	if _, err := cp.Client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("bind %s: %v", explainRole, err)
	}
	kubeconfig := kubeconfigAs(t, cp, "explainer", user)

	// Four nodes, each with another story for a two-device claim:
	// explain-1 has two free devices, explain-2 one of two tainted,
	// explain-3 only one, explain-4 two that "filler" takes.
	nodes := []string{"explain-1", "explain-2", "explain-3", "explain-4"}
	for _, n := range nodes {
		e.create(objects.MakeNode(n).Obj())
	}
	e.create(objects.DeviceClass(driver, driver),
		objects.MakeSlice("explain-1", driver, "explain-1").Device("dev-0", nil).Device("dev-1", nil).Obj(),
		objects.MakeSlice("explain-2", driver, "explain-2").Device("dev-0", nil).Device("dev-1", nil).
			Taint("explain.example.com/broken", "", resourceapi.DeviceTaintEffectNoSchedule).Obj(),
		objects.MakeSlice("explain-3", driver, "explain-3").Device("dev-0", nil).Obj(),
		objects.MakeSlice("explain-4", driver, "explain-4").Device("dev-0", nil).Device("dev-1", nil).Obj(),
		objects.ClaimTemplate("explain-two", e.ns, "dev", driver, 2))
	filler := pinned(objects.MakePod("explain-filler", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "explain-two").Obj(), "explain-4")
	e.create(filler)
	e.waitScheduled(filler.Name)

	// The pod asked about waits behind a scheduling gate: nothing the
	// scheduler does can change the answer while kubectl dra reads.
	probe := objects.MakePod("explain-probe", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "explain-two").Obj()
	probe.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "dra-scheduler.io/explain-test"}}
	e.create(probe)

	live := runKubectlDRA(t, "explain", "pod", probe.Name, "-n", e.ns, "--kubeconfig", kubeconfig, "-o", "json")
	var report explain.PodReport
	if err := json.Unmarshal([]byte(live), &report); err != nil {
		t.Fatalf("explain -o json: %v\n%s", err, live)
	}
	t.Logf("explain says: %s; fits now on %v", report.Verdict, report.Now.FitNodes)
	reasonOf := map[string]string{}
	for _, g := range report.Now.NotFit {
		for _, ex := range g.Examples {
			reasonOf[ex.Node] = g.Reason
		}
	}

	// The scheduler's answer, node by node: a copy of the probe pinned to
	// each node either binds or is unschedulable, saying why for that
	// node. Each copy can only take its own node's devices, so the copies
	// do not compete.
	var schedulerFits []string
	for _, n := range nodes {
		name := "explain-pinned-" + n
		e.create(pinned(objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "explain-two").Obj(), n))
		node, msg := e.waitDecided(name)
		if node != "" {
			schedulerFits = append(schedulerFits, n)
			continue
		}
		if want := reasonOf[n]; want == "" || !strings.Contains(msg, "1 "+want) {
			t.Errorf("%s: the scheduler says %q; explain's reason for the node is %q (want the scheduler to count it once)", n, msg, want)
		}
	}
	var explainFits []string
	for _, n := range report.Now.FitNodes {
		if slices.Contains(nodes, n) {
			explainFits = append(explainFits, n)
		}
	}
	if !reflect.DeepEqual(explainFits, schedulerFits) || len(schedulerFits) != 1 {
		t.Errorf("explain says the pod fits on %v of the explain nodes, the scheduler placed pinned copies on %v; want the same single node", explainFits, schedulerFits)
	}
	if got := reasonOf["explain-3"]; !strings.Contains(got, "needs 2 matching devices") {
		t.Errorf("explain's reason for explain-3 (one device) is %q, want that it needs 2", got)
	}
	if !slices.Contains(report.Empty.FitNodes, "explain-4") || slices.Contains(report.Empty.FitNodes, "explain-3") {
		t.Errorf("with nothing allocated it fits on %v; want explain-4 (freed) and not explain-3 (too small)", report.Empty.FitNodes)
	}

	t.Run("from a dump of the same objects explain answers as it does live", func(t *testing.T) {
		e.t = t
		dump := dumpObjects(t, e, probe.Name)
		fromDump := runKubectlDRA(t, "explain", "pod", probe.Name, "-n", e.ns, "--from", dump, "-o", "json")
		var r explain.PodReport
		if err := json.Unmarshal([]byte(fromDump), &r); err != nil {
			t.Fatal(err)
		}
		// The pinned copies changed the cluster since: compare with a live
		// answer taken now.
		var now explain.PodReport
		if err := json.Unmarshal([]byte(runKubectlDRA(t, "explain", "pod", probe.Name, "-n", e.ns, "--kubeconfig", kubeconfig, "-o", "json")), &now); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Now, now.Now) || !reflect.DeepEqual(r.Empty, now.Empty) || r.Verdict != now.Verdict {
			t.Errorf("from the dump:\n%+v\nlive:\n%+v", r, now)
		}
	})

	t.Run("usage counts what the scheduler allocated", func(t *testing.T) {
		out := runKubectlDRA(t, "usage", "--kubeconfig", kubeconfig, "-o", "json")
		var u deviceusage.Report
		if err := json.Unmarshal([]byte(out), &u); err != nil {
			t.Fatalf("usage -o json: %v\n%s", err, out)
		}
		want := 2 + 2*len(schedulerFits) // filler and the pinned copies that bound
		for _, c := range u.Classes {
			if c.Class == driver && (c.Devices != 7 || c.Allocated != want || c.Free != 7-want) {
				t.Errorf("class %s: %+v, want 7 devices, %d allocated", driver, c, want)
			}
		}
	})
}

// runKubectlDRA runs the plugin's command as a user would and returns
// its standard output.
func runKubectlDRA(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := kubectldra.NewCommand(strings.NewReader(""), &out, &errOut)
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(t.Context()); err != nil {
		t.Fatalf("kubectl-dra %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// pinned requires the pod to run on node.
func pinned(pod *v1.Pod, node string) *v1.Pod {
	pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: objects.NodeSelectorFor(node)}}
	return pod
}

// waitDecided waits until the scheduler bound the pod or found it
// unschedulable, and returns the node or the message.
func (e *env) waitDecided(name string) (node, msg string) {
	e.t.Helper()
	e.waitFor("the scheduler to decide about pod "+name, func() (bool, string) {
		pod := e.pod(name)
		if node = pod.Spec.NodeName; node != "" {
			return true, ""
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable {
				msg = c.Message
				return true, msg
			}
		}
		return false, fmt.Sprintf("conditions %v", pod.Status.Conditions)
	})
	return node, msg
}

// dumpObjects writes what `kubectl get nodes,pods,resourceslices,
// deviceclasses,resourceclaims,resourceclaimtemplates -A -o yaml` would,
// for the one pod asked about.
func dumpObjects(t *testing.T, e *env, pod string) string {
	t.Helper()
	list := metav1.ListOptions{}
	objs := []runtime.Object{e.pod(pod)}
	nodes, err := e.client.CoreV1().Nodes().List(e.ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for i := range nodes.Items {
		objs = append(objs, &nodes.Items[i])
	}
	slices, err := e.client.ResourceV1().ResourceSlices().List(e.ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for i := range slices.Items {
		objs = append(objs, &slices.Items[i])
	}
	classes, err := e.client.ResourceV1().DeviceClasses().List(e.ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for i := range classes.Items {
		objs = append(objs, &classes.Items[i])
	}
	claims, err := e.client.ResourceV1().ResourceClaims("").List(e.ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for i := range claims.Items {
		objs = append(objs, &claims.Items[i])
	}
	templates, err := e.client.ResourceV1().ResourceClaimTemplates(e.ns).List(e.ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for i := range templates.Items {
		objs = append(objs, &templates.Items[i])
	}
	data, err := objects.KubectlList(objs...)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
