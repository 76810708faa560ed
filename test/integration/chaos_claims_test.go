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
	"math/rand/v2"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestChaosClaimsReleasedWhilePodsComeAndGo: every device is wanted.
// Pods leave every 300 ms, three ways: a pod finishes (phase Succeeded:
// the resourceclaim controller removes the reservation, deallocates the
// claim and deletes it; the pod is deleted a moment later, sometimes
// before the controller is done), a pod is deleted at once (the
// controller deallocates, the garbage collector deletes the claim), or a
// pod is deleted whatever its state, possibly while the scheduler writes
// its claim. A new pod arrives for each, so new pods get the devices the
// controller frees as it frees them. Once the churn stops, every pod is
// bound, each claim of a pod gone is deleted, no device is held twice and
// the consistency check finds nothing.
func TestChaosClaimsReleasedWhilePodsComeAndGo(t *testing.T) {
	const (
		driver   = "release.example.com"
		nodes    = 8
		perNode  = 4
		live     = nodes * perNode
		every    = 300 * time.Millisecond
		churnFor = 40 * time.Second
	)
	e := newChaosEnv(t, controlplane.Options{GarbageCollector: true})
	config := writeChaosConfig(t, e.cp, "release.yaml", chaosConfig)
	e.gpuNodes(driver, nodes, perNode)
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("one", e.ns, "dev", driver, 1))
	checks := &checkLog{}
	if _, err := e.cp.StartSchedulerWith(e.ctx, config, controlplane.SchedulerOptions{Plugins: draallocator.Options{Hooks: checks.hooks()}}); err != nil {
		t.Fatalf("start dra-scheduler: %v", err)
	}

	start := time.Now()
	alive := e.templatedPods("p", "one", 0, live)
	next := live
	rng := rand.New(rand.NewPCG(3, 41))
	var finished, deleted, anyState int
	later := make(chan string, 1000)
	for time.Since(start) < churnFor {
		time.Sleep(every)
		boundNow := map[string]bool{}
		if list, err := e.client.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{}); err == nil {
			for _, p := range list.Items {
				if p.Spec.NodeName != "" {
					boundNow[p.Name] = true
				}
			}
		}
		rng.Shuffle(len(alive), func(i, j int) { alive[i], alive[j] = alive[j], alive[i] })
		var gone string
		switch way := rng.IntN(3); {
		case way < 2:
			// A bound pod, if any.
			for i, p := range alive {
				if boundNow[p] {
					gone = p
					alive = append(alive[:i], alive[i+1:]...)
					break
				}
			}
			if gone == "" {
				continue
			}
			if way == 0 {
				finished++
				e.finish(gone)
				later <- gone
				continue
			}
			deleted++
		default:
			anyState++
			gone, alive = alive[0], alive[1:]
		}
		e.deleteNow(gone)
		alive = append(alive, e.templatedPods("p", "one", next, next+1)...)
		next++
		// Finished pods are replaced and deleted once the next one
		// leaves, after 300 ms, sometimes before the controller is done.
		for len(later) > 1 {
			e.deleteNow(<-later)
			alive = append(alive, e.templatedPods("p", "one", next, next+1)...)
			next++
		}
	}
	for len(later) > 0 {
		e.deleteNow(<-later)
		alive = append(alive, e.templatedPods("p", "one", next, next+1)...)
		next++
	}
	n, withDiffs, during := checks.summary(0)
	logChaos(t, "%v of churn: %d pods created; %d finished (then deleted), %d deleted bound, %d deleted in any state; %d consistency checks, %d found differences%s",
		time.Since(start).Round(time.Millisecond), next, finished, deleted, anyState, n, withDiffs, prefixed(during))

	chaosVerdict{e: e, pods: alive, claim: "dev", check: func() ([]string, float64) { return checks.runCheck(t, e.ctx) }}.assert()
	e.waitForLong("only the live pods' claims left", chaosWait, func() (bool, string) {
		claims, err := e.client.ResourceV1().ResourceClaims(e.ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		return len(claims.Items) == len(alive), fmt.Sprintf("%d claims for %d pods", len(claims.Items), len(alive))
	})
}

// finish marks a pod Succeeded, as its kubelet does when its containers
// completed.
func (e *env) finish(name string) {
	e.t.Helper()
	pod, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		e.t.Fatal(err)
	}
	pod.Status.Phase = v1.PodSucceeded
	if _, err := e.client.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, pod, metav1.UpdateOptions{}); err != nil {
		e.t.Fatalf("mark pod %s Succeeded: %v", name, err)
	}
}
