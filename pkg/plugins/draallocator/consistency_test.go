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
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// bufferedLogger returns a context whose logger also keeps what it logs,
// and a function returning the lines logged so far that contain substr.
func bufferedLogger(t *testing.T, ctx context.Context) (context.Context, func(substr string) []string) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	buffer := logger.GetSink().(ktesting.Underlier).GetBuffer()
	return klog.NewContext(ctx, logger), func(substr string) []string {
		var out []string
		for _, line := range strings.Split(buffer.String(), "\n") {
			if strings.Contains(line, substr) {
				out = append(out, line)
			}
		}
		return out
	}
}

// noPause compares again at once.
func noPause(context.Context) error { return nil }

// ghostClaim is a claim the API does not have, holding node-1's dev-0.
func ghostClaim() *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "ghost", UID: "uid-ghost", ResourceVersion: "1"},
		Status:     resourceapi.ResourceClaimStatus{Allocation: allocationOf("node-1", "dev-0")},
	}
}

func counted(kind drift.Kind) float64 {
	v, err := testutil.GetCounterMetricValue(metrics.CacheDifferences.WithLabelValues(string(kind)))
	if err != nil {
		panic(err)
	}
	return v
}

func lastCount(t *testing.T) float64 {
	t.Helper()
	v, err := testutil.GetGaugeMetricValue(metrics.ConsistencyCheckDifferences)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func checks(t *testing.T) uint64 {
	t.Helper()
	n, err := testutil.GetHistogramMetricCount(metrics.ConsistencyCheckDuration.ObserverMetric)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTheConsistencyCheckFindsNothingWhileAndAfterAPodIsScheduled(t *testing.T) {
	nodes, objs := oneDeviceCluster("first")
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	pl.consistency.pause = noPause
	before := checks(t)
	if got := pl.consistency.run(h.ctx, triggerSignal); len(got) != 0 {
		t.Errorf("before any pod (inventory not synced yet): %v", got)
	}
	c, st := h.filter(pl, claimPod("first"))
	if st != nil || len(c.feasible) != 1 {
		t.Fatalf("PreFilter %v, feasible %v", st, c.feasible)
	}
	if got := pl.consistency.run(h.ctx, triggerSignal); len(got) != 0 {
		t.Errorf("after PreFilter synced the inventory: %v", got)
	}
	if st := c.reserve(); !st.IsSuccess() {
		t.Fatalf("Reserve: %v", st)
	}
	if got := pl.consistency.run(h.ctx, triggerSignal); len(got) != 0 {
		t.Errorf("with the allocation in flight: %v", got)
	}
	if st := pl.PreBind(h.ctx, c.state, c.pod, "node-1"); !st.IsSuccess() {
		t.Fatalf("PreBind: %v", st)
	}
	// Before and after the informer delivers the plugin's own write.
	if got := pl.consistency.run(h.ctx, triggerSignal); len(got) != 0 {
		t.Errorf("after PreBind wrote the allocation: %v", got)
	}
	h.eventually("the informer to deliver the allocation", func() bool {
		claim, err := h.client.ResourceV1().ResourceClaims(testNamespace).Get(h.ctx, "first", metav1.GetOptions{})
		return err == nil && h.claim(testNamespace, "first").ResourceVersion == claim.ResourceVersion
	})
	if got := pl.consistency.run(h.ctx, triggerSignal); len(got) != 0 {
		t.Errorf("once the informer delivered it: %v", got)
	}
	if got := lastCount(t); got != 0 {
		t.Errorf("dra_scheduler_consistency_check_differences = %v, want 0", got)
	}
	if got := checks(t) - before; got != 5 {
		t.Errorf("dra_scheduler_consistency_check_duration_seconds observed %d checks, want 5", got)
	}
}

func TestADifferenceIsLoggedWithItsObjectsAndCountedOnceWhileItLasts(t *testing.T) {
	nodes, objs := oneDeviceCluster("first")
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	pl.consistency.pause = noPause
	ctx, logged := bufferedLogger(t, h.ctx)
	if _, st := h.filter(pl, claimPod("first")); st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	pl.tracker.SetClaim(ghostClaim())
	want := "pool gpu.example.com/node-1: device dev-0 held by test/ghost in the tracker, claim deleted in the API"

	before := counted(drift.Allocation)
	for run := range 2 {
		got := pl.consistency.run(ctx, triggerInterval)
		if len(got) != 1 || got[0].String() != want {
			t.Fatalf("run %d: differences %v, want %q", run, got, want)
		}
		if n := counted(drift.Allocation) - before; n != 1 {
			t.Errorf("run %d: dra_scheduler_cache_differences_total{kind=allocation} grew by %v, want 1", run, n)
		}
		if n := lastCount(t); n != 1 {
			t.Errorf("run %d: dra_scheduler_consistency_check_differences = %v, want 1", run, n)
		}
		if lines := logged(want); len(lines) != 1 {
			t.Errorf("run %d: logged %d times, want once: %v", run, len(lines), lines)
		}
	}

	pl.tracker.DeleteClaim("uid-ghost")
	if got := pl.consistency.run(ctx, triggerInterval); len(got) != 0 {
		t.Errorf("after the ghost's deletion: %v", got)
	}
	if n := lastCount(t); n != 0 {
		t.Errorf("dra_scheduler_consistency_check_differences = %v, want 0", n)
	}
	// Back again: a new occurrence, reported again.
	pl.tracker.SetClaim(ghostClaim())
	pl.consistency.run(ctx, triggerInterval)
	if n := counted(drift.Allocation) - before; n != 2 {
		t.Errorf("dra_scheduler_cache_differences_total{kind=allocation} grew by %v after the difference came back, want 2", n)
	}
}

func TestTheCheckedHookHearsEveryCompletedCheckWithItsDifferences(t *testing.T) {
	type heard struct {
		trigger string
		diffs   []string
	}
	var mu sync.Mutex
	var got []heard
	hooks := &Hooks{Checked: func(trigger string, differences []drift.Difference) {
		mu.Lock()
		defer mu.Unlock()
		h := heard{trigger: trigger}
		for _, d := range differences {
			h.diffs = append(h.diffs, d.String())
		}
		got = append(got, h)
	}}
	nodes, objs := oneDeviceCluster("first")
	h := newHarness(t, hooks, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	pl.consistency.pause = noPause
	if _, st := h.filter(pl, claimPod("first")); st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	pl.consistency.run(h.ctx, triggerSignal)
	pl.tracker.SetClaim(ghostClaim())
	pl.consistency.run(h.ctx, triggerInterval)
	want := "pool gpu.example.com/node-1: device dev-0 held by test/ghost in the tracker, claim deleted in the API"
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].trigger != triggerSignal || len(got[0].diffs) != 0 ||
		got[1].trigger != triggerInterval || len(got[1].diffs) != 1 || got[1].diffs[0] != want {
		t.Errorf("the hook heard %+v, want a signal's check with nothing, then an interval's with %q", got, want)
	}
}

func TestADifferenceGoneWhenTheCheckComparesAgainIsNoDifference(t *testing.T) {
	nodes, objs := oneDeviceCluster("first")
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	if _, st := h.filter(pl, claimPod("first")); st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	// An event on its way: the tracker holds what it will drop once the
	// informer's deletion reaches it, during the pause.
	pl.tracker.SetClaim(ghostClaim())
	pl.consistency.pause = func(context.Context) error {
		pl.tracker.DeleteClaim("uid-ghost")
		return nil
	}
	before := counted(drift.Allocation)
	if got := pl.consistency.run(h.ctx, triggerInterval); len(got) != 0 {
		t.Errorf("differences %v, want none", got)
	}
	if n := counted(drift.Allocation) - before; n != 0 {
		t.Errorf("dra_scheduler_cache_differences_total{kind=allocation} grew by %v, want 0", n)
	}
}

func TestASliceChangeNotAppliedYetIsNoDifference(t *testing.T) {
	nodes, objs := oneDeviceCluster("first")
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	pl.consistency.pause = noPause
	if _, st := h.filter(pl, claimPod("first")); st != nil {
		t.Fatalf("PreFilter: %v", st)
	}
	h.create(objects.MakeSlice("node-2", testDriver, "node-2").Device("dev-0", nil).Obj())
	h.eventually("the feed to queue the new slice", func() bool {
		pl.feed.mu.Lock()
		defer pl.feed.mu.Unlock()
		return len(pl.feed.queued) == 1
	})
	if got := pl.consistency.run(h.ctx, triggerInterval); len(got) != 0 {
		t.Errorf("with the new slice queued for the next PreFilter: %v", got)
	}
}

func TestAPanicInTheConsistencyCheckIsContainedAndCounted(t *testing.T) {
	hooks := &Hooks{Enter: func(point string, _ *v1.Pod) {
		if point == pointConsistencyCheck {
			panic("injected")
		}
	}}
	nodes, objs := oneDeviceCluster()
	h := newHarness(t, hooks, []string{"default"}, nodes, objs...)
	before := panics(pointConsistencyCheck)
	if got := h.plugins[0].consistency.run(h.ctx, triggerSignal); got != nil {
		t.Errorf("a panicking check returned %v", got)
	}
	if n := panics(pointConsistencyCheck) - before; n != 1 {
		t.Errorf("dra_scheduler_plugin_panics_total{extension_point=%s} grew by %v, want 1", pointConsistencyCheck, n)
	}
}

// checkRuns is a test hook that counts the consistency check's runs.
func checkRuns(n *atomic.Int64) *Hooks {
	return &Hooks{Enter: func(point string, _ *v1.Pod) {
		if point == pointConsistencyCheck {
			n.Add(1)
		}
	}}
}

func TestEachSignalRunsTheConsistencyCheck(t *testing.T) {
	var runs atomic.Int64
	nodes, objs := oneDeviceCluster()
	h := newHarness(t, checkRuns(&runs), []string{"default"}, nodes, objs...)
	c := h.plugins[0].consistency
	signals := make(chan os.Signal)
	c.start(h.ctx, signals)
	for want := range int64(2) {
		signals <- os.Interrupt // any signal: the channel is the test's
		h.eventually("a check per signal", func() bool { return runs.Load() > want })
	}
}

func TestTheConsistencyCheckRunsEveryInterval(t *testing.T) {
	var runs atomic.Int64
	nodes, objs := oneDeviceCluster()
	h := newHarness(t, checkRuns(&runs), []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	c := newConsistencyCheck(pl.feed, pl.tracker, pl.consistency.claims, pl.consistency.inFlight, nil, pl.guard)
	c.addInterval(time.Hour)
	c.addInterval(0) // not set: no say
	c.addInterval(10 * time.Millisecond)
	if got := c.period(); got != 10*time.Millisecond {
		t.Fatalf("interval %v, want the shortest set, 10ms", got)
	}
	c.start(h.ctx, nil)
	h.eventually("three checks", func() bool { return runs.Load() >= 3 })
}

// TestTheConsistencyCheckRunsBesideScheduling runs checks without pause
// on a goroutine of their own while pods are scheduled and slices come
// and go, as SIGUSR2 may at any time (make test-race runs it under the
// race detector); once things settle, nothing differs.
func TestTheConsistencyCheckRunsBesideScheduling(t *testing.T) {
	var nodes []*v1.Node
	objs := []runtime.Object{objects.DeviceClass(testDriver, testDriver)}
	for i := range 4 {
		node := "node-" + strconv.Itoa(i)
		nodes = append(nodes, objects.MakeNode(node).Obj())
		objs = append(objs, objects.MakeSlice(node, testDriver, node).Device("dev-0", nil).Obj(),
			objects.Claim("pod-"+strconv.Itoa(i), testNamespace, objects.ClaimSpec("dev", testDriver, 1)))
	}
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	pl.consistency.pause = noPause
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				pl.consistency.run(h.ctx, triggerInterval)
			}
		}
	})
	for i := range 4 {
		c, st := h.filter(pl, claimPod("pod-"+strconv.Itoa(i)))
		if st != nil || len(c.feasible) == 0 {
			t.Fatalf("pod %d: PreFilter %v, feasible %v", i, st, c.feasible)
		}
		if st := c.reserve(); !st.IsSuccess() {
			t.Fatalf("pod %d: Reserve %v", i, st)
		}
		if st := pl.PreBind(h.ctx, c.state, c.pod, c.feasible[0]); !st.IsSuccess() {
			t.Fatalf("pod %d: PreBind %v", i, st)
		}
		// A slice for the next PreFilter to apply.
		h.create(objects.MakeSlice("spare-"+strconv.Itoa(i), testDriver, "spare-"+strconv.Itoa(i)).Device("dev-0", nil).Obj())
	}
	close(done)
	wg.Wait()
	h.eventually("the informer to deliver every allocation", func() bool {
		for i := range 4 {
			if h.claim(testNamespace, "pod-"+strconv.Itoa(i)).Status.Allocation == nil {
				return false
			}
		}
		return true
	})
	// The informer stores the last spare slice before its handler queues
	// it for the inventory: the check settles as in production, so that a
	// slice in between counts only if it stays missing.
	pl.consistency.pause = sleep(consistencySettle)
	if got := pl.consistency.run(h.ctx, triggerSignal); len(got) != 0 {
		t.Errorf("once scheduling settled: %v", got)
	}
}
