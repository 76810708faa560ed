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

package draallocator

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2/ktesting"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// feedFixture runs an inventoryFeed over a fake client's informers.
type feedFixture struct {
	t       *testing.T
	ctx     context.Context
	client  *fake.Clientset
	feed    *inventoryFeed
	changes atomic.Int32 // calls of the feed's changed, from informer goroutines
}

func startFeed(t *testing.T, taintRules bool) *feedFixture {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	x := &feedFixture{t: t, ctx: ctx, client: fake.NewClientset(), feed: newInventoryFeed(nil)}
	x.feed.changed = func() { x.changes.Add(1) }
	factory := informers.NewSharedInformerFactory(x.client, 0)
	if err := x.feed.watch(factory, taintRules); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	return x
}

// waitTaints syncs the feed until dev's taint keys equal want or a few
// seconds pass, and returns what it last saw ("absent" for no device).
func (x *feedFixture) waitTaints(dev inventory.DeviceKey, want string) string {
	x.t.Helper()
	got := ""
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := x.feed.sync(x.ctx); err != nil {
			x.t.Fatalf("sync: %v", err)
		}
		got = "absent"
		if devs := x.feed.inv.Lookup(dev); len(devs) > 0 {
			got = ""
			for _, taint := range devs[0].Spec.Taints {
				got += taint.Key + ";"
			}
		}
		if got == want {
			break
		}
	}
	return got
}

func TestInventoryFeed(t *testing.T) {
	const driver = "gpu.example.com"
	dev0 := inventory.DeviceKey{Driver: driver, Pool: "node-1", Device: "dev-0"}
	dev1 := inventory.DeviceKey{Driver: driver, Pool: "node-1", Device: "dev-1"}
	taint := resourceapi.DeviceTaint{Key: "maintenance", Effect: resourceapi.DeviceTaintEffectNoSchedule}
	rule := objects.DeviceTaintRule("maintenance", driver, "node-1", "dev-0", taint)

	t.Run("a DeviceTaintRule taints the device it names until it is deleted", func(t *testing.T) {
		x := startFeed(t, true)
		x.create(objects.MakeSlice("slice-1", driver, "node-1").Device("dev-0", nil).Device("dev-1", nil).Obj())
		x.createRule(rule)
		if got := x.waitTaints(dev0, "maintenance;"); got != "maintenance;" {
			t.Fatalf("dev-0 taints %q, want the rule's", got)
		}
		if got := x.waitTaints(dev1, ""); got != "" {
			t.Errorf("dev-1 taints %q, want none: the rule names dev-0", got)
		}
		before := x.changes.Load()
		if err := x.client.ResourceV1().DeviceTaintRules().Delete(x.ctx, rule.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := x.waitTaints(dev0, ""); got != "" {
			t.Fatalf("dev-0 taints %q after the rule was deleted, want none", got)
		}
		if x.changes.Load() == before {
			t.Errorf("deleting the rule did not report a change: pods waiting for dev-0 would not be retried")
		}
	})

	t.Run("a deleted slice leaves the inventory", func(t *testing.T) {
		x := startFeed(t, true)
		x.create(objects.MakeSlice("slice-1", driver, "node-1").Device("dev-0", nil).Obj())
		if got := x.waitTaints(dev0, ""); got != "" {
			t.Fatalf("dev-0 %q, want present without taints", got)
		}
		if err := x.client.ResourceV1().ResourceSlices().Delete(x.ctx, "slice-1", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := x.waitTaints(dev0, "absent"); got != "absent" {
			t.Errorf("dev-0 %q after its slice was deleted, want absent", got)
		}
	})

	t.Run("with the DRADeviceTaintRules gate off rules are ignored", func(t *testing.T) {
		x := startFeed(t, false)
		x.createRule(rule)
		x.create(objects.MakeSlice("slice-1", driver, "node-1").Device("dev-0", nil).Obj())
		// The slice is created after the rule: once it is seen, the rule
		// would have been applied with the gate on.
		if got := x.waitTaints(dev0, "maintenance;"); got != "" {
			t.Errorf("dev-0 taints %q with the gate off, want none", got)
		}
	})
}

func (x *feedFixture) create(s *resourceapi.ResourceSlice) {
	x.t.Helper()
	if _, err := x.client.ResourceV1().ResourceSlices().Create(x.ctx, s, metav1.CreateOptions{}); err != nil {
		x.t.Fatal(err)
	}
}

func (x *feedFixture) createRule(r *resourceapi.DeviceTaintRule) {
	x.t.Helper()
	if _, err := x.client.ResourceV1().DeviceTaintRules().Create(x.ctx, r, metav1.CreateOptions{}); err != nil {
		x.t.Fatal(err)
	}
}
