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
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// preemptionConfig is the profile the preemption tests run DRAAllocator
// in: podGroupConfig's, the shipped order, in which DRAAllocator's
// PostFilter (which waits while victims' claims are being released) runs
// before DefaultPreemption's.
const preemptionConfig = podGroupConfig

const (
	// preemptionGracePeriod is every preemption test pod's
	// terminationGracePeriodSeconds. kube-scheduler deletes a victim with
	// it, so the victim stays terminating, its claims reserved, until the
	// kubelet stand-in deletes it for good.
	preemptionGracePeriod = 30
	// kubeletDelay is how long the kubelet stand-in lets a pod terminate
	// before deleting it for good.
	kubeletDelay = 300 * time.Millisecond
	// slowKubeletDelay is kubeletDelay for the case that needs a window in
	// which the victim is terminating and its claim still allocated.
	slowKubeletDelay = 3 * time.Second
	// stillFor is how long a case watches that nothing happens: pending
	// pods stay pending, no pod is evicted.
	stillFor = 10 * time.Second
)

// preemptionPriorities are the values of the preemption tests'
// PriorityClasses, by name.
var preemptionPriorities = map[string]int32{"low": 100, "mid": 500, "high": 1000}

// TestPreemptionForDevices has high-priority pods preempt lower-priority
// pods for the devices they hold, once with DRAAllocator and once with the
// in-tree DynamicResources plugin, which is the reference. Kubernetes
// 1.37's DynamicResources has no PreFilterExtensions: removing a pod in
// preemption's simulation frees none of its devices, so it finds no
// victims and its preemptors stay pending; the in-tree run asserts and
// logs that as the recorded difference. A kubelet stand-in ends victims'
// graceful deletions. Each case has a driver and nodes of its own and
// deletes its pods when it ends, so the cases share one cluster per
// plugin.
func TestPreemptionForDevices(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		preempts     bool
		// asyncAPICalls turns SchedulerAsyncAPICalls (beta, off by
		// default) on: kube-scheduler then writes a nomination to the
		// pod's status in the background, and a preemptor is more often
		// retried before its status shows where it was nominated.
		asyncAPICalls bool
	}{
		{"with DRAAllocator", preemptionConfig, true, false},
		{"with DRAAllocator and asynchronous API calls", preemptionConfig, true, true},
		{"with the in-tree plugin", inTreeConfig, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.asyncAPICalls {
				featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SchedulerAsyncAPICalls, true)
			}
			testPreemptionForDevices(t, tc.config, tc.preempts)
		})
	}
}

// testPreemptionForDevices runs the cases with schedulerConfig; preempts
// says whether its DRA plugin preempts for devices.
func testPreemptionForDevices(t *testing.T, schedulerConfig string, preempts bool) {
	e := startCluster(t, schedulerConfig)
	e.createPreemptionPriorities()
	kubelet := e.startKubeletStandIn()

	t.Run("a high-priority pod preempts low-priority pods holding the GPUs it needs, no more than it needs", func(t *testing.T) {
		e.preemptionCase(t)
		const driver, node = "evict.example.com", "evict-node"
		e.create(objects.DeviceClass(driver, driver),
			objects.ClaimTemplate("evict-1", e.ns, "gpu", driver, 1),
			objects.ClaimTemplate("evict-2", e.ns, "gpu", driver, 2))
		e.create(gpuNode(node, driver, 4)...)
		lows := e.fill("evict-low", "low", "evict-1", node, 4)
		held := map[string][]string{}
		for _, name := range lows {
			held[name] = e.devicesOf(name)
		}

		before := gatherDRAMetrics(t)
		e.create(preemptionPod("evict-high", e.ns, "high", "evict-2"))
		if !preempts {
			msg := e.stayPending([]string{"evict-high"}, lows)
			t.Logf("the in-tree plugin: evict-high (2 GPUs) stayed pending for %v, nominated nowhere, and none of the low-priority pods %v holding %s's 4 GPUs was evicted (recorded difference); %s", stillFor, lows, node, msg)
			return
		}
		e.waitBoundOn(node, "evict-high")
		victims := e.evicted(lows)
		if len(victims) != 2 {
			t.Fatalf("low-priority pods %v were evicted for evict-high, want exactly 2 of %v (the fewest that free 2 GPUs)", victims, lows)
		}
		e.checkVictimsGone(node, victims)
		var freed []string
		for _, v := range victims {
			freed = append(freed, held[v]...)
		}
		if got := e.devicesOf("evict-high"); len(got) != 2 || !isSubset(got, freed) {
			t.Errorf("evict-high got devices %v, want 2 of those its victims %v held: %v", got, victims, freed)
		}
		survivors := without(lows, victims)
		e.holdsFor(2*time.Second, fmt.Sprintf("low-priority pods %v to stay", survivors), func() string { return e.intact(survivors...) })
		e.checkNoDeviceTwice()
		// The plugin's preemption metrics saw it through the pod informer.
		e.waitFor("the preemption metrics", func() (bool, string) {
			after := gatherDRAMetrics(t)
			victims := after["dra_scheduler_preemption_victims_total"] - before["dra_scheduler_preemption_victims_total"]
			bound := after["dra_scheduler_preemption_nominated_to_bound_seconds"] - before["dra_scheduler_preemption_nominated_to_bound_seconds"]
			return victims == 2 && bound == 1, fmt.Sprintf("victims counted %v (want 2), nominated pods timed to bound %v (want 1)", victims, bound)
		})
	})

	t.Run("the node whose victims have the lowest priority is chosen", func(t *testing.T) {
		e.preemptionCase(t)
		const driver = "cheap.example.com"
		e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("cheap-1", e.ns, "gpu", driver, 1))
		e.create(gpuNode("cheap-node-mid", driver, 2)...)
		e.create(gpuNode("cheap-node-low", driver, 2)...)
		mids := e.fill("cheap-mid", "mid", "cheap-1", "cheap-node-mid", 2)
		lows := e.fill("cheap-low", "low", "cheap-1", "cheap-node-low", 2)

		// Either node frees a GPU by evicting one pod; cheap-node-low's
		// victim has the lower priority. kubectl dra explain says so first,
		// for a gated twin of the preemptor that no scheduler looks at.
		if preempts {
			e.explainPreemption("cheap-probe", "cheap-1", "cheap-node-low", lows)
		}
		e.create(preemptionPod("cheap-high", e.ns, "high", "cheap-1"))
		if !preempts {
			msg := e.stayPending([]string{"cheap-high"}, append(slices.Clone(mids), lows...))
			t.Logf("the in-tree plugin: cheap-high stayed pending for %v, nominated nowhere, and none of %v (mid) or %v (low) was evicted (recorded difference); %s", stillFor, mids, lows, msg)
			return
		}
		e.waitBoundOn("cheap-node-low", "cheap-high")
		if v := e.evicted(mids); len(v) != 0 {
			t.Errorf("mid-priority pods %v on cheap-node-mid were evicted, want none: cheap-node-low's victims have the lower priority", v)
		}
		victims := e.evicted(lows)
		if len(victims) != 1 {
			t.Fatalf("low-priority pods %v were evicted for cheap-high, want exactly 1 of %v", victims, lows)
		}
		e.checkVictimsGone("cheap-node-low", victims)
		rest := append(slices.Clone(mids), without(lows, victims)...)
		e.holdsFor(2*time.Second, fmt.Sprintf("pods %v to stay", rest), func() string { return e.intact(rest...) })
		e.checkNoDeviceTwice()
	})

	t.Run("a whole device is made from the partitions its victims held", func(t *testing.T) {
		e.preemptionCase(t)
		const driver, node = "part.example.com", "part-node"
		// Counter sets and devices may not share a slice (API validation):
		// the pool has two slices.
		e.create(objects.MakeNode(node).Obj(), objects.DeviceClass(driver, driver),
			objects.MakeSlice("part-node-counters", driver, node).SliceCount(2).CounterSet("gpu-0", map[string]string{"memory": "8Gi"}).Obj(),
			objects.MakeSlice("part-node-devices", driver, node).SliceCount(2).
				Device("half-0", nil).Attribute("profile", "half").ConsumesCounters("gpu-0", map[string]string{"memory": "4Gi"}).
				Device("half-1", nil).Attribute("profile", "half").ConsumesCounters("gpu-0", map[string]string{"memory": "4Gi"}).
				Device("whole", nil).Attribute("profile", "whole").ConsumesCounters("gpu-0", map[string]string{"memory": "8Gi"}).Obj(),
			objects.ClaimTemplate("part-half", e.ns, "gpu", driver, 1, `device.attributes["part.example.com"].profile == "half"`),
			objects.ClaimTemplate("part-whole", e.ns, "gpu", driver, 1, `device.attributes["part.example.com"].profile == "whole"`))
		halves := e.fill("part-low", "low", "part-half", node, 2)
		var held []string
		for _, name := range halves {
			held = append(held, e.devicesOf(name)...)
		}
		slices.Sort(held)
		if want := []string{node + "/half-0", node + "/half-1"}; !slices.Equal(held, want) {
			t.Fatalf("the low-priority pods %v hold %v, want %v", halves, held, want)
		}

		// The whole device needs all of gpu-0's memory: both halves must
		// go.
		e.create(preemptionPod("part-high", e.ns, "high", "part-whole"))
		if !preempts {
			msg := e.stayPending([]string{"part-high"}, halves)
			t.Logf("the in-tree plugin: part-high (the whole device) stayed pending for %v, nominated nowhere, and neither of %v holding the halves was evicted (recorded difference); %s", stillFor, halves, msg)
			return
		}
		e.waitBoundOn(node, "part-high")
		if victims := e.evicted(halves); !slices.Equal(victims, halves) {
			t.Fatalf("pods %v were evicted for part-high, want both %v", victims, halves)
		}
		e.checkVictimsGone(node, halves)
		if got, want := e.devicesOf("part-high"), []string{node + "/whole"}; !slices.Equal(got, want) {
			t.Errorf("part-high got devices %v, want %v", got, want)
		}
		for device, claims := range e.allocatedDevices() {
			if strings.HasPrefix(device, driver+"/"+node+"/half-") {
				t.Errorf("%s is still allocated to %v next to the whole device", device, claims)
			}
		}
	})

	t.Run("a shared claim that a pod staying on the node also holds frees nothing, so no pod is evicted", func(t *testing.T) {
		e.preemptionCase(t)
		const driver, node = "share.example.com", "share-node"
		e.create(objects.DeviceClass(driver, driver),
			objects.ClaimTemplate("share-1", e.ns, "gpu", driver, 1),
			objects.Claim("share-gpu", e.ns, objects.ClaimSpec("gpu", driver, 1)))
		e.create(gpuNode(node, driver, 1)...)
		// share-sharer has the preemptor's priority: it is no victim, and
		// evicting share-low alone leaves the claim reserved.
		for _, p := range []struct{ name, class string }{{"share-low", "low"}, {"share-sharer", "high"}} {
			e.create(objects.MakePod(p.name, e.ns).Scheduler(schedulerapp.Name).PriorityClass(p.class).
				GracePeriod(preemptionGracePeriod).Claim("gpu", "share-gpu").Obj())
		}
		e.waitBoundOn(node, "share-low", "share-sharer")
		want := []string{"share-low", "share-sharer"}
		if got := reservedNames(e.claim("share-gpu")); !slices.Equal(got, want) {
			t.Fatalf("share-gpu is reserved for %v, want %v", got, want)
		}

		e.create(preemptionPod("share-high", e.ns, "high", "share-1"))
		msg := e.stayPending([]string{"share-high"}, want)
		if got := reservedNames(e.claim("share-gpu")); !slices.Equal(got, want) {
			t.Errorf("share-gpu is reserved for %v after share-high's attempts, want still %v", got, want)
		}
		t.Logf("share-high stayed pending for %v, nominated nowhere, and neither sharer of share-gpu was evicted; %s", stillFor, msg)
	})

	// Issue 42's and 53's layout, a preemptor retried while its victim
	// leaves, runs in preemption_retry_test.go for every way of running
	// dra-scheduler, kind of claim and way of leaving.

	t.Run("a lower-priority pod that arrives while the victim terminates does not take the device it frees", func(t *testing.T) {
		e.preemptionCase(t)
		const driver, node = "late.example.com", "late-node"
		e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("late-1", e.ns, "gpu", driver, 1))
		e.create(gpuNode(node, driver, 1)...)
		lows := e.fill("late-low", "low", "late-1", node, 1)
		victim := lows[0]
		kubelet.setDelay(slowKubeletDelay)
		t.Cleanup(func() { kubelet.setDelay(kubeletDelay) })

		e.create(preemptionPod("late-high", e.ns, "high", "late-1"))
		if !preempts {
			e.waitUnschedulable("late-high", "")
			e.create(preemptionPod("late-mid", e.ns, "mid", "late-1"))
			msg := e.stayPending([]string{"late-high", "late-mid"}, lows)
			t.Logf("the in-tree plugin: late-high and then late-mid stayed pending for %v, nominated nowhere, and %s was not evicted (recorded difference); %s", stillFor, victim, msg)
			return
		}
		e.waitFor(victim+" to be evicted for late-high", func() (bool, string) {
			pod := e.pod(victim)
			return pod.DeletionTimestamp != nil, fmt.Sprintf("late-high: %s", scheduledMessage(e.pod("late-high")))
		})
		// late-mid outranks the victim but not late-high; it arrives while
		// the victim terminates and its claim still holds the GPU.
		e.create(preemptionPod("late-mid", e.ns, "mid", "late-1"))
		if pod, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, victim, metav1.GetOptions{}); err != nil || pod.DeletionTimestamp == nil {
			t.Fatalf("%s was gone (%v) before late-mid arrived: no window in which it terminated (raise slowKubeletDelay)", victim, err)
		}
		e.waitFor("late-high to be nominated to "+node, func() (bool, string) {
			pod := e.pod("late-high")
			return pod.Status.NominatedNodeName == node || pod.Spec.NodeName == node,
				fmt.Sprintf("nominatedNodeName %q, nodeName %q", pod.Status.NominatedNodeName, pod.Spec.NodeName)
		})

		e.waitBoundOn(node, "late-high")
		if v := e.evicted([]string{"late-mid"}); len(v) != 0 {
			t.Fatalf("late-mid was evicted by the time late-high was bound: it took the GPU late-high was nominated for, and late-high preempted it in a second round; late-mid's events: %s",
				describeEvents(e.schedulerEvents("late-mid")))
		}
		e.checkVictimsGone(node, lows)
		if got, want := e.devicesOf("late-high"), []string{node + "/gpu-0"}; !slices.Equal(got, want) {
			t.Errorf("late-high got devices %v, want %v", got, want)
		}
		// late-mid may try to preempt, but late-high outranks it: it must
		// neither get the GPU nor evict late-high.
		e.holdsFor(stillFor, "late-mid to stay unbound and late-high to stay", func() string {
			return firstProblem(e.intact("late-high", "late-mid"), e.unbound("late-mid"))
		})
		e.checkNoDeviceTwice()
		// Nor was the GPU ever late-mid's, even for a moment: it was not
		// assumed and then preempted in kube-scheduler's memory, and its
		// claim is not allocated.
		for _, ev := range e.schedulerEvents("late-mid") {
			if ev.Reason == "Scheduled" || ev.Reason == "Preempted" {
				t.Errorf("late-mid has a %s event: %s", ev.Reason, ev.Note)
			}
		}
		if claim := e.generatedClaim("late-mid", "gpu"); claim.Status.Allocation != nil || len(claim.Status.ReservedFor) != 0 {
			t.Errorf("claim %s of the pending late-mid is allocated (%s) or reserved (%v)", claim.Name, results(claim), claim.Status.ReservedFor)
		}
		mid := e.pod("late-mid")
		t.Logf("late-mid stayed pending (nominatedNodeName %q): %s", mid.Status.NominatedNodeName, scheduledMessage(mid))
	})
}

// preemptionPod is a dra-scheduler pod of a priority class whose claim
// "gpu" is generated from template.
func preemptionPod(name, namespace, class, template string) *v1.Pod {
	return objects.MakePod(name, namespace).Scheduler(schedulerapp.Name).PriorityClass(class).
		GracePeriod(preemptionGracePeriod).ClaimFromTemplate("gpu", template).Obj()
}

// explainPreemption creates a gated high-priority pod with a claim from
// template and checks that kubectl dra explain (read as the shipped
// explain role reads) names node and one of victims, with its priority,
// as what preemption would evict for it.
func (e *env) explainPreemption(name, template, node string, victims []string) {
	e.t.Helper()
	probe := preemptionPod(name, e.ns, "high", template)
	probe.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "dra-scheduler.io/explain-test"}}
	e.create(probe)
	objs, err := clusterstate.Get(e.ctx, e.client, clusterstate.Query{Namespace: e.ns, Pod: name, Preemption: true})
	if err != nil {
		e.t.Fatalf("read the cluster for explain: %v", err)
	}
	c := explain.NewCluster(objs, explain.Settings{Policy: allocator.FirstFit})
	pod, err := c.FindPod(e.ns, name)
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := c.Pod(e.ctx, pod)
	if err != nil {
		e.t.Fatalf("explain pod %s: %v", name, err)
	}
	p := r.Preemption
	if p == nil || p.Node != node || len(p.Victims) != 1 || !slices.Contains(victims, strings.TrimPrefix(p.Victims[0].Pod, e.ns+"/")) ||
		p.Victims[0].Priority != preemptionPriorities["low"] {
		e.t.Errorf("explain pod %s says %q, preemption %+v; want one of %v (priority %d) evicted on %s", name, r.Verdict, p, victims, preemptionPriorities["low"], node)
	} else {
		e.t.Logf("explain pod %s: %s", name, r.Verdict)
	}
	e.deletePods([]string{name})
}

// createPreemptionPriorities creates the PriorityClasses of
// preemptionPriorities.
func (e *env) createPreemptionPriorities() {
	e.t.Helper()
	for name, value := range preemptionPriorities {
		if _, err := e.client.SchedulingV1().PriorityClasses().Create(e.ctx, objects.PriorityClass(name, value), metav1.CreateOptions{}); err != nil {
			e.t.Fatalf("create PriorityClass %s: %v", name, err)
		}
	}
}

// preemptionCase makes e report to t, a case's test, and deletes every pod
// of the namespace when the case ends, so that the next case sees no
// preemptor or victim of it.
func (e *env) preemptionCase(t *testing.T) {
	e.t = t
	t.Cleanup(func() {
		list, err := e.client.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			t.Errorf("list pods to delete: %v", err)
			return
		}
		var names []string
		for _, pod := range list.Items {
			names = append(names, pod.Name)
		}
		e.deletePods(names)
	})
}

// fill creates n pods prefix-0 ... prefix-(n-1) of a priority class, each
// with a claim from template and required to run on node, and waits until
// they are bound there.
func (e *env) fill(prefix, class, template, node string, n int) []string {
	e.t.Helper()
	var names []string
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		e.create(pinned(preemptionPod(name, e.ns, class, template), node))
		names = append(names, name)
	}
	e.waitBoundOn(node, names...)
	return names
}

// waitBoundOn waits until each pod is bound and fails the test unless it
// is bound to node.
func (e *env) waitBoundOn(node string, names ...string) {
	e.t.Helper()
	for _, name := range names {
		if pod := e.waitScheduled(name); pod.Spec.NodeName != node {
			e.t.Fatalf("pod %s landed on %s, want %s", name, pod.Spec.NodeName, node)
		}
	}
}

// devicesOf lists, sorted, the devices ("pool/device") allocated for the
// bound pod's claim "gpu".
func (e *env) devicesOf(pod string) []string {
	e.t.Helper()
	claim := e.generatedClaim(pod, "gpu")
	if claim.Status.Allocation == nil {
		e.t.Fatalf("claim %s of pod %s is not allocated", claim.Name, pod)
	}
	var devices []string
	for _, r := range claim.Status.Allocation.Devices.Results {
		devices = append(devices, r.Pool+"/"+r.Device)
	}
	slices.Sort(devices)
	return devices
}

// evicted lists the pods of names that are gone or terminating.
func (e *env) evicted(names []string) []string {
	e.t.Helper()
	return e.podsWhere(names, func(pod *v1.Pod) bool { return pod == nil || pod.DeletionTimestamp != nil })
}

// gone lists the pods of names that no longer exist.
func (e *env) gone(names []string) []string {
	e.t.Helper()
	return e.podsWhere(names, func(pod *v1.Pod) bool { return pod == nil })
}

// podsWhere lists the pods of names for which is holds; it is given nil
// for a pod that does not exist.
func (e *env) podsWhere(names []string, is func(*v1.Pod) bool) []string {
	e.t.Helper()
	var out []string
	for _, name := range names {
		pod, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			pod = nil
		case err != nil:
			e.t.Fatalf("get pod %s: %v", name, err)
		}
		if is(pod) {
			out = append(out, name)
		}
	}
	return out
}

// checkVictimsGone checks, once the preemptor is bound, that each victim
// no longer exists (the resourceclaim controller releases a scheduled
// pod's claims only once it is gone, and the preemptor got the devices they
// held), and that dra-scheduler reported preempting it on node.
func (e *env) checkVictimsGone(node string, victims []string) {
	e.t.Helper()
	for _, name := range victims {
		if pod, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{}); err == nil {
			e.t.Errorf("victim %s still exists (deletionTimestamp %v) although its preemptor is bound", name, pod.DeletionTimestamp)
		} else if !apierrors.IsNotFound(err) {
			e.t.Fatalf("get pod %s: %v", name, err)
		}
		e.waitForEvent(name, "Preempted", "on node "+node)
	}
}

// stayPending waits until each pod of pending is found unschedulable, then
// checks for stillFor that none of them is bound or nominated and that
// every pod of intact still exists and is not terminating. It returns the
// pending pods' PodScheduled messages, for the log.
func (e *env) stayPending(pending, intact []string) string {
	e.t.Helper()
	for _, name := range pending {
		e.waitUnschedulable(name, "")
	}
	e.holdsFor(stillFor, fmt.Sprintf("pods %v to stay pending and pods %v to stay", pending, intact), func() string {
		return firstProblem(e.unbound(pending...), e.unnominated(pending...), e.intact(intact...))
	})
	var msgs []string
	for _, name := range pending {
		msgs = append(msgs, fmt.Sprintf("%s: %q", name, scheduledMessage(e.pod(name))))
	}
	return strings.Join(msgs, "; ")
}

// holdsFor checks every 200ms for d that check finds nothing wrong (it
// returns what is, or ""), and fails the test at the first problem.
func (e *env) holdsFor(d time.Duration, what string, check func() string) {
	e.t.Helper()
	deadline := time.Now().Add(d)
	for {
		if problem := check(); problem != "" {
			e.t.Fatalf("waiting %v for %s: %s", d, what, problem)
		}
		if time.Now().After(deadline) {
			return
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("waiting %v for %s: %v", d, what, e.ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// unbound says which of the pods is bound, if any.
func (e *env) unbound(names ...string) string {
	e.t.Helper()
	for _, name := range names {
		if pod := e.pod(name); pod.Spec.NodeName != "" {
			return fmt.Sprintf("pod %s was bound to %s", name, pod.Spec.NodeName)
		}
	}
	return ""
}

// unnominated says which of the pods is nominated to a node, if any.
func (e *env) unnominated(names ...string) string {
	e.t.Helper()
	for _, name := range names {
		if pod := e.pod(name); pod.Status.NominatedNodeName != "" {
			return fmt.Sprintf("pod %s was nominated to %s", name, pod.Status.NominatedNodeName)
		}
	}
	return ""
}

// intact says which of the pods is gone or terminating, if any.
func (e *env) intact(names ...string) string {
	e.t.Helper()
	for _, name := range names {
		pod, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return "pod " + name + " was deleted"
		case err != nil:
			return fmt.Sprintf("get pod %s: %v", name, err)
		case pod.DeletionTimestamp != nil:
			return fmt.Sprintf("pod %s is terminating (conditions %v)", name, pod.Status.Conditions)
		}
	}
	return ""
}

// checkNoDeviceTwice fails the test if a device is allocated to more than
// one claim of the namespace.
func (e *env) checkNoDeviceTwice() {
	e.t.Helper()
	for device, claims := range e.allocatedDevices() {
		if len(claims) > 1 {
			e.t.Errorf("device %s is allocated to claims %v", device, claims)
		}
	}
	e.checkNoDoubleAllocationReported()
}

// checkNoDoubleAllocationReported fails the test for every
// DeviceAllocatedTwice event in the namespace: where no device is held
// twice, that critical warning is a false alarm.
func (e *env) checkNoDoubleAllocationReported() {
	e.t.Helper()
	list, err := e.client.EventsV1().Events(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatalf("list the events of namespace %s: %v", e.ns, err)
	}
	for _, ev := range list.Items {
		if ev.Reason == "DeviceAllocatedTwice" {
			e.t.Errorf("false alarm: %s event on %s %s: %s", ev.Reason, ev.Regarding.Kind, ev.Regarding.Name, ev.Note)
		}
	}
}

// firstProblem is the first of problems that is not "".
func firstProblem(problems ...string) string {
	for _, p := range problems {
		if p != "" {
			return p
		}
	}
	return ""
}

// isSubset reports whether every element of sub is in set.
func isSubset(sub, set []string) bool {
	for _, s := range sub {
		if !slices.Contains(set, s) {
			return false
		}
	}
	return true
}

// without is names minus drop, in names' order.
func without(names, drop []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(drop, n) {
			out = append(out, n)
		}
	}
	return out
}

// kubeletStandIn ends graceful pod deletions as the kubelet of a pod's
// node would once its containers stopped: a pod seen with a
// deletionTimestamp is deleted for good delay later. Without it, victims
// that kube-scheduler deletes with their grace period would stay until it
// passed, their claims reserved.
type kubeletStandIn struct {
	delay atomic.Int64 // time.Duration
}

func (k *kubeletStandIn) setDelay(d time.Duration) { k.delay.Store(int64(d)) }

// startKubeletStandIn runs a kubeletStandIn for the test's namespace until
// the test's context ends.
func (e *env) startKubeletStandIn() *kubeletStandIn {
	k := &kubeletStandIn{}
	k.setDelay(kubeletDelay)
	ctx, client, ns := e.ctx, e.client, e.ns
	done := make(chan struct{})
	go func() {
		defer close(done)
		seen := map[types.UID]time.Time{}
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				continue
			}
			for _, pod := range list.Items {
				if pod.DeletionTimestamp == nil {
					continue
				}
				first, ok := seen[pod.UID]
				if !ok {
					first = time.Now()
					seen[pod.UID] = first
				}
				if time.Since(first) < time.Duration(k.delay.Load()) {
					continue
				}
				// Errors (the pod is already gone) are retried or moot.
				_ = client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{
					GracePeriodSeconds: ptr.To[int64](0),
					Preconditions:      &metav1.Preconditions{UID: &pod.UID},
				})
			}
		}
	}()
	e.t.Cleanup(func() { <-done })
	return k
}
