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
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// waitTimeout bounds every wait for the cluster to reach a state.
const waitTimeout = 60 * time.Second

// configHeader starts every test configuration: no leader election, and a
// first profile named dra-scheduler, which the tests' pods select; a
// configuration continues it with that profile's plugins.
const configHeader = `
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: dra-scheduler
`

// inTreeConfig is a dra-scheduler profile in which kube-scheduler's in-tree
// DynamicResources plugin allocates devices (enabled by default).
const inTreeConfig = configHeader

// draPlugins is the plugins of a profile in which our DRAAllocator plugin
// replaces the in-tree DynamicResources plugin.
const draPlugins = `  plugins:
    multiPoint:
      enabled: [{name: DRAAllocator}]
      disabled: [{name: DynamicResources}]
`

// draConfig is a dra-scheduler profile with draPlugins, plus two profiles
// that differ only in the scoring strategy (pods pick one by
// schedulerName).
const draConfig = configHeader + draPlugins + `- schedulerName: dra-pack
  plugins:
    multiPoint:
      enabled: [{name: DRAAllocator, weight: 10}]
      disabled: [{name: DynamicResources}]
  pluginConfig:
  - name: DRAAllocator
    args: {scoringStrategy: {type: MostAllocated}}
- schedulerName: dra-spread
  plugins:
    multiPoint:
      enabled: [{name: DRAAllocator, weight: 10}]
      disabled: [{name: DynamicResources}]
  pluginConfig:
  - name: DRAAllocator
    args: {scoringStrategy: {type: LeastAllocated}}
`

// env is one test's cluster: a control plane, a namespace and a client.
type env struct {
	t      *testing.T
	ctx    context.Context
	cp     *controlplane.ControlPlane
	client kubernetes.Interface
	ns     string
	// sched is the running dra-scheduler, started from schedulerConfig.
	sched           *schedulerapp.Running
	schedulerConfig string
}

// startCluster starts a control plane and dra-scheduler with
// schedulerConfig, and creates the test's namespace.
func startCluster(t *testing.T, schedulerConfig string) *env {
	t.Helper()
	return startClusterWith(t, schedulerConfig, controlplane.SchedulerOptions{})
}

// startClusterWith is startCluster with scheduler options (test hooks).
func startClusterWith(t *testing.T, schedulerConfig string, opts controlplane.SchedulerOptions) *env {
	t.Helper()
	return startClusterOn(t, controlplane.Options{}, schedulerConfig, opts)
}

// startClusterOn is startClusterWith with control-plane options (API
// server flags).
func startClusterOn(t *testing.T, cpOpts controlplane.Options, schedulerConfig string, opts controlplane.SchedulerOptions) *env {
	t.Helper()
	start := time.Now()
	e := startControlPlane(t, cpOpts)
	path, err := e.cp.WriteSchedulerConfig("scheduler.yaml", []byte(schedulerConfig))
	if err != nil {
		t.Fatal(err)
	}
	sched, err := e.cp.StartSchedulerWith(e.ctx, path, opts)
	if err != nil {
		t.Fatalf("start dra-scheduler: %v", err)
	}
	t.Logf("control plane and dra-scheduler ready in %v", time.Since(start).Round(time.Millisecond))
	e.sched, e.schedulerConfig = sched, path
	return e
}

// startControlPlane starts a control plane and creates the test's
// namespace, without dra-scheduler: startClusterOn starts it in the test's
// process, other tests as replicas of their own (startReplica).
func startControlPlane(t *testing.T, cpOpts controlplane.Options) *env {
	t.Helper()
	cp, err := controlplane.Start(t.Context(), cpOpts)
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	t.Cleanup(cp.Stop)
	e := &env{t: t, ctx: t.Context(), cp: cp, client: cp.Client, ns: "test"}
	e.create(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}})
	return e
}

// create creates objects of the kinds the builders make, failing the test
// on error.
func (e *env) create(objs ...any) {
	e.t.Helper()
	for _, obj := range objs {
		if err := objects.Create(e.ctx, e.client, obj); err != nil {
			e.t.Fatal(err)
		}
	}
}

// waitFor polls until cond holds, failing the test with what after
// waitTimeout. cond returns a description of the current state for that
// message.
func (e *env) waitFor(what string, cond func() (bool, string)) {
	e.t.Helper()
	var state string
	err := wait.PollUntilContextTimeout(e.ctx, 100*time.Millisecond, waitTimeout, true, func(context.Context) (bool, error) {
		var ok bool
		ok, state = cond()
		return ok, nil
	})
	if err != nil {
		e.t.Fatalf("waiting for %s: %v; last state: %s", what, err, state)
	}
}

// pod fetches a pod of the test namespace.
func (e *env) pod(name string) *v1.Pod {
	e.t.Helper()
	pod, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("get pod %s: %v", name, err)
	}
	return pod
}

// waitScheduled waits until the pod is bound and returns it.
func (e *env) waitScheduled(name string) *v1.Pod {
	e.t.Helper()
	var pod *v1.Pod
	e.waitFor("pod "+name+" to be scheduled", func() (bool, string) {
		pod = e.pod(name)
		return pod.Spec.NodeName != "", fmt.Sprintf("conditions %v", pod.Status.Conditions)
	})
	return pod
}

// generatedClaim returns the ResourceClaim the resourceclaim controller
// created for the pod's claim podClaim, waiting for it to exist.
func (e *env) generatedClaim(podName, podClaim string) *resourceapi.ResourceClaim {
	e.t.Helper()
	var claim *resourceapi.ResourceClaim
	e.waitFor("claim "+podClaim+" of pod "+podName, func() (bool, string) {
		pod := e.pod(podName)
		for _, s := range pod.Status.ResourceClaimStatuses {
			if s.Name == podClaim && s.ResourceClaimName != nil {
				c, err := e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, *s.ResourceClaimName, metav1.GetOptions{})
				if err != nil {
					return false, err.Error()
				}
				claim = c
				return true, ""
			}
		}
		return false, fmt.Sprintf("resourceClaimStatuses %v", pod.Status.ResourceClaimStatuses)
	})
	return claim
}

// schedulerEvents returns the events dra-scheduler reported about a pod.
func (e *env) schedulerEvents(podName string) []eventsv1.Event {
	e.t.Helper()
	return e.podEvents(podName, schedulerapp.Name)
}

// podEvents returns the events controller reported about a pod.
func (e *env) podEvents(podName, controller string) []eventsv1.Event {
	e.t.Helper()
	list, err := e.client.EventsV1().Events(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatalf("list events: %v", err)
	}
	var out []eventsv1.Event
	for _, ev := range list.Items {
		if ev.Regarding.Kind == "Pod" && ev.Regarding.Name == podName && ev.ReportingController == controller {
			out = append(out, ev)
		}
	}
	return out
}

// describeEvents renders events for failure messages.
func describeEvents(events []eventsv1.Event) string {
	var b strings.Builder
	for _, ev := range events {
		fmt.Fprintf(&b, "[%s %s: %s] ", ev.Type, ev.Reason, ev.Note)
	}
	return b.String()
}

// kubeconfigAs writes a kubeconfig for the control plane that
// impersonates user, so that RBAC and admission judge that user.
func kubeconfigAs(t *testing.T, cp *controlplane.ControlPlane, name, user string) string {
	t.Helper()
	config := restclient.CopyConfig(cp.Config)
	config.Impersonate.UserName = user
	path := filepath.Join(cp.Dir, name+".kubeconfig")
	if err := controlplane.WriteKubeconfig(config, path); err != nil {
		t.Fatal(err)
	}
	return path
}
