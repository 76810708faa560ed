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
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocatorfeatures"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config/scheme"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// Name is the plugin's name in the registry and in KubeSchedulerConfiguration.
const Name = "DRAAllocator"

const stateKey fwk.StateKey = Name

// DRAAllocator allocates DRA devices for pods with the long-lived
// pkg/allocator inventory. See doc.go.
type DRAAllocator struct {
	handle     fwk.Handle
	client     kubernetes.Interface
	draManager fwk.SharedDRAManager
	podLister  corelisters.PodLister
	// pdbLister lists the PodDisruptionBudgets a pod group preemption's
	// placements are ranked by; nil with preemption disabled.
	pdbLister policylisters.PodDisruptionBudgetLister
	gates     feature.Features
	features  structured.Features
	args      *config.DRAAllocatorArgs
	policy    allocator.Policy
	// bindingPoll is how often PreBind looks at binding conditions.
	bindingPoll time.Duration
	// placements outlives cycles: where allocations' devices are in the
	// inventory (keptPlacements, prefilter.go).
	placements atomic.Pointer[allocator.Placements]

	// shared is what every profile of the scheduler shares: inventory,
	// tracker of allocated and in-flight devices, requeuer, panic guard.
	*shared
}

var (
	_ fwk.PreEnqueuePlugin         = &DRAAllocator{}
	_ fwk.PreFilterPlugin          = &DRAAllocator{}
	_ fwk.PreFilterExtensions      = &DRAAllocator{}
	_ fwk.FilterPlugin             = &DRAAllocator{}
	_ fwk.PostFilterPlugin         = &DRAAllocator{}
	_ fwk.PodGroupPostFilterPlugin = &DRAAllocator{}
	_ fwk.PreScorePlugin           = &DRAAllocator{}
	_ fwk.ScorePlugin              = &DRAAllocator{}
	_ fwk.PlacementGeneratePlugin  = &DRAAllocator{}
	_ fwk.PlacementScorePlugin     = &DRAAllocator{}
	_ fwk.PlacementScoreExtensions = &DRAAllocator{}
	_ fwk.ReservePlugin            = &DRAAllocator{}
	_ fwk.PreBindPlugin            = &DRAAllocator{}
	_ fwk.EnqueueExtensions        = &DRAAllocator{}
	_ fwk.SignPlugin               = &DRAAllocator{}
)

// Options configure the DRAAllocator plugins of one scheduler.
type Options struct {
	// Hooks inject faults and delays; tests set them, nil otherwise.
	Hooks *Hooks
}

// NewFactory returns the plugin factory of one scheduler: every profile
// it builds a DRAAllocator for shares one device inventory, one tracker of
// allocated and in-flight devices and one requeuer, so an allocation in
// flight in one profile is excluded by all the others. Register one
// factory per scheduler; invalid args stop the scheduler's start-up with
// the validation message.
func NewFactory(opts Options) func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	var (
		mu sync.Mutex
		sh *shared
	)
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		args, err := scheme.Decode(obj)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		gates := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
		if !gates.EnableDynamicResourceAllocation {
			return nil, fmt.Errorf("%s: the DynamicResourceAllocation feature gate is disabled", Name)
		}
		if err := allocatorfeatures.CheckSupported(gates); err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		if h.SharedDRAManager() == nil {
			return nil, fmt.Errorf("%s: the scheduler provides no DRA manager", Name)
		}
		metrics.Register()
		mu.Lock()
		defer mu.Unlock()
		if sh == nil {
			if sh, err = newShared(ctx, h, gates, opts.Hooks); err != nil {
				return nil, fmt.Errorf("%s: %w", Name, err)
			}
		}
		sh.feed.addProfile(h.ProfileName())
		sh.consistency.addInterval(args.ConsistencyCheckInterval.Duration)
		if args.Preemption != config.PreemptionDisabled {
			sh.preemptionMetrics.addProfile(h.ProfileName())
		}
		policy := allocator.FirstFit
		if args.DeviceSelectionPolicy == config.Packing {
			policy = allocator.Packing
		}
		var pdbLister policylisters.PodDisruptionBudgetLister
		if args.Preemption != config.PreemptionDisabled {
			pdbLister = h.SharedInformerFactory().Policy().V1().PodDisruptionBudgets().Lister()
		}
		return &DRAAllocator{
			pdbLister:   pdbLister,
			handle:      h,
			client:      h.ClientSet(),
			draManager:  h.SharedDRAManager(),
			podLister:   h.SharedInformerFactory().Core().V1().Pods().Lister(),
			gates:       gates,
			features:    allocatorfeatures.FromScheduler(gates),
			args:        args,
			policy:      policy,
			bindingPoll: bindingPollInterval,
			shared:      sh,
		}, nil
	}
}

// New builds a DRAAllocator with state of its own, for a registry with a
// single profile. A scheduler with several profiles registers
// NewFactory's result instead, so that they share state.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return NewFactory(Options{})(ctx, obj, h)
}

// Name returns the plugin's name.
func (pl *DRAAllocator) Name() string { return Name }

// signPod refuses to sign pods with claims: whether their results can be
// reused for another pod depends on the claims, not on the pod spec.
func (pl *DRAAllocator) signPod(ctx context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	if len(pod.Spec.ResourceClaims) > 0 {
		return nil, fwk.NewStatus(fwk.Unschedulable, "pods with resource claims are not signable")
	}
	return nil, nil
}

// latencies are the extension points' latency histograms.
type latencies struct {
	preFilter, filter, postFilter, podGroupPostFilter, score, reserve, preBind *metrics.Latency
}

// newLatencies returns the histograms of every extension point the plugin
// times, for every framework status code.
func newLatencies() *latencies {
	var codes []string
	for c := fwk.Success; c <= fwk.Pending; c++ {
		codes = append(codes, c.String())
	}
	return &latencies{
		preFilter:          metrics.NewLatency("PreFilter", codes),
		filter:             metrics.NewLatency("Filter", codes),
		postFilter:         metrics.NewLatency("PostFilter", codes),
		podGroupPostFilter: metrics.NewLatency("PodGroupPostFilter", codes),
		score:              metrics.NewLatency("Score", codes),
		reserve:            metrics.NewLatency("Reserve", codes),
		preBind:            metrics.NewLatency("PreBind", codes),
	}
}

// observe records an extension point's latency and status.
func observe(l *metrics.Latency, start time.Time, status *fwk.Status) {
	l.Since(int(status.Code()), start)
}
