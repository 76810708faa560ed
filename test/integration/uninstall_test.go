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
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/manifests"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestUninstallInTheDocumentedOrderNeverHasTwoAllocatorsLive follows
// docs/install.md's uninstall order on a real kube-apiserver, with a stock
// kube-scheduler (in-tree DynamicResources, its own identity) running
// beside dra-scheduler throughout, and checks after each step who may
// allocate:
//  1. scale dra-scheduler down: a routed pod stays pending, and nobody
//     allocates;
//  2. remove the routing policies: a new pod goes to the default
//     scheduler, whose allocation the guard still refuses;
//  3. hand back the pending pods (delete, and let the controller recreate
//     them): they go to the default scheduler, still refused;
//  4. remove the allocation guard: the default scheduler allocates and
//     binds;
//  5. delete the rest of the install.
//
// A pod dra-scheduler bound before keeps its device all along, and a
// watcher polling every claim finds no device allocated twice at any
// moment.
func TestUninstallInTheDocumentedOrderNeverHasTwoAllocatorsLive(t *testing.T) {
	in := startInstall(t)
	startStockScheduler(t, in.cp)
	e := &env{t: t, ctx: t.Context(), cp: in.cp, client: in.cp.Client, ns: "gpu"}
	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns, Labels: map[string]string{enforceLabel: "true"}}})
	const driver = "uninstall.example.com"
	waitGuardEnforced(e, driver)
	e.create(objects.MakeNode("node-1").Obj(),
		objects.DeviceClass(driver, driver),
		objects.MakeSlice("node-1", driver, "node-1").Device("dev-0", nil).Device("dev-1", nil).Device("dev-2", nil).Obj(),
		objects.ClaimTemplate("one", e.ns, "dev", driver, 1))
	stop := watchNoDeviceTwice(e)
	defer stop()

	running := waitAdmittedFor(e, objects.MakePod("running", e.ns).ClaimFromTemplate("dev", "one").Obj(), schedulerapp.Name)
	e.waitScheduled(running.Name)
	device := allocatedDevice(e, running.Name)

	// 1. Scale dra-scheduler down: its replica stops and releases the Lease.
	in.replica.terminate()
	e.waitFor("the Lease to name no holder", func() (bool, string) {
		lease, err := e.client.CoordinationV1().Leases(manifests.Namespace).Get(e.ctx, "dra-scheduler", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return holder(lease) == "", "holder " + holder(lease)
	})
	pending := waitAdmittedFor(e, objects.MakePod("pending", e.ns).ClaimFromTemplate("dev", "one").Obj(), schedulerapp.Name)
	stillPending(e, 3*time.Second, pending.Name)

	// 2. Remove the routing policies: new pods go to the default
	// scheduler, whose allocations the guard refuses.
	deleteManifest(in.admin, manifests.AdmissionFile)
	afterRouting := waitAdmittedFor(e, objects.MakePod("after-routing", e.ns).ClaimFromTemplate("dev", "one").Obj(), v1.DefaultSchedulerName)
	waitRefusedByTheGuard(e, afterRouting.Name)
	stillPending(e, 2*time.Second, pending.Name, afterRouting.Name)

	// 3. Hand back the pending pod: its controller recreates it, now for
	// the default scheduler.
	e.deletePods([]string{pending.Name})
	handedBack := waitAdmittedFor(e, objects.MakePod("handed-back", e.ns).ClaimFromTemplate("dev", "one").Obj(), v1.DefaultSchedulerName)
	waitRefusedByTheGuard(e, handedBack.Name)

	// 4. Remove the allocation guard: the default scheduler allocates.
	deleteManifest(in.admin, manifests.InstallDir+"/allocation-guard.yaml")
	for _, name := range []string{afterRouting.Name, handedBack.Name} {
		e.waitScheduled(name)
		if d := allocatedDevice(e, name); d == device {
			t.Errorf("the default scheduler gave %s device %s, which pod running holds", name, d)
		}
	}

	// 5. The rest of the install: the bound pods keep their devices.
	objs, err := manifests.Build(manifests.InstallDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := in.admin.Delete(e.ctx, o); err != nil {
			t.Error(err)
		}
	}
	if d := allocatedDevice(e, running.Name); d != device {
		t.Errorf("after the uninstall pod running holds %q, want %s as before", d, device)
	}
}

// deleteManifest deletes the objects of one manifest file, as kubectl
// delete -f does.
func deleteManifest(admin *applier, file string) {
	admin.t.Helper()
	data, err := manifests.ReadFile(file)
	if err != nil {
		admin.t.Fatal(err)
	}
	objs, err := manifests.Decode(data)
	if err != nil {
		admin.t.Fatal(err)
	}
	for _, o := range objs {
		if err := admin.Delete(admin.t.Context(), o); err != nil {
			admin.t.Fatalf("%s: %v", file, err)
		}
	}
}

// stillPending checks for d that the pods stay unbound and their claims
// unallocated.
func stillPending(e *env, d time.Duration, pods ...string) {
	e.t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		for _, name := range pods {
			pod := e.pod(name)
			if pod.Spec.NodeName != "" {
				e.t.Fatalf("pod %s was bound to %s", name, pod.Spec.NodeName)
			}
			for _, s := range pod.Status.ResourceClaimStatuses {
				if s.ResourceClaimName == nil {
					continue
				}
				claim, err := e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, *s.ResourceClaimName, metav1.GetOptions{})
				if err == nil && claim.Status.Allocation != nil {
					e.t.Fatalf("claim %s of pod %s got allocated: %v", claim.Name, name, claim.Status.Allocation.Devices.Results)
				}
			}
		}
	}
}

// allocatedDevice returns the one device the pod's claim dev holds, ""
// for none.
func allocatedDevice(e *env, pod string) string {
	e.t.Helper()
	claim := e.generatedClaim(pod, "dev")
	if claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 {
		return ""
	}
	return claim.Status.Allocation.Devices.Results[0].Device
}

// watchNoDeviceTwice polls every claim of the namespace until the returned
// function is called, failing the test if one device is ever allocated to
// two claims.
func watchNoDeviceTwice(e *env) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			claims, err := e.client.ResourceV1().ResourceClaims(e.ns).List(e.ctx, metav1.ListOptions{})
			if err != nil {
				continue // the test's context ends
			}
			held := map[string]string{}
			for _, c := range claims.Items {
				if c.Status.Allocation == nil {
					continue
				}
				for _, r := range c.Status.Allocation.Devices.Results {
					id := r.Driver + "/" + r.Pool + "/" + r.Device
					if other, ok := held[id]; ok {
						e.t.Errorf("device %s is allocated to claims %s and %s", id, other, c.Name)
					}
					held[id] = c.Name
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
