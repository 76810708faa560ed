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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// fitAnswer is the part of kubectl dra fit's -o json the test reads.
type fitAnswer struct {
	Count int  `json:"count"`
	Exact bool `json:"exact"`
	Shape struct {
		Self bool `json:"self"`
	} `json:"shape"`
	Nodes []struct {
		Node  string `json:"node"`
		Count int    `json:"count"`
	} `json:"nodes"`
	Next struct {
		Problems []string `json:"problems"`
		Groups   []struct {
			Reason string `json:"reason"`
			Count  int    `json:"count"`
		} `json:"groups"`
	} `json:"next"`
}

// checkKubectlDRAFit runs kubectl dra fit as a user bound only to the
// shipped explainRole, against the installed dra-scheduler, for a pod of
// two devices from a template: fit-1 has four devices, fit-2 four but is
// cordoned, fit-3 three of which a filler holds one, fit-4 four but room
// for one pod. Where fit says N, the asked pod and N-1 copies all bind;
// one more stays unschedulable, and the scheduler's message counts every
// reason fit gave for the next copy; fit then says 0 for the same
// reasons, live and from a dump.
func checkKubectlDRAFit(t *testing.T, e *env, cp *controlplane.ControlPlane) {
	const (
		driver = "fit.example.com"
		user   = "fitter"
	)
	e.t = t
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "fitter-dra-explain"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: explainRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
	}
	if _, err := cp.Client.RbacV1().ClusterRoleBindings().Create(e.ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("bind %s: %v", explainRole, err)
	}
	kubeconfig := kubeconfigAs(t, cp, "fitter", user)

	cordoned := objects.MakeNode("fit-2").Obj()
	cordoned.Spec.Unschedulable = true
	onePod := objects.MakeNode("fit-4").Obj()
	onePod.Status.Allocatable[v1.ResourcePods] = resource.MustParse("1")
	e.create(objects.MakeNode("fit-1").Obj(), cordoned, objects.MakeNode("fit-3").Obj(), onePod)
	devices := func(node string, n int) any {
		s := objects.MakeSlice(node, driver, node)
		for i := range n {
			s.Device(fmt.Sprintf("dev-%d", i), nil)
		}
		return s.Obj()
	}
	e.create(objects.DeviceClass(driver, driver), devices("fit-1", 4), devices("fit-2", 4), devices("fit-3", 3), devices("fit-4", 4),
		objects.ClaimTemplate("fit-two", e.ns, "dev", driver, 2), objects.ClaimTemplate("fit-one", e.ns, "dev", driver, 1))
	filler := pinned(objects.MakePod("fit-filler", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "fit-one").Obj(), "fit-3")
	e.create(filler)
	e.waitScheduled(filler.Name)

	// The pod asked about waits behind a scheduling gate while fit reads.
	probe := objects.MakePod("fit-probe", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "fit-two").Obj()
	probe.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "dra-scheduler.io/fit-test"}}
	e.create(probe)
	first := runFit(t, "pod", probe.Name, "-n", e.ns, "--kubeconfig", kubeconfig)
	t.Logf("fit says %d: %+v", first.Count, first.Nodes)
	if first.Count != 4 || !first.Exact || !first.Shape.Self {
		t.Errorf("fit says %d (exact %v, self %v); want 4 (fit-1 2, fit-3 1, fit-4 1), exact, the probe among them", first.Count, first.Exact, first.Shape.Self)
	}

	// The scheduler's answer: the probe, ungated, and count-1 copies bind.
	ungated := e.pod(probe.Name)
	ungated.Spec.SchedulingGates = nil
	if _, err := e.client.CoreV1().Pods(e.ns).Update(e.ctx, ungated, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("lift the scheduling gate of %s: %v", probe.Name, err)
	}
	copies := []string{probe.Name}
	for i := 2; i <= first.Count+1; i++ {
		name := fmt.Sprintf("fit-copy-%d", i)
		e.create(objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "fit-two").Obj())
		copies = append(copies, name)
	}
	perNode := map[string]int{}
	for _, name := range copies[:first.Count] {
		perNode[e.waitScheduled(name).Spec.NodeName]++
	}
	want := map[string]int{}
	for _, n := range first.Nodes {
		want[n.Node] = n.Count
	}
	if !reflect.DeepEqual(perNode, want) {
		t.Errorf("the scheduler bound the %d copies on %v; fit said %v", first.Count, perNode, want)
	}
	extra := copies[first.Count]
	node, msg := e.waitDecided(extra)
	if node != "" {
		t.Fatalf("copy %d of a shape fit counted %d of bound to %s", first.Count+1, first.Count, node)
	}
	t.Logf("the scheduler says for %s: %s", extra, msg)
	for _, g := range first.Next.Groups {
		if !strings.Contains(msg, fmt.Sprintf("%d %s", g.Count, g.Reason)) {
			t.Errorf("the scheduler's message for %s is %q; it lacks fit's %d %q", extra, msg, g.Count, g.Reason)
		}
	}

	// Now none fits, for the reasons fit gave.
	now := runFit(t, "pod", extra, "-n", e.ns, "--kubeconfig", kubeconfig, "--count", "0")
	if now.Count != 0 || now.Shape.Self != true || !reflect.DeepEqual(now.Next, first.Next) {
		t.Errorf("with %d bound, fit says %d more fit, next %+v; want 0, next %+v", first.Count, now.Count, now.Next, first.Next)
	}
	fromDump := runFit(t, "pod", extra, "-n", e.ns, "--from", dumpObjects(t, e, extra), "--from", dumpBoundPods(t, e, extra), "--count", "0")
	if !reflect.DeepEqual(fromDump, now) {
		t.Errorf("from a dump fit says %+v; live %+v", fromDump, now)
	}
}

// runFit runs kubectl dra fit with args and -o json.
func runFit(t *testing.T, args ...string) fitAnswer {
	t.Helper()
	out := runKubectlDRA(t, append(append([]string{"fit"}, args...), "-o", "json")...)
	var a fitAnswer
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("fit -o json: %v\n%s", err, out)
	}
	return a
}

// dumpBoundPods writes the pods bound to nodes, but the one asked about,
// as `kubectl get pods -A -o yaml` would.
func dumpBoundPods(t *testing.T, e *env, asked string) string {
	t.Helper()
	pods, err := e.client.CoreV1().Pods("").List(e.ctx, metav1.ListOptions{FieldSelector: "spec.nodeName!="})
	if err != nil {
		t.Fatal(err)
	}
	var objs []runtime.Object
	for i := range pods.Items {
		if p := &pods.Items[i]; p.Namespace != e.ns || p.Name != asked {
			objs = append(objs, p)
		}
	}
	data, err := objects.KubectlList(objs...)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pods.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
