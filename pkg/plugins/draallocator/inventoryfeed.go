package draallocator

import (
	"context"
	"fmt"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// inventoryFeed keeps a long-lived inventory equal to the cluster's
// ResourceSlices with DeviceTaintRules applied. Events only queue the
// changed slice; PreFilter applies the queue (sync) before building the
// pod's allocator, so the inventory never changes under a Filter.
type inventoryFeed struct {
	// profile labels the inventory metrics: each profile has its own feed.
	profile string
	inv     *inventory.Inventory
	matcher *allocator.Matcher

	mu      sync.Mutex
	pending map[string]*resourceapi.ResourceSlice // nil: deleted

	// changed, if set, is called after a slice change was queued.
	changed func()

	// hasSynced reports whether the initial slices were queued; synced
	// remembers that it did (read and written by sync only).
	hasSynced func() bool
	synced    bool

	// lastEvaluations, lastHits and lastErrors are the matcher counters
	// already reported as metrics.
	lastEvaluations, lastHits, lastErrors int64
}

func newInventoryFeed(profile string, m *allocator.Matcher) *inventoryFeed {
	return &inventoryFeed{profile: profile, inv: inventory.New(), matcher: m, pending: map[string]*resourceapi.ResourceSlice{}}
}

// watch subscribes to slices as patched by DeviceTaintRules, one change at
// a time. The scheduler's own tracker offers no event source, and a
// tracker cannot share its informer with another one (they index it under
// the same name), so the feed runs a tracker over informers of its own:
// one more watch of ResourceSlices and DeviceTaintRules per profile.
func (f *inventoryFeed) watch(ctx context.Context, client kubernetes.Interface, taintRules, consumableCapacity bool) error {
	factory := informers.NewSharedInformerFactory(client, 0)
	opts := tracker.Options{
		EnableDeviceTaintRules:   taintRules,
		EnableConsumableCapacity: consumableCapacity,
		SliceInformer:            factory.Resource().V1().ResourceSlices(),
		KubeClient:               client,
	}
	if taintRules {
		opts.TaintInformer = factory.Resource().V1().DeviceTaintRules()
	}
	t, err := tracker.StartTracker(ctx, opts)
	if err != nil {
		return fmt.Errorf("start resource slice tracker: %w", err)
	}
	reg, err := t.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { f.queue(obj, false) },
		UpdateFunc: func(_, obj any) { f.queue(obj, false) },
		DeleteFunc: func(obj any) { f.queue(obj, true) },
	})
	if err != nil {
		t.Stop()
		return fmt.Errorf("watch resource slices: %w", err)
	}
	f.hasSynced = reg.HasSynced
	factory.Start(ctx.Done())
	go func() {
		<-ctx.Done()
		t.Stop()
		factory.Shutdown()
	}()
	return nil
}

// waitForSync blocks until the feed has seen every slice that existed
// when it started, once.
func (f *inventoryFeed) waitForSync(ctx context.Context) error {
	if f.synced {
		return nil
	}
	if !cache.WaitForCacheSync(ctx.Done(), f.hasSynced) {
		return fmt.Errorf("resource slices not synced: %w", context.Cause(ctx))
	}
	f.synced = true
	return nil
}

func (f *inventoryFeed) queue(obj any, deleted bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	slice, ok := obj.(*resourceapi.ResourceSlice)
	if !ok {
		return
	}
	f.mu.Lock()
	if deleted {
		f.pending[slice.Name] = nil
	} else {
		f.pending[slice.Name] = slice
	}
	f.mu.Unlock()
	if f.changed != nil && !deleted {
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
	pending := f.pending
	if len(pending) > 0 {
		f.pending = make(map[string]*resourceapi.ResourceSlice, len(pending))
	}
	f.mu.Unlock()
	if len(pending) > 0 {
		for name, slice := range pending {
			if slice == nil {
				f.inv.Remove(name)
			} else {
				f.inv.Set(slice)
			}
		}
		klog.FromContext(ctx).V(5).Info("Inventory updated", "changedSlices", len(pending),
			"slices", f.inv.NumSlices(), "devices", f.inv.NumDevices(), "pools", f.inv.NumPools())
		metrics.Inventory.WithLabelValues(f.profile, "devices").Set(float64(f.inv.NumDevices()))
		metrics.Inventory.WithLabelValues(f.profile, "slices").Set(float64(f.inv.NumSlices()))
		metrics.Inventory.WithLabelValues(f.profile, "pools").Set(float64(f.inv.NumPools()))
	}
	return nil
}

// reportMatcher turns the matcher's counters into metric increments. Like
// sync, it runs on the scheduling goroutine only.
func (f *inventoryFeed) reportMatcher() {
	evaluations, hits := f.matcher.Stats()
	errs := f.matcher.RuntimeErrors()
	metrics.SelectorCacheRequests.WithLabelValues("miss").Add(float64(evaluations - f.lastEvaluations))
	metrics.SelectorCacheRequests.WithLabelValues("hit").Add(float64(hits - f.lastHits))
	metrics.CELRuntimeErrors.Add(float64(errs - f.lastErrors))
	f.lastEvaluations, f.lastHits, f.lastErrors = evaluations, hits, errs
}
