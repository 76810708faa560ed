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
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedbench"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestChaosStartWith10000AllocatedClaims starts dra-scheduler on a cluster
// where 10,000 claims already hold 10,000 of 10,400 devices (100 nodes ×
// 104), each reserved for a bound pod, written as a scheduler before it
// would have written them, with 200 templated pods waiting; 100 more
// arrive once it runs. Every new pod must get one of the 400 free
// devices (dev-100 ... dev-103 of a node), none twice, and the
// consistency check must find nothing. It reports how long the start
// took.
func TestChaosStartWith10000AllocatedClaims(t *testing.T) {
	const (
		driver  = "held.example.com"
		nodes   = 100
		held    = 100 // per node
		perNode = held + 4
		waiting = 200
		later   = 100
	)
	e := newChaosEnv(t, controlplane.Options{})
	config := writeChaosConfig(t, e.cp, "held.yaml", chaosConfig)
	e.gpuNodes(driver, nodes, perNode)
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("one", e.ns, "dev", driver, 1))

	start := time.Now()
	err := schedbench.Parallel(e.ctx, nodes*held, 16, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("held-%d", i)
		node, device := fmt.Sprintf("node-%d", i/held), fmt.Sprintf("dev-%d", i%held)
		claim := objects.Claim(name, e.ns, objects.ClaimSpec("dev", driver, 1))
		claim.Finalizers = []string{resourceapi.Finalizer}
		claim, err := e.client.ResourceV1().ResourceClaims(e.ns).Create(ctx, claim, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		pod := objects.MakePod(name, e.ns).Claim("dev", name).Obj()
		pod.Spec.NodeName = node
		pod, err = e.client.CoreV1().Pods(e.ns).Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		claim.Status.Allocation = &resourceapi.AllocationResult{
			Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
				Request: "dev", Driver: driver, Pool: node, Device: device,
			}}},
			NodeSelector:        objects.NodeSelectorFor(node),
			AllocationTimestamp: ptr.To(metav1.Now()),
		}
		claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: pod.Name, UID: pod.UID}}
		_, err = e.client.ResourceV1().ResourceClaims(e.ns).UpdateStatus(ctx, claim, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("create the held claims and their pods: %v", err)
	}
	logChaos(t, "%d claims allocated and reserved for %d bound pods, created in %v", nodes*held, nodes*held, time.Since(start).Round(time.Millisecond))
	pods := e.templatedPods("new", "one", 0, waiting)

	checks := &checkLog{}
	start = time.Now()
	sched, err := e.cp.StartSchedulerWith(e.ctx, config, controlplane.SchedulerOptions{Plugins: draallocator.Options{Hooks: checks.hooks()}})
	if err != nil {
		t.Fatalf("start dra-scheduler: %v", err)
	}
	healthy := time.Since(start)
	e.waitForLong("dra-scheduler's /readyz", chaosWait, func() (bool, string) {
		code, body, err := getSecurePort(e.ctx, sched.SecurePort, "/readyz", "")
		return err == nil && code == http.StatusOK, fmt.Sprintf("%d %v %s", code, err, body)
	})
	ready := time.Since(start)
	e.waitForLong("the first waiting pod bound", chaosWait, func() (bool, string) {
		return len(e.unboundOf(pods)) < len(pods), "none bound"
	})
	first := time.Since(start)
	e.waitBound(pods, len(pods))
	allWaiting := time.Since(start)
	pods = append(pods, e.templatedPods("new", "one", waiting, waiting+later)...)

	chaosVerdict{e: e, pods: pods, claim: "dev", check: func() ([]string, float64) {
		checkStart := time.Now()
		diffs, gauge := checks.runCheck(t, e.ctx)
		logChaos(t, "consistency check over %d claims and %d devices answered %v after SIGUSR2", nodes*held+len(pods), nodes*perNode, time.Since(checkStart).Round(time.Millisecond))
		return diffs, gauge
	}}.assert()
	logChaos(t, "dra-scheduler started on %d allocated claims: /healthz %v, /readyz %v, first of %d waiting pods bound %v, all %v after the start",
		nodes*held, healthy.Round(time.Millisecond), ready.Round(time.Millisecond), waiting, first.Round(time.Millisecond), allWaiting.Round(time.Millisecond))

	// Only free devices: a new pod's is dev-100 ... dev-103 of its node.
	claims, err := e.client.ResourceV1().ResourceClaims(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	newClaims := 0
	for _, c := range claims.Items {
		if strings.HasPrefix(c.Name, "held-") || c.Status.Allocation == nil {
			continue
		}
		newClaims++
		for _, r := range c.Status.Allocation.Devices.Results {
			n, err := strconv.Atoi(strings.TrimPrefix(r.Device, "dev-"))
			if err != nil || n < held {
				t.Errorf("claim %s got %s/%s, which a held claim has", c.Name, r.Pool, r.Device)
			}
		}
	}
	if newClaims != waiting+later {
		t.Errorf("%d new claims allocated, want %d", newClaims, waiting+later)
	}
}
