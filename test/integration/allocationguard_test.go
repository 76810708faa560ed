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
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// stockSchedulerConfig is kube-scheduler as the control plane runs it:
// the default profile, its in-tree DynamicResources plugin allocating
// claims, without leader election.
const stockSchedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: default-scheduler
`

// TestOnlyDRASchedulerAllocatesBesideTheDefaultScheduler installs
// manifests/install (its allocation guard, allocation-guard.yaml,
// among it) and runs dra-scheduler as its ServiceAccount beside a stock
// kube-scheduler with its own identity (system:kube-scheduler) on the
// same pools. A pod in a namespace nobody labelled goes to the default
// scheduler: the API server refuses its allocation, and the pod stays
// pending with the policy's message instead of running without devices.
// A pod for dra-scheduler gets its devices, and no device is ever held by
// two claims.
func TestOnlyDRASchedulerAllocatesBesideTheDefaultScheduler(t *testing.T) {
	ctx := t.Context()
	cp := startInstall(t).cp
	startStockScheduler(t, cp)

	e := &env{t: t, ctx: ctx, cp: cp, client: cp.Client, ns: "unlabelled"}
	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}})
	const driver = "guard.example.com"
	waitGuardEnforced(e, driver)
	e.create(objects.MakeNode("node-1").Obj(),
		objects.DeviceClass(driver, driver),
		objects.MakeSlice("node-1", driver, "node-1").Device("dev-0", nil).Device("dev-1", nil).Obj(),
		objects.ClaimTemplate("one", e.ns, "dev", driver, 1))

	// No schedulerName, in a namespace nobody labelled: the default
	// scheduler's.
	e.create(objects.MakePod("default-pod", e.ns).ClaimFromTemplate("dev", "one").Obj())
	if refusal := waitRefusedByTheGuard(e, "default-pod"); !strings.Contains(refusal, "system:kube-scheduler") {
		t.Errorf("the refusal %q does not name who was refused", refusal)
	}

	// dra-scheduler's pod gets its device beside it.
	e.create(objects.MakePod("guarded-pod", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "one").Obj())
	e.waitScheduled("guarded-pod")
	if claim := e.generatedClaim("guarded-pod", "dev"); claim.Status.Allocation == nil {
		t.Errorf("dra-scheduler bound guarded-pod but its claim %s is not allocated", claim.Name)
	}

	// The default scheduler keeps trying and keeps being refused: its pod
	// never binds, its claim never holds a device, and no device is
	// allocated twice.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if pod := e.pod("default-pod"); pod.Spec.NodeName != "" {
			t.Fatalf("the default scheduler bound default-pod to %s", pod.Spec.NodeName)
		}
		claims, err := e.client.ResourceV1().ResourceClaims(e.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		held := map[string]string{}
		for _, c := range claims.Items {
			if c.Status.Allocation == nil {
				continue
			}
			if strings.HasPrefix(c.Name, "default-pod") {
				t.Fatalf("claim %s of default-pod got allocated: %v", c.Name, c.Status.Allocation.Devices.Results)
			}
			for _, r := range c.Status.Allocation.Devices.Results {
				id := r.Driver + "/" + r.Pool + "/" + r.Device
				if other, ok := held[id]; ok {
					t.Fatalf("device %s is allocated to claims %s and %s", id, other, c.Name)
				}
				held[id] = c.Name
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// startStockScheduler runs kube-scheduler as the control plane runs it
// (stockSchedulerConfig) as system:kube-scheduler, in its own process.
func startStockScheduler(t *testing.T, cp *controlplane.ControlPlane) *replica {
	t.Helper()
	stock := fmt.Sprintf("%sclientConnection:\n  kubeconfig: %s\n", stockSchedulerConfig, kubeconfigAs(t, cp, t.Name()+"-kube-scheduler", "system:kube-scheduler"))
	path, err := cp.WriteSchedulerConfig(t.Name()+"-default-scheduler.yaml", []byte(stock))
	if err != nil {
		t.Fatal(err)
	}
	return startReplica(t, "default-scheduler", path)
}

// waitRefusedByTheGuard waits for the default scheduler's FailedScheduling
// event that carries the allocation guard's message, and returns its note.
func waitRefusedByTheGuard(e *env, pod string) string {
	e.t.Helper()
	var refusal string
	e.waitFor("the default scheduler to report the guard's refusal for "+pod, func() (bool, string) {
		events := e.podEvents(pod, v1.DefaultSchedulerName)
		for _, ev := range events {
			if ev.Reason == "FailedScheduling" && strings.Contains(ev.Note, "only dra-scheduler allocates these devices") {
				refusal = ev.Note
				return true, ""
			}
		}
		return false, describeEvents(events)
	})
	return refusal
}

// waitGuardEnforced waits until the API server enforces the allocation
// guard: a policy takes effect a moment after it is created. It tries to
// allocate a claim as system:kube-scheduler, on a device no slice has,
// until that is refused, and deletes the claim.
func waitGuardEnforced(e *env, driver string) {
	e.t.Helper()
	config := restclient.CopyConfig(e.cp.Config)
	config.Impersonate.UserName = "system:kube-scheduler"
	other, err := kubernetes.NewForConfig(config)
	if err != nil {
		e.t.Fatal(err)
	}
	claims := e.client.ResourceV1().ResourceClaims(e.ns)
	sentinel := objects.Claim("guard-sentinel", e.ns, objects.ClaimSpec("dev", driver, 1))
	e.create(sentinel)
	e.waitFor("the API server to enforce the allocation guard", func() (bool, string) {
		claim, err := claims.Get(e.ctx, sentinel.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		claim.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
			Results: []resourceapi.DeviceRequestAllocationResult{{Request: "dev", Driver: driver, Pool: "guard-sentinel", Device: "none"}},
		}}
		_, err = other.ResourceV1().ResourceClaims(e.ns).UpdateStatus(e.ctx, claim, metav1.UpdateOptions{})
		switch {
		case err == nil:
			// Not yet: take the allocation back.
			if claim, err = claims.Get(e.ctx, sentinel.Name, metav1.GetOptions{}); err == nil {
				claim.Status.Allocation = nil
				_, err = claims.UpdateStatus(e.ctx, claim, metav1.UpdateOptions{})
			}
			return false, fmt.Sprintf("system:kube-scheduler allocated the sentinel claim (%v)", err)
		case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "only dra-scheduler allocates these devices"):
			return true, ""
		default:
			return false, err.Error()
		}
	})
	if err := claims.Delete(e.ctx, sentinel.Name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
}
