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
	"maps"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
	"github.com/dra-scheduler/dra-scheduler/pkg/taintrules"
)

// inventoryFeed keeps a long-lived inventory equal to the cluster's
// ResourceSlices with DeviceTaintRules applied. It watches the scheduler's
// own slice and rule informers (one copy of every slice in the process, no
// extra watch) and applies the rules itself, as the scheduler's tracker
// does. Events only queue the names of changed slices; PreFilter applies
// the queue (sync) before building the pod's allocator, so the inventory
// never changes under a Filter.
type inventoryFeed struct {
	// profiles label the inventory metrics: the profiles sharing the feed.
	profiles []string
	inv      *inventory.Inventory
	matcher  *allocator.Matcher

	slices resourcelisters.ResourceSliceLister
	// rules is nil when the DRADeviceTaintRules gate is off.
	rules resourcelisters.DeviceTaintRuleLister

	mu     sync.Mutex
	queued map[string]struct{} // names of slices whose change is queued, to read again

	// applying is held while sync changes the inventory, and by read: the
	// consistency check reads the inventory from a goroutine of its own.
	applying sync.Mutex

	// changed, if set, is called after a change that may free devices
	// was queued.
	changed func()
	// guard, if set, contains panics of the event handlers.
	guard *guard

	// hasSynced reports whether the initial slices and rules were
	// queued; synced remembers that they were (read and written by sync
	// only).
	hasSynced []cache.InformerSynced
	synced    bool

	// lastEvaluations, lastHits, lastErrors and lastEvictions are the
	// matcher counters already reported as metrics.
	lastEvaluations, lastHits, lastErrors, lastEvictions int64
}

func newInventoryFeed(m *allocator.Matcher) *inventoryFeed {
	return &inventoryFeed{inv: inventory.New(), matcher: m, queued: map[string]struct{}{}}
}

// addProfile adds a profile that uses the feed to the metrics' labels.
// Profiles are added while the scheduler builds them, before scheduling.
func (f *inventoryFeed) addProfile(name string) {
	f.profiles = append(f.profiles, name)
}

// watch subscribes to the factory's ResourceSlices and, with taintRules,
// its DeviceTaintRules. Given the scheduler's factory, these are the
// informers its own slice tracker reads.
func (f *inventoryFeed) watch(factory informers.SharedInformerFactory, taintRules bool) error {
	sliceInformer := factory.Resource().V1().ResourceSlices()
	f.slices = sliceInformer.Lister()
	reg, err := sliceInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			defer f.guard.recoverHandler(pointSliceEvent)
			f.sliceChanged(obj, true)
		},
		UpdateFunc: func(_, obj any) {
			defer f.guard.recoverHandler(pointSliceEvent)
			f.sliceChanged(obj, true)
		},
		DeleteFunc: func(obj any) {
			defer f.guard.recoverHandler(pointSliceEvent)
			f.sliceChanged(obj, false)
		},
	})
	if err != nil {
		return fmt.Errorf("watch resource slices: %w", err)
	}
	f.hasSynced = append(f.hasSynced, reg.HasSynced)
	if !taintRules {
		return nil
	}
	ruleInformer := factory.Resource().V1().DeviceTaintRules()
	f.rules = ruleInformer.Lister()
	reg, err = ruleInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			defer f.guard.recoverHandler(pointRuleEvent)
			f.ruleChanged(nil, obj)
		},
		UpdateFunc: func(oldObj, obj any) {
			defer f.guard.recoverHandler(pointRuleEvent)
			f.ruleChanged(oldObj, obj)
		},
		DeleteFunc: func(obj any) {
			defer f.guard.recoverHandler(pointRuleEvent)
			f.ruleChanged(obj, nil)
		},
	})
	if err != nil {
		return fmt.Errorf("watch device taint rules: %w", err)
	}
	f.hasSynced = append(f.hasSynced, reg.HasSynced)
	return nil
}

// waitForSync blocks until the feed has seen every slice and rule that
// existed when it started, once.
func (f *inventoryFeed) waitForSync(ctx context.Context) error {
	if f.synced {
		return nil
	}
	if !cache.WaitForCacheSync(ctx.Done(), f.hasSynced...) {
		return fmt.Errorf("resource slices not synced: %w", context.Cause(ctx))
	}
	f.synced = true
	return nil
}

func (f *inventoryFeed) sliceChanged(obj any, mayFree bool) {
	f.guard.enter(pointSliceEvent, nil)
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	slice, ok := obj.(*resourceapi.ResourceSlice)
	if !ok {
		return
	}
	f.mu.Lock()
	f.queued[slice.Name] = struct{}{}
	f.mu.Unlock()
	if f.changed != nil && mayFree {
		f.changed()
	}
}

// ruleChanged queues every slice that the old or the new version of a
// rule may taint. Rules change rarely; a slice they do not touch is
// handed to the inventory unchanged, which ignores it.
func (f *inventoryFeed) ruleChanged(oldObj, newObj any) {
	var rules []*resourceapi.DeviceTaintRule
	for _, obj := range []any{oldObj, newObj} {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if rule, ok := obj.(*resourceapi.DeviceTaintRule); ok {
			rules = append(rules, rule)
		}
	}
	all, err := f.slices.List(labels.Everything())
	if err != nil {
		return // a lister's List does not fail
	}
	queuedAny := false
	f.mu.Lock()
	for _, slice := range all {
		for _, rule := range rules {
			if taintrules.MayApply(rule, slice.Spec.Driver, slice.Spec.Pool.Name) {
				f.queued[slice.Name] = struct{}{}
				queuedAny = true
				break
			}
		}
	}
	f.mu.Unlock()
	if queuedAny && f.changed != nil {
		f.changed()
	}
}

// sync applies the queued slice changes. It must not run concurrently with
// allocators reading the inventory: PreFilter calls it.
func (f *inventoryFeed) sync(ctx context.Context) error {
	if err := f.waitForSync(ctx); err != nil {
		return err
	}
	f.mu.Lock()
	if len(f.queued) == 0 {
		f.mu.Unlock()
		return nil
	}
	f.mu.Unlock()
	f.applying.Lock()
	defer f.applying.Unlock()
	f.mu.Lock()
	changes := f.queued
	f.queued = make(map[string]struct{}, len(changes))
	f.mu.Unlock()
	var rules []*resourceapi.DeviceTaintRule
	if f.rules != nil {
		var err error
		if rules, err = f.rules.List(labels.Everything()); err != nil {
			return fmt.Errorf("list device taint rules: %w", err)
		}
	}
	for name := range changes {
		slice, err := f.slices.Get(name)
		switch {
		case apierrors.IsNotFound(err):
			f.inv.Remove(name)
		case err != nil:
			return fmt.Errorf("get resource slice %s: %w", name, err)
		default:
			f.inv.Set(taintrules.Apply(slice, rules))
		}
	}
	klog.FromContext(ctx).V(5).Info("Inventory updated", "changedSlices", len(changes),
		"slices", f.inv.NumSlices(), "devices", f.inv.NumDevices(), "pools", f.inv.NumPools())
	for _, profile := range f.profiles {
		metrics.Inventory.WithLabelValues(profile, "devices").Set(float64(f.inv.NumDevices()))
		metrics.Inventory.WithLabelValues(profile, "slices").Set(float64(f.inv.NumSlices()))
		metrics.Inventory.WithLabelValues(profile, "pools").Set(float64(f.inv.NumPools()))
	}
	return nil
}

// read calls fn with the inventory while sync cannot change it, and with
// whether a slice's change is queued, not applied yet. The consistency
// check reads the inventory this way, on a goroutine of its own; fn must
// not change the inventory.
func (f *inventoryFeed) read(fn func(inv *inventory.Inventory, queued func(slice string) bool)) {
	f.applying.Lock()
	defer f.applying.Unlock()
	f.mu.Lock()
	queued := maps.Clone(f.queued)
	f.mu.Unlock()
	fn(f.inv, func(slice string) bool {
		_, ok := queued[slice]
		return ok
	})
}

// reportMatcher turns the matcher's counters into metric increments. Like
// sync, it runs on the scheduling goroutine only.
func (f *inventoryFeed) reportMatcher() {
	st := f.matcher.Stats()
	metrics.SelectorCacheRequests.WithLabelValues("miss").Add(float64(st.Evaluations - f.lastEvaluations))
	metrics.SelectorCacheRequests.WithLabelValues("hit").Add(float64(st.Hits - f.lastHits))
	metrics.CELRuntimeErrors.Add(float64(st.RuntimeErrors - f.lastErrors))
	metrics.CELCachedExpressions.Set(float64(st.Expressions))
	metrics.CELCachedChains.Set(float64(st.Chains))
	metrics.CELCacheBytes.Set(float64(st.Bytes))
	metrics.CELCacheEvictions.Add(float64(st.Evictions - f.lastEvictions))
	f.lastEvaluations, f.lastHits, f.lastErrors, f.lastEvictions = st.Evaluations, st.Hits, st.RuntimeErrors, st.Evictions
}
