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
	"os"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// Issues 42 and 53: the fewest victims are on n1, but while its one
// victim leaves and its claim is released, the preemptor is retried (the
// victim's deletion and the claim's release queue it); it must wait, as a
// pod asking for CPU does, not preempt n0's two pods too. Each way of
// leaving puts the retries in other phases of the release: the victim
// terminating, gone with its claim still reserved, gone with its claim
// deallocated, before or after the preemptor's nomination reaches its
// status. Issue 53 was the profile a new user writes, DRAAllocator enabled
// alone: DefaultPreemption's PostFilter then runs before DRAAllocator's,
// so nothing the PostFilter does can hold it back.

// retryScheduler is how the retry cases run dra-scheduler.
type retryScheduler struct {
	name   string
	config string
	// ownProcess runs it as a separate process (the test binary as
	// dra-scheduler, startReplica), as the built binary runs, with the
	// shipped Deployment's flags (shippedFlags).
	ownProcess bool
	// asyncAPICalls turns SchedulerAsyncAPICalls (beta, off by default)
	// on: kube-scheduler then writes a nomination to the pod's status in
	// the background, and a preemptor is more often retried before its
	// status shows where it was nominated.
	asyncAPICalls bool
}

// aloneConfig is the profile issue 53 used: DRAAllocator enabled in
// multiPoint and DynamicResources disabled, nothing else, so that the
// default plugins keep their places and DefaultPreemption's PostFilter
// runs before DRAAllocator's.
const aloneConfig = configHeader + draPlugins

// shippedFlags are the flags manifests/install/deployment.yaml gives
// dra-scheduler beside its configuration.
var shippedFlags = []string{"--feature-gates=SchedulerPreQueueingHints=true"}

var retrySchedulers = []retryScheduler{
	{name: "in the shipped plugin order", config: preemptionConfig},
	{name: "in the shipped plugin order with asynchronous API calls", config: preemptionConfig, asyncAPICalls: true},
	{name: "with DRAAllocator enabled alone", config: aloneConfig},
	{name: "with DRAAllocator enabled alone, in its own process", config: aloneConfig, ownProcess: true},
}

// retryClaims is how a pod of the retry cases asks for its GPUs.
type retryClaims int

const (
	// fromTemplate: a claim generated from a ResourceClaimTemplate, owned
	// by the pod and deleted with it.
	fromTemplate retryClaims = iota
	// preCreated: a ResourceClaim made beforehand; a victim's is
	// unreserved and deallocated, not deleted.
	preCreated
	// extendedResource: an extended resource that a DeviceClass provides
	// (DRAExtendedResource): the scheduler writes the claim.
	extendedResource
)

func (c retryClaims) String() string {
	return [...]string{"a claim from a template", "a pre-created claim", "a DRA-backed extended resource"}[c]
}

var allRetryClaims = []retryClaims{fromTemplate, preCreated, extendedResource}

// retryLeave is a way the victim leaves.
type retryLeave struct {
	name string
	// grace is the victims' terminationGracePeriodSeconds: 0 deletes them
	// at once, without the kubelet.
	grace int64
	// kubelet is how long the kubelet stand-in lets a victim terminate.
	kubelet time.Duration
	// slowNomination, if set, is how long the API server takes to write a
	// nomination (slowNominations).
	slowNomination time.Duration
}

var retryLeaves = []retryLeave{
	{"at once (grace period 0)", 0, kubeletDelay, 0},
	{"at once while its nomination takes 1s to write", 0, kubeletDelay, time.Second},
	{"as soon as the kubelet sees it while its nomination takes 1s to write", preemptionGracePeriod, 0, time.Second},
	{"after 300ms", preemptionGracePeriod, kubeletDelay, 0},
	{"after 3s", preemptionGracePeriod, slowKubeletDelay, 0},
}

// retryCase is one case: how the victims and the preemptor ask for
// devices, and how the victim leaves.
type retryCase struct {
	victims, preemptor retryClaims
	leave              retryLeave
}

// retryMatrixEnv, set to "all", runs every combination of claim kinds and
// ways of leaving (make test-preemption-retry); otherwise each scheduler
// runs every pair of claim kinds once, the ways of leaving taking turns,
// so that every pair and every way runs in each setup.
const retryMatrixEnv = "DRA_PREEMPTION_RETRY"

// retryCases returns the cases for the scheduler of index at.
func retryCases(at int) []retryCase {
	var out []retryCase
	all := os.Getenv(retryMatrixEnv) == "all"
	pair := 0
	for _, victims := range allRetryClaims {
		for _, preemptor := range allRetryClaims {
			if all {
				for _, leave := range retryLeaves {
					out = append(out, retryCase{victims, preemptor, leave})
				}
				continue
			}
			out = append(out, retryCase{victims, preemptor, retryLeaves[(pair+at)%len(retryLeaves)]})
			pair++
		}
	}
	return out
}

// TestPreemptorRetriedWhileItsVictimLeaves runs issue 42's layout for
// every scheduler setup, claim kind of the victims and of the preemptor,
// and way of leaving.
func TestPreemptorRetriedWhileItsVictimLeaves(t *testing.T) {
	for at, sched := range retrySchedulers {
		t.Run(sched.name, func(t *testing.T) {
			e, kubelet := startRetryCluster(t, sched)
			for _, tc := range retryCases(at) {
				t.Run(fmt.Sprintf("with victims holding %s, a preemptor asking for %s, retried while its victim leaves %s, waits for it instead of preempting on another node",
					tc.victims, tc.preemptor, tc.leave.name), func(t *testing.T) {
					e.retryCase(t, kubelet, tc)
				})
			}
		})
	}
}

// startRetryCluster starts a control plane and dra-scheduler as sched
// says, with the preemption tests' PriorityClasses and a kubelet stand-in.
func startRetryCluster(t *testing.T, sched retryScheduler) (*env, *kubeletStandIn) {
	t.Helper()
	var e *env
	switch {
	case sched.ownProcess:
		e = startControlPlane(t, controlplane.Options{})
		path, err := e.cp.WriteSchedulerConfig("retry.yaml", []byte(sched.config))
		if err != nil {
			t.Fatal(err)
		}
		if sched.asyncAPICalls {
			t.Fatalf("%s: asynchronous API calls are set for in-process schedulers only", sched.name)
		}
		startReplica(t, "dra-scheduler", path, shippedFlags...)
	default:
		if sched.asyncAPICalls {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SchedulerAsyncAPICalls, true)
		}
		e = startCluster(t, sched.config)
	}
	e.createPreemptionPriorities()
	return e, e.startKubeletStandIn()
}

// retryCase runs one case: n0 holds two low-priority pods, n1 one, each
// with one of n1's or n0's two GPUs; the high-priority pod asks for two.
func (e *env) retryCase(t *testing.T, kubelet *kubeletStandIn, tc retryCase) {
	e.preemptionCase(t)
	kubelet.setDelay(tc.leave.kubelet)
	t.Cleanup(func() { kubelet.setDelay(kubeletDelay) })
	if tc.leave.slowNomination > 0 {
		e.slowNominations(tc.leave.slowNomination)
	}
	id := fmt.Sprintf("r%d%d-%d-%d-%d", tc.victims, tc.preemptor, tc.leave.grace, tc.leave.kubelet.Milliseconds(), tc.leave.slowNomination.Milliseconds())
	driver := id + ".example.com"
	class := objects.DeviceClass(driver, driver)
	class.Spec.ExtendedResourceName = ptr.To(driver + "/gpu")
	e.create(class, objects.ClaimTemplate(id+"-1", e.ns, "gpu", driver, 1), objects.ClaimTemplate(id+"-2", e.ns, "gpu", driver, 2))
	n0, n1 := id+"-n0", id+"-n1"
	e.create(gpuNode(n0, driver, 2)...)
	e.create(gpuNode(n1, driver, 2)...)

	var lows []string
	for _, p := range []struct{ name, node string }{{n0 + "-low-a1", n0}, {n0 + "-low-a2", n0}, {n1 + "-low-b", n1}} {
		e.create(pinned(e.retryPod(p.name, "low", tc.victims, id, driver, 1, tc.leave.grace), p.node))
		e.waitBoundOn(p.node, p.name)
		lows = append(lows, p.name)
	}
	full, half := lows[:2], lows[2:]

	high := id + "-high"
	e.create(e.retryPod(high, "high", tc.preemptor, id, driver, 2, preemptionGracePeriod))
	e.waitBoundOn(n1, high)
	if victims := e.evicted(lows); !slices.Equal(victims, half) {
		t.Fatalf("pods %v were evicted for %s, want only %v (the one pod on %s whose GPU, beside the free one, makes 2); %s's events: %s",
			victims, high, half, n1, high, describeEvents(e.schedulerEvents(high)))
	}
	e.checkVictimsGone(n1, half)
	e.holdsFor(2*time.Second, fmt.Sprintf("pods %v on %s to stay", full, n0), func() string { return e.intact(full...) })
	e.checkNoDeviceTwice()
}

// retryPod is a dra-scheduler pod of a priority class asking for gpus of
// driver's devices the way claims says; a pre-created claim is created
// here, named after the pod.
func (e *env) retryPod(name, class string, claims retryClaims, id, driver string, gpus int, grace int64) *v1.Pod {
	e.t.Helper()
	pod := objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).PriorityClass(class).GracePeriod(grace)
	switch claims {
	case fromTemplate:
		pod.ClaimFromTemplate("gpu", fmt.Sprintf("%s-%d", id, gpus))
	case preCreated:
		e.create(objects.Claim(name+"-gpu", e.ns, objects.ClaimSpec("gpu", driver, int64(gpus))))
		pod.Claim("gpu", name+"-gpu")
	case extendedResource:
		pod.ExtendedResource(v1.ResourceName(driver+"/gpu"), int64(gpus))
	}
	return pod.Obj()
}
