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
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocatorfeatures"
)

// celCacheSize bounds the compiled CEL expressions kept by the CEL cache.
// Compiled selectors also live in the Matcher, which keeps every
// expression it has seen; this cache only serves compilation.
const celCacheSize = 1000

// shortOfNodeResourcesLimit bounds shared.shortOfNodeResources: beyond it,
// the pods recorded wait for other events than an assigned pod's.
const shortOfNodeResourcesLimit = 10000

// preemptorsLimit bounds shared.preemptors: beyond it, the pods recorded
// are found nominated only once their status says so.
const preemptorsLimit = 10000

// shared is the state of one scheduler's DRAAllocator plugins, whatever
// the number of profiles enabling it. Profiles share the scheduler's
// informers, claim assume cache and scheduling queue; sharing the plugin's
// copies of them too means one inventory in memory, and an allocation in
// flight in one profile is excluded by every other.
//
// The scheduler runs one scheduling cycle at a time across all profiles,
// so the inventory still changes only in a PreFilter, never under a
// Filter.
type shared struct {
	// feed keeps the inventory of devices from the slice informer.
	feed *inventoryFeed
	// tracker tracks the devices claims hold and those in flight.
	tracker *allocator.Tracker
	// requeue retries pods when the plugin's own copies catch up.
	requeue *requeuer
	// guard turns panics into one pod's failure and runs test hooks.
	guard *guard
	// latency times the extension points.
	latency *latencies
	// ledger holds what assumed pods' devices take of their nodes'
	// resources while the node accounting misses it
	// (DRANodeAllocatableResources).
	ledger *ledger
	// shortOfNodeResources are the pods Filter turned away for node
	// resources, which an assigned pod's arrival or departure may change.
	shortOfNodeResources *podSet
	// preemptors are the pods a dry run of DefaultPreemption found room
	// for: the scheduler may hold their nomination in memory before their
	// status shows it (nominatedNode).
	preemptors *podSet
	// seenNodeInfos are the snapshot's NodeInfos as the last pod-group
	// cycle outside a mutation session saw them: a pod group
	// preemption's re-run is told by its copies (gangpreemption.go).
	seenNodeInfos atomic.Pointer[seenNodeInfos]
	// nominations tells preemptors of one priority on one node apart by
	// when they were nominated there.
	nominations *nominationClock
	// preemption follows pods for the preemption metrics.
	preemptionMetrics *preemptionWatch
	// pods narrows claim events to the pods they concern; nil unless the
	// SchedulerPreQueueingHints gate is on.
	pods *podIndex
	// consistency compares inventory and tracker with the API's objects,
	// on SIGUSR2 and every consistencyCheckInterval.
	consistency *consistencyCheck

	// claimsSynced reports whether the claim handler has seen every claim
	// that existed when it started; synced remembers that it had.
	claimsSynced cache.InformerSynced
	synced       atomic.Bool
}

// newShared builds the plugins' shared state from the first profile's
// handle and subscribes it to the scheduler's informers.
func newShared(ctx context.Context, h fwk.Handle, gates feature.Features, hooks *Hooks) (*shared, error) {
	logger := klog.FromContext(ctx)
	celCache := cel.NewCache(celCacheSize, cel.Features{
		EnableConsumableCapacity: gates.EnableDRAConsumableCapacity,
		EnableListTypeAttributes: gates.EnableDRAListTypeAttributes,
	})
	sh := &shared{
		feed:    newInventoryFeed(allocator.NewMatcher(celCache)),
		tracker: allocator.NewTracker(allocatorfeatures.FromScheduler(gates)),
		requeue: newRequeuer(h, logger),
		guard:   &guard{logger: logger, hooks: hooks},
		latency: newLatencies(),
		ledger:  newLedger(),

		shortOfNodeResources: newPodSet(shortOfNodeResourcesLimit),
		preemptors:           newPodSet(preemptorsLimit),
		nominations:          newNominationClock(),
		preemptionMetrics:    newPreemptionWatch(),
	}
	sh.feed.changed = sh.requeue.changed
	sh.feed.guard = sh.guard
	if recorder := h.EventRecorder(); recorder != nil {
		sh.tracker.OnConflict(func(c allocator.Conflict) { reportDoubleAllocation(recorder, c) })
	}
	trimManagedFields(logger, h.SharedInformerFactory().Resource().V1().ResourceClaims().Informer())
	claimsSynced, err := watchClaims(h.SharedInformerFactory(), sh.tracker, sh.requeue.changed, sh.guard)
	if err != nil {
		return nil, err
	}
	sh.claimsSynced = claimsSynced
	if err := sh.feed.watch(h.SharedInformerFactory(), utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules)); err != nil {
		return nil, err
	}
	if err := sh.preemptionMetrics.watch(h.SharedInformerFactory(), sh.guard); err != nil {
		return nil, err
	}
	if err := sh.nominations.watch(h.SharedInformerFactory(), sh.guard); err != nil {
		return nil, err
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.SchedulerPreQueueingHints) {
		if sh.pods, err = newPodIndex(h.SharedInformerFactory()); err != nil {
			return nil, err
		}
	}
	claims := h.SharedDRAManager().ResourceClaims()
	sh.consistency = newConsistencyCheck(sh.feed, sh.tracker, h.SharedInformerFactory().Resource().V1().ResourceClaims().Lister(),
		func(uid types.UID) bool { return claims.GetPendingAllocation(uid) != nil },
		append([]cache.InformerSynced{claimsSynced}, sh.feed.hasSynced...), sh.guard)
	sh.consistency.listen(ctx)
	return sh, nil
}

// waitForClaims blocks until the tracker has been handed every claim that
// existed when the plugin started (the inventory feed waits for slices in
// the same way). The scheduler waits for its own informers and handlers
// only: without this, the first cycles after a start or a fail-over could
// take devices that existing claims hold for free ones.
func (sh *shared) waitForClaims(ctx context.Context) error {
	if sh.synced.Load() {
		return nil
	}
	if !cache.WaitForCacheSync(ctx.Done(), sh.claimsSynced) {
		return fmt.Errorf("resource claims not synced: %w", context.Cause(ctx))
	}
	sh.synced.Store(true)
	return nil
}
