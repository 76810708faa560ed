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
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// leaderHeader is configHeader with leader election on and short lease
// timings, for two replicas: the profile's plugins follow.
const leaderHeader = `
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  resourceNamespace: dra-system
  resourceName: dra-scheduler
  leaseDuration: 3s
  renewDeadline: 2s
  retryPeriod: 500ms
profiles:
- schedulerName: dra-scheduler
`

// leaderConfig is leaderHeader with draPlugins.
const leaderConfig = leaderHeader + draPlugins

// replica is a dra-scheduler process started from the test binary.
type replica struct {
	name   string
	cmd    *exec.Cmd
	leader atomic.Bool
	done   chan struct{}
	mu     sync.Mutex
	log    strings.Builder
}

// startReplica runs dra-scheduler as a separate process: a killed replica
// dies like a crashed pod, with no chance to clean up. flags come after the
// defaults (no secure port, -v=2), so they win.
func startReplica(t *testing.T, name, configPath string, flags ...string) *replica {
	t.Helper()
	verbosity := "-v=2"
	// With DRA_TEST_LOG, the whole log goes to a file beside it, at the
	// verbosity of the other components (replicaLog).
	full := replicaLog(t, name)
	if full != nil {
		verbosity = "-v=" + cmp.Or(os.Getenv("DRA_TEST_LOG_V"), "3")
	}
	args, err := json.Marshal(append([]string{"--config=" + configPath, "--secure-port=0", verbosity}, flags...))
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{name: name, done: make(chan struct{})}
	r.cmd = exec.Command(os.Args[0], "-test.run=^$")
	r.cmd.Env = append(os.Environ(), replicaArgsEnv+"="+string(args))
	stderr, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start replica %s: %v", name, err)
	}
	go func() {
		defer close(r.done)
		scanner := bufio.NewScanner(stderr)
		scanner.Buffer(make([]byte, 1<<20), 1<<20)
		for scanner.Scan() {
			line := scanner.Text()
			if strings.Contains(strings.ToLower(line), "successfully acquired lease") {
				r.leader.Store(true)
			}
			if full != nil {
				fmt.Fprintln(full, line)
			}
			r.mu.Lock()
			r.log.WriteString(line + "\n")
			r.mu.Unlock()
		}
		_ = r.cmd.Wait()
		if full != nil {
			_ = full.Close()
		}
	}()
	t.Cleanup(func() {
		r.kill()
		if t.Failed() {
			r.mu.Lock()
			t.Logf("replica %s log (last 3000 bytes):\n%s", r.name, tail(r.log.String(), 3000))
			r.mu.Unlock()
		}
	})
	return r
}

// replicaLog creates the file the whole log of replica name goes to when
// DRA_TEST_LOG is set: that path with the test's and the replica's names
// appended; nil otherwise.
func replicaLog(t *testing.T, name string) *os.File {
	path := os.Getenv("DRA_TEST_LOG")
	if path == "" {
		return nil
	}
	test := strings.NewReplacer("/", "_", " ", "_", ",", "").Replace(t.Name())
	f, err := os.Create(fmt.Sprintf("%s.%s.%s.%d", path, test[:min(len(test), 100)], name, time.Now().UnixNano()))
	if err != nil {
		t.Fatalf("replica log: %v", err)
	}
	return f
}

func (r *replica) kill() {
	_ = r.cmd.Process.Kill()
	<-r.done
}

// terminate stops the replica as the kubelet stops a pod of a rolling
// update: SIGTERM, after which kube-scheduler releases its Lease and exits.
func (r *replica) terminate() {
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	<-r.done
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// TestLeaderElection runs two replicas of dra-scheduler with leader
// election, kills the leader mid-stream and checks that the other one takes
// over and that no device is ever allocated twice.
func TestLeaderElection(t *testing.T) {
	e := startControlPlane(t, controlplane.Options{})
	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dra-system"}})
	path, err := e.cp.WriteSchedulerConfig("leader.yaml", []byte(leaderConfig))
	if err != nil {
		t.Fatal(err)
	}
	replicas := []*replica{startReplica(t, "a", path), startReplica(t, "b", path)}

	const driver = "le.example.com"
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("le", e.ns, "dev", driver, 1))
	for _, n := range []string{"node-1", "node-2"} {
		slice := objects.MakeSlice(driver+"-"+n, driver, n)
		for i := range 10 {
			slice.Device(fmt.Sprintf("dev-%d", i), nil)
		}
		e.create(objects.MakeNode(n).Obj(), slice.Obj())
	}
	createPods := func(prefix string, n int) {
		for i := range n {
			e.create(objects.MakePod(fmt.Sprintf("%s-%d", prefix, i), e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "le").Obj())
		}
	}

	createPods("first", 10)
	for i := range 10 {
		e.waitScheduled(fmt.Sprintf("first-%d", i))
	}
	var leader, follower *replica
	e.waitFor("a leader", func() (bool, string) {
		for i, r := range replicas {
			if r.leader.Load() {
				leader, follower = r, replicas[1-i]
				return true, ""
			}
		}
		return false, "no replica logged acquiring the lease"
	})
	if follower.leader.Load() {
		t.Fatalf("both replicas claim to lead")
	}

	// The leader dies with pods in flight: some may have claims written
	// and no binding yet.
	for i := range 3 {
		e.create(objects.MakePod(fmt.Sprintf("second-%d", i), e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "le").Obj())
	}
	killed := time.Now()
	leader.kill()
	if follower.leader.Load() {
		t.Fatalf("replica %s led before the leader died", follower.name)
	}
	t.Logf("killed leader %s; %s takes over", leader.name, follower.name)
	for i := 3; i < 10; i++ {
		e.create(objects.MakePod(fmt.Sprintf("second-%d", i), e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "le").Obj())
	}
	for i := range 10 {
		e.waitScheduled(fmt.Sprintf("second-%d", i))
	}
	t.Logf("all pods bound %v after the kill", time.Since(killed).Round(time.Millisecond))
	if !follower.leader.Load() {
		t.Errorf("replica %s scheduled pods without logging that it acquired the lease", follower.name)
	}

	// Every device is now taken: more pods must stay pending.
	createPods("extra", 3)
	e.waitForEvent("extra-0", "FailedScheduling", "are allocated")
	claims, err := e.client.ResourceV1().ResourceClaims(e.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]string{}
	for _, c := range claims.Items {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			key := r.Pool + "/" + r.Device
			if other, ok := owner[key]; ok {
				t.Errorf("device %s allocated to claims %s and %s", key, other, c.Name)
			}
			owner[key] = c.Name
		}
	}
	if len(owner) != 20 {
		t.Errorf("%d devices allocated, want all 20", len(owner))
	}
	for i := range 3 {
		if pod := e.pod(fmt.Sprintf("extra-%d", i)); pod.Spec.NodeName != "" {
			t.Errorf("pod %s bound to %s although every device is taken", pod.Name, pod.Spec.NodeName)
		}
	}
}
