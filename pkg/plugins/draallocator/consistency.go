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
	"fmt"
	"os"
	"os/signal"
	"sync"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
	"github.com/dra-scheduler/dra-scheduler/pkg/taintrules"
)

const (
	// consistencySettle is how long a difference must last to count: a
	// check that finds differences compares again after this pause and
	// keeps those found both times, so that a change still on its way
	// from an informer to the plugin's state is not one.
	consistencySettle = 2 * time.Second
	// maxLoggedDifferences bounds the differences one check logs; the
	// metric counts them all.
	maxLoggedDifferences = 100
	// pointConsistencyCheck names the check in the panic metric.
	pointConsistencyCheck = "ConsistencyCheck"
)

// What made a consistency check run, in its log line.
const (
	triggerSignal   = "signal"
	triggerInterval = "interval"
)

// consistencyCheck compares the plugin's long-lived state with what the
// scheduler's informers say it should be (issue 41): the inventory with
// the ResourceSlices and DeviceTaintRules (inventory.Compare), the
// tracker with the ResourceClaims and the scheduler's in-flight
// allocations (allocator.Tracker.Compare). It runs on SIGUSR2 and, when a
// profile sets consistencyCheckInterval, periodically, on a goroutine of
// its own; it reads the inventory under the feed's lock (inventoryFeed.read),
// so a PreFilter that has slice changes to apply waits for it.
//
// Each difference is logged with the objects' names and counted in
// dra_scheduler_cache_differences_total once while it lasts: a check
// does not report again what the previous one found.
type consistencyCheck struct {
	feed    *inventoryFeed
	tracker *allocator.Tracker
	claims  resourcelisters.ResourceClaimLister
	// inFlight reports whether the scheduler has an allocation of the
	// claim in flight.
	inFlight func(types.UID) bool
	// synced report whether the handlers feeding the state have seen
	// every object that existed when they started.
	synced []cache.InformerSynced
	guard  *guard
	// pause waits before the second comparison: consistencySettle, or
	// until ctx ends. Tests replace it.
	pause func(ctx context.Context) error

	// mu makes checks run one at a time and guards what follows.
	mu sync.Mutex
	// interval is the shortest consistencyCheckInterval of the profiles
	// (0: none set).
	interval time.Duration
	// reported are the differences the last check found.
	reported map[drift.Difference]struct{}
}

func newConsistencyCheck(feed *inventoryFeed, tracker *allocator.Tracker, claims resourcelisters.ResourceClaimLister,
	inFlight func(types.UID) bool, synced []cache.InformerSynced, g *guard) *consistencyCheck {
	return &consistencyCheck{feed: feed, tracker: tracker, claims: claims, inFlight: inFlight, synced: synced, guard: g,
		pause: sleep(consistencySettle), reported: map[drift.Difference]struct{}{}}
}

// sleep returns a pause of d that ends early, with an error, when ctx
// does.
func sleep(d time.Duration) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
			return nil
		}
	}
}

// addInterval takes a profile's consistencyCheckInterval into account:
// the shortest one set applies. Profiles are added before the informers
// start, so before the check reads it.
func (c *consistencyCheck) addInterval(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 && (c.interval == 0 || d < c.interval) {
		c.interval = d
	}
}

func (c *consistencyCheck) period() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.interval
}

// listen runs the check on the process's consistency signal (SIGUSR2;
// kube-scheduler's own cache comparer hears it too) and every interval,
// until ctx ends.
func (c *consistencyCheck) listen(ctx context.Context) {
	var signals chan os.Signal
	if sigs := consistencySignals(); len(sigs) > 0 {
		signals = make(chan os.Signal, 1)
		signal.Notify(signals, sigs...)
		context.AfterFunc(ctx, func() { signal.Stop(signals) })
	}
	c.start(ctx, signals)
}

// start runs the check on every value from signals and every interval,
// once the informers have synced, until ctx ends.
func (c *consistencyCheck) start(ctx context.Context, signals <-chan os.Signal) {
	go func() {
		if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
			return
		}
		var tick <-chan time.Time
		if d := c.period(); d > 0 {
			ticker := time.NewTicker(d)
			defer ticker.Stop()
			tick = ticker.C
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-signals:
				c.run(ctx, triggerSignal)
			case <-tick:
				c.run(ctx, triggerInterval)
			}
		}
	}()
}

// run checks once and reports what it found; a panic in it is contained
// and counted like an extension point's. It returns the differences.
func (c *consistencyCheck) run(ctx context.Context, trigger string) []drift.Difference {
	defer c.guard.recoverHandler(pointConsistencyCheck)
	c.guard.enter(pointConsistencyCheck, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	logger := klog.FromContext(ctx)
	diffs, took, err := c.settled(ctx)
	if err != nil {
		if ctx.Err() == nil { // not the scheduler stopping
			logger.Error(err, "DRAAllocator consistency check failed", "trigger", trigger)
		}
		return nil
	}
	fresh := c.report(logger, diffs)
	metrics.ConsistencyCheckDifferences.Set(float64(len(diffs)))
	metrics.ConsistencyCheckDuration.Observe(took.Seconds())
	verbosity := 3
	if trigger == triggerSignal {
		verbosity = 0 // asked for: always say what came out
	}
	logger.V(verbosity).Info("DRAAllocator consistency check done", "trigger", trigger,
		"differences", len(diffs), "new", fresh, "duration", took)
	c.guard.checked(trigger, diffs)
	return diffs
}

// settled compares; when that finds differences, it pauses and compares
// again, and keeps what both comparisons found. took is the time spent
// comparing, without the pause.
func (c *consistencyCheck) settled(ctx context.Context) (_ []drift.Difference, took time.Duration, _ error) {
	start := time.Now()
	first, err := c.compare()
	took = time.Since(start)
	if err != nil || len(first) == 0 {
		return first, took, err
	}
	if err := c.pause(ctx); err != nil {
		return nil, took, fmt.Errorf("waiting to compare again: %w", err)
	}
	start = time.Now()
	second, err := c.compare()
	took += time.Since(start)
	if err != nil {
		return nil, took, err
	}
	return drift.Common(second, first), took, nil
}

// compare lists what the informers have and compares the plugin's state
// with it.
func (c *consistencyCheck) compare() ([]drift.Difference, error) {
	slices, err := c.feed.slices.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("list resource slices: %w", err)
	}
	var rules []*resourceapi.DeviceTaintRule
	if c.feed.rules != nil {
		if rules, err = c.feed.rules.List(labels.Everything()); err != nil {
			return nil, fmt.Errorf("list device taint rules: %w", err)
		}
	}
	claims, err := c.claims.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("list resource claims: %w", err)
	}
	// As the feed applies them (inventoryFeed.sync).
	want := make([]*resourceapi.ResourceSlice, len(slices))
	for i, s := range slices {
		want[i] = taintrules.Apply(s, rules)
	}
	var l drift.List
	c.feed.read(func(inv *inventory.Inventory, queued func(string) bool) {
		l.Append(inv.Compare(want, queued)...)
		l.Append(c.tracker.Compare(inv, claims, c.inFlight)...)
	})
	return l.Sorted(), nil
}

// report logs and counts the differences the previous check did not
// find, remembers them all for the next check, and returns how many were
// new. c.mu must be held.
func (c *consistencyCheck) report(logger klog.Logger, diffs []drift.Difference) (fresh int) {
	found := make(map[drift.Difference]struct{}, len(diffs))
	for _, d := range diffs {
		found[d] = struct{}{}
		if _, known := c.reported[d]; known {
			continue
		}
		fresh++
		metrics.CacheDifferences.WithLabelValues(string(d.Kind)).Inc()
		if fresh <= maxLoggedDifferences {
			logger.Error(nil, "DRAAllocator state differs from the API", "kind", d.Kind, "difference", d.String())
		}
	}
	if fresh > maxLoggedDifferences {
		logger.Error(nil, "DRAAllocator state differs from the API in more ways than logged", "notLogged", fresh-maxLoggedDifferences)
	}
	c.reported = found
	return fresh
}
