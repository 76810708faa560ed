package draallocator

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config/scheme"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// Name is the plugin's name in the registry and in KubeSchedulerConfiguration.
const Name = "DRAAllocator"

const stateKey fwk.StateKey = Name

// celCacheSize bounds the compiled CEL expressions kept by the CEL cache.
// Compiled selectors also live in the Matcher, which keeps every
// expression it has seen; this cache only serves compilation.
const celCacheSize = 1000

// DRAAllocator allocates DRA devices for pods with the long-lived
// pkg/allocator inventory. See doc.go.
type DRAAllocator struct {
	handle     fwk.Handle
	client     kubernetes.Interface
	draManager fwk.SharedDRAManager
	fts        feature.Features
	features   structured.Features
	args       *config.DRAAllocatorArgs
	policy     allocator.Policy

	inv *inventoryFeed
	// allocated tracks the devices claims hold and those in flight.
	allocated *allocator.Tracker
	// requeue retries pods when the plugin's own copies catch up.
	requeue *requeuer
}

var (
	_ fwk.PreEnqueuePlugin  = &DRAAllocator{}
	_ fwk.PreFilterPlugin   = &DRAAllocator{}
	_ fwk.FilterPlugin      = &DRAAllocator{}
	_ fwk.PostFilterPlugin  = &DRAAllocator{}
	_ fwk.ScorePlugin       = &DRAAllocator{}
	_ fwk.ReservePlugin     = &DRAAllocator{}
	_ fwk.PreBindPlugin     = &DRAAllocator{}
	_ fwk.EnqueueExtensions = &DRAAllocator{}
	_ fwk.SignPlugin        = &DRAAllocator{}
)

// New is the plugin factory registered with the scheduler. Invalid args
// stop the scheduler's start-up with the validation message.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	args, err := scheme.Decode(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	if !fts.EnableDynamicResourceAllocation {
		return nil, fmt.Errorf("%s: the DynamicResourceAllocation feature gate is disabled", Name)
	}
	if h.SharedDRAManager() == nil {
		return nil, fmt.Errorf("%s: the scheduler provides no DRA manager", Name)
	}
	metrics.Register()
	allocFeatures := allocatorFeatures(fts)
	policy := allocator.FirstFit
	if args.DeviceSelectionPolicy == config.Packing {
		policy = allocator.Packing
	}
	celCache := cel.NewCache(celCacheSize, cel.Features{
		EnableConsumableCapacity: fts.EnableDRAConsumableCapacity,
		EnableListTypeAttributes: fts.EnableDRAListTypeAttributes,
	})
	pl := &DRAAllocator{
		handle:     h,
		client:     h.ClientSet(),
		draManager: h.SharedDRAManager(),
		fts:        fts,
		features:   allocFeatures,
		args:       args,
		policy:     policy,
		inv:        newInventoryFeed(h.ProfileName(), allocator.NewMatcher(celCache)),
		allocated:  allocator.NewTracker(allocFeatures),
		requeue:    newRequeuer(h, klog.FromContext(ctx)),
	}
	pl.inv.changed = pl.requeue.changed
	if recorder := h.EventRecorder(); recorder != nil {
		pl.allocated.OnConflict(func(c allocator.Conflict) { reportDoubleAllocation(recorder, c) })
	}
	if err := watchClaims(h.SharedInformerFactory(), pl.allocated, pl.requeue.changed); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	if err := pl.inv.watch(h.SharedInformerFactory(), utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules)); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return pl, nil
}

// allocatorFeatures maps the scheduler's feature gates to the allocator's
// features, as the in-tree plugin does.
func allocatorFeatures(fts feature.Features) structured.Features {
	return structured.Features{
		AdminAccess:             fts.EnableDRAAdminAccess,
		PrioritizedList:         fts.EnableDRAPrioritizedList,
		PartitionableDevices:    fts.EnableDRAPartitionableDevices,
		DeviceTaints:            fts.EnableDRADeviceTaints,
		DeviceBindingAndStatus:  fts.EnableDRADeviceBindingConditions && fts.EnableDRAResourceClaimDeviceStatus,
		ConsumableCapacity:      fts.EnableDRAConsumableCapacity,
		FractionalCapacityRange: fts.EnableDRAFractionalCapacityRange,
		ListTypeAttributes:      fts.EnableDRAListTypeAttributes,
		OptionalNodeOperations:  fts.EnableDRAOptionalNodeOperations,
		DerivedAttributes:       fts.EnableDRADerivedAttributes,
		CompatibilityGroups:     fts.EnableDRADeviceCompatibilityGroups,
	}
}

// Name returns the plugin's name.
func (pl *DRAAllocator) Name() string { return Name }

// SignPod refuses to sign pods with claims: whether their results can be
// reused for another pod depends on the claims, not on the pod spec.
func (pl *DRAAllocator) SignPod(ctx context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	if len(pod.Spec.ResourceClaims) > 0 {
		return nil, fwk.NewStatus(fwk.Unschedulable, "pods with resource claims are not signable")
	}
	return nil, nil
}

// observe records an extension point's latency and status.
func observe(extensionPoint string, start time.Time, status *fwk.Status) {
	metrics.Since(extensionPoint, status.Code().String(), start)
}
