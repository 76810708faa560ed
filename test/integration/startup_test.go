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
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestStartUpSeesEveryClaim starts dra-scheduler on a cluster where 2000
// claims already hold 2000 of 2020 devices, with its claim handler slowed
// down so that the scheduler's own informers are synced long before the
// plugin has seen every claim, and 30 pods waiting. A scheduler that
// allocated before it had seen every claim would hand out held devices:
// exactly the 20 free ones must be allocated, each once.
func TestStartUpSeesEveryClaim(t *testing.T) {
	const (
		driver       = "startup.example.com"
		nodes        = 20
		heldPerNode  = 100
		devsPerNode  = heldPerNode + 1
		waitingPods  = 30
		handlerDelay = time.Millisecond
	)
	ctx := t.Context()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	t.Cleanup(cp.Stop)
	e := &env{t: t, ctx: ctx, cp: cp, client: cp.Client, ns: "test"}
	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}}, objects.DeviceClass(driver, driver))
	for n := range nodes {
		node := fmt.Sprintf("node-%d", n)
		slice := objects.MakeSlice(node, driver, node)
		for d := range devsPerNode {
			slice.Device(fmt.Sprintf("dev-%d", d), nil)
		}
		e.create(objects.MakeNode(node).Obj(), slice.Obj())
	}

	start := time.Now()
	err = schedbench.Parallel(ctx, nodes*heldPerNode, 8, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("held-%d", i)
		claim, err := e.client.ResourceV1().ResourceClaims(e.ns).Create(ctx, objects.Claim(name, e.ns, objects.ClaimSpec("dev", driver, 1)), metav1.CreateOptions{})
		if err != nil {
			return err
		}
		claim.Status.Allocation = &resourceapi.AllocationResult{
			Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
				Request: "dev", Driver: driver, Pool: fmt.Sprintf("node-%d", i/heldPerNode), Device: fmt.Sprintf("dev-%d", i%heldPerNode),
			}}},
			NodeSelector:        objects.NodeSelectorFor(fmt.Sprintf("node-%d", i/heldPerNode)),
			AllocationTimestamp: ptr.To(metav1.Now()),
		}
		_, err = e.client.ResourceV1().ResourceClaims(e.ns).UpdateStatus(ctx, claim, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("allocate the held claims: %v", err)
	}
	t.Logf("%d allocated claims created in %v", nodes*heldPerNode, time.Since(start).Round(time.Millisecond))
	for i := range waitingPods {
		name := fmt.Sprintf("waiting-%d", i)
		e.create(objects.Claim(name, e.ns, objects.ClaimSpec("dev", driver, 1)),
			objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).Claim("dev", name).Obj())
	}

	path, err := cp.WriteSchedulerConfig("scheduler.yaml", []byte(draConfig))
	if err != nil {
		t.Fatal(err)
	}
	slow := &draallocator.Hooks{Enter: func(point string, _ *v1.Pod) {
		if point == "ResourceClaimEvent" {
			time.Sleep(handlerDelay)
		}
	}}
	if _, err := cp.StartSchedulerWith(ctx, path, controlplane.SchedulerOptions{Plugins: draallocator.Options{Hooks: slow}}); err != nil {
		t.Fatalf("start dra-scheduler: %v", err)
	}

	e.waitFor("20 waiting pods bound and the other 10 failed once", func() (bool, string) {
		bound, failed := e.boundOrUnschedulable("waiting", waitingPods)
		return bound >= nodes && bound+failed == waitingPods, fmt.Sprintf("%d bound, %d failed", bound, failed)
	})
	held := e.allocatedDevices()
	var free []string
	for device, claims := range held {
		if len(claims) > 1 {
			t.Errorf("device %s allocated to %d claims: %v", device, len(claims), claims)
		}
		if strings.HasSuffix(device, fmt.Sprintf("/dev-%d", heldPerNode)) {
			free = append(free, device)
		}
	}
	if len(held) != nodes*devsPerNode || len(free) != nodes {
		t.Errorf("%d devices allocated (%d of the %d free ones), want all %d", len(held), len(free), nodes, nodes*devsPerNode)
	}
}
