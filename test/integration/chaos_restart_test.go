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
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// chaosLeaderConfig is chaosProfile with leader election on and short
// lease timings (leaderHeader).
const chaosLeaderConfig = leaderHeader + chaosProfile

// replicaCheck is a chaosVerdict's check of a scheduler process: what
// the consistency check it runs on SIGUSR2 found (the differences it
// logged while the last check's gauge is not 0).
func replicaCheck(t *testing.T, r *chaosReplica) func() ([]string, float64) {
	return func() ([]string, float64) {
		logged, gauge, total := r.runCheck(t)
		if total > 0 {
			t.Logf("replica %s counted %v differences over its life:\n  %s", r.name, total, strings.Join(logged, "\n  "))
		}
		if gauge == 0 {
			return nil, 0
		}
		return logged, gauge
	}
}

// waitBound waits until at least n of pods are bound and returns how
// many are.
func (e *env) waitBound(pods []string, n int) int {
	e.t.Helper()
	bound := 0
	e.waitForLong(fmt.Sprintf("%d of %d pods to be bound", n, len(pods)), chaosWait, func() (bool, string) {
		bound = len(pods) - len(e.unboundOf(pods))
		return bound >= n, fmt.Sprintf("%d bound", bound)
	})
	return bound
}

// inFlight counts the namespace's claims that are allocated while the
// pods they are reserved for (or would be) are not bound: what a
// scheduler killed now leaves half done.
func (e *env) inFlight() int {
	e.t.Helper()
	pods, err := e.client.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	unboundClaims := map[string]bool{}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			continue
		}
		for _, s := range p.Status.ResourceClaimStatuses {
			if s.ResourceClaimName != nil {
				unboundClaims[*s.ResourceClaimName] = true
			}
		}
	}
	claims, err := e.client.ResourceV1().ResourceClaims(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, c := range claims.Items {
		if c.Status.Allocation != nil && unboundClaims[c.Name] {
			n++
		}
	}
	return n
}

// TestChaosSchedulerKilledMidBurst: dra-scheduler, a process of its own,
// is killed (SIGKILL: no clean-up) twice in the middle of a burst of
// templated pods, with claims allocated whose pods are not bound yet; a
// new process takes over each time. The last one binds every pod, no
// device is held twice, and its consistency check finds nothing.
func TestChaosSchedulerKilledMidBurst(t *testing.T) {
	const (
		driver = "killed.example.com"
		pods   = 60
	)
	e := newChaosEnv(t, controlplane.Options{})
	config := writeChaosConfig(t, e.cp, "killed.yaml", chaosConfig)
	e.gpuNodes(driver, 8, 8)
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("one", e.ns, "dev", driver, 1))

	start := time.Now()
	r := startChaosReplica(t, "a", config)
	logChaos(t, "replica a healthy in %v", time.Since(start).Round(time.Millisecond))
	names := e.templatedPods("p", "one", 0, pods)
	for i, at := range []int{pods / 4, pods * 3 / 5} {
		bound := e.waitBound(names, at)
		half := e.inFlight()
		r.kill()
		killed := time.Now()
		next := string(rune('b' + i))
		r = startChaosReplica(t, next, config)
		logChaos(t, "killed replica %c with %d pods bound and %d claims allocated for pods not bound; replica %s healthy %v later",
			'a'+i, bound, half, next, time.Since(killed).Round(time.Millisecond))
	}
	chaosVerdict{e: e, pods: names, claim: "dev", check: replicaCheck(t, r)}.assert()
	logChaos(t, "%d pods bound %v after the first start", pods, time.Since(start).Round(time.Millisecond))
}

// TestChaosLeaderHandover: two replicas with leader election; templated
// pods arrive at 10 a second; while they schedule, the leader is stopped
// as in a rolling update (SIGTERM: it releases its Lease) while a new
// replica starts, one of the two takes over, and the new leader is killed
// (SIGKILL: the last replica waits for the Lease to expire). Before the
// pods arrive the follower's consistency check finds nothing either: its
// state comes from its informers alone. At the end every pod is bound, no
// device is held twice and the last leader's check finds nothing.
func TestChaosLeaderHandover(t *testing.T) {
	const (
		driver = "handover.example.com"
		pods   = 90
	)
	e := newChaosEnv(t, controlplane.Options{})
	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dra-system"}})
	config := writeChaosConfig(t, e.cp, "handover.yaml", chaosLeaderConfig)
	e.gpuNodes(driver, 8, 12)
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("one", e.ns, "dev", driver, 1))
	warm := e.templatedPods("warm", "one", 0, 4)

	replicas := []*chaosReplica{startChaosReplica(t, "a", config), startChaosReplica(t, "b", config)}
	leader := func() (*chaosReplica, *chaosReplica) {
		var l, f *chaosReplica
		e.waitForLong("a leader", chaosWait, func() (bool, string) {
			for _, r := range replicas {
				if r.leader.Load() {
					l = r
				} else {
					f = r
				}
			}
			if l != nil {
				return true, ""
			}
			return false, "no replica logged acquiring the lease"
		})
		return l, f
	}
	l, f := leader()
	e.waitBound(warm, len(warm))
	for _, r := range []*chaosReplica{l, f} {
		if diffs, gauge := replicaCheck(t, r)(); gauge != 0 {
			t.Errorf("before the burst, replica %s (leading: %v) found %v differences:\n  %s", r.name, r.leader.Load(), gauge, strings.Join(diffs, "\n  "))
		}
	}

	start := time.Now()
	names := make([]string, pods)
	for i := range names {
		names[i] = fmt.Sprintf("p-%d", i)
	}
	created := make(chan struct{})
	go func() {
		defer close(created)
		for i := range pods {
			if err := objects.Create(e.ctx, e.client, objects.MakePod(names[i], e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "one").Obj()); err != nil {
				t.Errorf("create pod %s: %v", names[i], err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	bound := e.waitBound(names, pods/4)
	l.terminate()
	stopped := time.Now()
	replicas = []*chaosReplica{f, startChaosReplica(t, "c", config)}
	l2, f2 := leader()
	// The old follower or the new replica: whichever asks first once the
	// Lease is released.
	logChaos(t, "stopped leader %s with %d pods bound; %s took over, follower %s ready, %v after the stop", l.name, bound, l2.name, f2.name, time.Since(stopped).Round(time.Millisecond))

	bound = e.waitBound(names, pods/2)
	half := e.inFlight()
	l2.kill()
	killed := time.Now()
	replicas = []*chaosReplica{f2}
	l3, _ := leader()
	logChaos(t, "killed leader %s with %d pods bound and %d claims allocated for pods not bound; %s leads %v later", l2.name, bound, half, l3.name, time.Since(killed).Round(time.Millisecond))
	<-created
	chaosVerdict{e: e, pods: append(names, warm...), claim: "dev", check: replicaCheck(t, l3)}.assert()
	logChaos(t, "%d pods bound %v after the burst began", pods, time.Since(start).Round(time.Millisecond))
}
