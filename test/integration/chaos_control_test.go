//go:build chaos

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
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestChaosVerdictCanFail is the scenarios' negative control: each part
// of chaosVerdict finds what it looks for when it is there. The plugin
// drops the claim events of a claim allocated behind its back (its
// handler panics, the guard contains it), so its tracker holds the
// device free: the consistency check must report it, through the hook
// and the gauge, and report nothing once the claim is gone. Two claims
// written with one device, and a pod no device is left for, must be
// found by claimProblems and unboundOf.
func TestChaosVerdictCanFail(t *testing.T) {
	const driver = "control.example.com"
	var drop atomic.Bool
	var dropped atomic.Int64
	checks := &checkLog{}
	hooks := checks.hooks()
	hooks.Enter = func(point string, _ *v1.Pod) {
		if point == "ResourceClaimEvent" && drop.Load() {
			dropped.Add(1)
			panic("the test drops this claim event")
		}
	}
	e := newChaosEnv(t, controlplane.Options{WithoutControllers: true})
	config := writeChaosConfig(t, e.cp, "control.yaml", chaosConfig)
	e.create(objects.MakeNode("node-0").Obj(), objects.MakeSlice("node-0", driver, "node-0").Device("dev-0", nil).Device("dev-1", nil).Obj(),
		objects.DeviceClass(driver, driver))
	if _, err := e.cp.StartSchedulerWith(e.ctx, config, controlplane.SchedulerOptions{Plugins: draallocator.Options{Hooks: hooks}}); err != nil {
		t.Fatalf("start dra-scheduler: %v", err)
	}
	if diffs, gauge := checks.runCheck(t, e.ctx); len(diffs) != 0 || gauge != 0 {
		t.Fatalf("before anything happened: %v (gauge %v)", diffs, gauge)
	}

	allocate := func(name, device string) {
		t.Helper()
		claim, err := e.client.ResourceV1().ResourceClaims(e.ns).Create(e.ctx, objects.Claim(name, e.ns, objects.ClaimSpec("dev", driver, 1)), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		claim.Status.Allocation = &resourceapi.AllocationResult{
			Devices:      resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "dev", Driver: driver, Pool: "node-0", Device: device}}},
			NodeSelector: objects.NodeSelectorFor("node-0"),
		}
		if _, err := e.client.ResourceV1().ResourceClaims(e.ns).UpdateStatus(e.ctx, claim, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	drop.Store(true)
	allocate("unseen", "dev-0")
	e.waitFor("the claim's creation and allocation dropped", func() (bool, string) {
		return dropped.Load() >= 2, fmt.Sprintf("%d events dropped", dropped.Load())
	})
	drop.Store(false)
	diffs, gauge := checks.runCheck(t, e.ctx)
	if len(diffs) == 0 || gauge == 0 || !strings.Contains(strings.Join(diffs, "\n"), e.ns+"/unseen") {
		t.Errorf("with a claim's allocation missed, the check found %v (gauge %v), want the claim test/unseen named", diffs, gauge)
	}
	t.Logf("the check found, as it should:\n  %s", strings.Join(diffs, "\n  "))
	if err := e.client.ResourceV1().ResourceClaims(e.ns).Delete(e.ctx, "unseen", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the check to find nothing once the claim is gone", func() (bool, string) {
		diffs, gauge := checks.runCheck(t, e.ctx)
		return len(diffs) == 0 && gauge == 0, strings.Join(diffs, "; ")
	})

	allocate("one", "dev-1")
	allocate("two", "dev-1")
	// A scheduler of another name: this pod stays pending.
	e.create(objects.MakePod("stuck", e.ns).Scheduler("nobody").Claim("dev", "one").Obj())
	problems := strings.Join(e.claimProblems([]string{"stuck"}, "dev"), "\n")
	if !strings.Contains(problems, "device "+driver+"/node-0/dev-1 is allocated to claims") {
		t.Errorf("claimProblems did not find dev-1 allocated twice:\n%s", problems)
	}
	if !strings.Contains(problems, "pod stuck on : claim one not reserved for it") {
		t.Errorf("claimProblems did not find the pod's claim unreserved:\n%s", problems)
	}
	if unbound := e.unboundOf([]string{"stuck"}); len(unbound) != 1 {
		t.Errorf("unboundOf = %v, want the pod", unbound)
	}
}
