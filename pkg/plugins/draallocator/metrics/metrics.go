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

// Package metrics defines the DRAAllocator plugin's Prometheus metrics.
//
// They are registered in component-base's legacy registry, the one
// kube-scheduler serves on /metrics, so they appear next to the
// scheduler's own. Registration happens once per process (Register is
// idempotent); the metric values are process-wide like every other
// kube-scheduler metric. All names start with dra_scheduler_.
package metrics

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/dra-scheduler/dra-scheduler/pkg/version"
)

const subsystem = "dra_scheduler"

var (
	// ExtensionPointDuration is the latency of the plugin's extension
	// points, by extension point and status code.
	ExtensionPointDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Subsystem:      subsystem,
		Name:           "extension_point_duration_seconds",
		Help:           "Latency of the DRAAllocator plugin per extension point (PreFilter, Filter, Score, Reserve, PreBind, ...) and status.",
		Buckets:        metrics.ExponentialBuckets(0.000001, 2.5, 20),
		StabilityLevel: metrics.ALPHA,
	}, []string{"extension_point", "status"})

	// SelectorCacheRequests counts selector results by where they came
	// from: "miss" is a CEL evaluation, "hit" a remembered result.
	SelectorCacheRequests = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "selector_cache_requests_total",
		Help:           "Selector results needed by the allocator: result=miss ran a CEL evaluation, result=hit reused a remembered (selector, device) result.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})

	// CELRuntimeErrors counts CEL evaluations that failed at run time.
	CELRuntimeErrors = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "cel_runtime_errors_total",
		Help:           "CEL selector evaluations that ended in a runtime error (each expression and device version counted once).",
		StabilityLevel: metrics.ALPHA,
	})

	// BuildInfo is 1, labelled with what this binary is: dra-scheduler's
	// version, the Kubernetes version it embeds and the Go version it was
	// built with.
	BuildInfo = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Subsystem:      subsystem,
		Name:           "build_info",
		Help:           "Always 1: the dra-scheduler version, the Kubernetes version its kube-scheduler is built from, and the Go version of this binary.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"version", "kubernetes_version", "go_version"})

	// CELCachedExpressions is the number of compiled CEL expressions the
	// allocator keeps, with their results per device.
	CELCachedExpressions = metrics.NewGauge(&metrics.GaugeOpts{
		Subsystem:      subsystem,
		Name:           "cel_cached_expressions",
		Help:           "Compiled CEL selector expressions the allocator keeps with their result per device; bounded, least recently used evicted first.",
		StabilityLevel: metrics.ALPHA,
	})

	// CELCachedChains is the number of selector chains whose per-node
	// results the allocator keeps.
	CELCachedChains = metrics.NewGauge(&metrics.GaugeOpts{
		Subsystem:      subsystem,
		Name:           "cel_cached_selector_chains",
		Help:           "Selector chains (a device class's and a request's selectors) whose per-node selections and summaries the allocator keeps; bounded, least recently used evicted first.",
		StabilityLevel: metrics.ALPHA,
	})

	// CELCacheBytes estimates the memory of the cached expressions and
	// chains.
	CELCacheBytes = metrics.NewGauge(&metrics.GaugeOpts{
		Subsystem:      subsystem,
		Name:           "cel_cache_bytes",
		Help:           "Estimated bytes held by the cached CEL expressions (programs, results per device) and selector chains (selections and summaries per node).",
		StabilityLevel: metrics.ALPHA,
	})

	// CELCacheEvictions counts evicted expressions and chains.
	CELCacheEvictions = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "cel_cache_evictions_total",
		Help:           "CEL expressions and selector chains evicted from the allocator's cache because a limit was reached; a pod using one again recomputes it.",
		StabilityLevel: metrics.ALPHA,
	})

	// Inventory is the size of the allocator's device inventory.
	Inventory = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Subsystem:      subsystem,
		Name:           "inventory_objects",
		Help:           "Objects in the allocator's inventory of a scheduler profile, by kind (devices, slices, pools).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"profile", "kind"})

	// ClaimsAllocated counts allocations written to ResourceClaim status.
	ClaimsAllocated = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "claims_allocated_total",
		Help:           "ResourceClaims whose allocation the plugin wrote to the API server.",
		StabilityLevel: metrics.ALPHA,
	})

	// ClaimsDeallocated counts allocations the plugin removed.
	ClaimsDeallocated = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "claims_deallocated_total",
		Help:           "ResourceClaims the plugin deallocated to make room for a pending pod (PostFilter).",
		StabilityLevel: metrics.ALPHA,
	})

	// DoubleAllocations counts dedicated devices found held by two claims.
	DoubleAllocations = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "double_allocations_total",
		Help:           "Dedicated devices found allocated to two claims at once (by any scheduler); each also raises a warning event on both claims.",
		StabilityLevel: metrics.ALPHA,
	})

	// PluginPanics counts panics the plugin recovered from, by where they
	// happened: an extension point or queueing hint (that pod's attempt
	// failed) or an informer event handler (that event was dropped).
	PluginPanics = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "plugin_panics_total",
		Help:           "Panics in the DRAAllocator plugin that it recovered from, by extension point, queueing hint or event handler; each failed only one pod's attempt or one event. Any is a bug: the log has the stack.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"extension_point"})

	// PreBindConflicts counts ResourceClaim status writes that hit a
	// conflict and were retried.
	PreBindConflicts = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "prebind_conflicts_total",
		Help:           "ResourceClaim status writes in PreBind that got a conflict and were retried with a fresh claim.",
		StabilityLevel: metrics.ALPHA,
	})
)

// Preemption for devices.
var (
	// PreemptionVictims counts the pods with resource claims that a
	// profile of this scheduler preempted through the API.
	PreemptionVictims = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "preemption_victims_total",
		Help:           "Pods with resource claims that a profile of this scheduler preempted (DisruptionTarget condition, reason PreemptionByScheduler). Victims preempted in the scheduler's memory (waiting, or in PreBind) get no condition and are not counted.",
		StabilityLevel: metrics.ALPHA,
	})

	// PreemptionNominatedToBound is the time from a pod's nomination to
	// its binding, for pods with resource claims of this scheduler's
	// profiles.
	PreemptionNominatedToBound = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      subsystem,
		Name:           "preemption_nominated_to_bound_seconds",
		Help:           "Time from a pod's nomination (status.nominatedNodeName set by preemption) to its binding, as the scheduler's pod informer sees them, for pods with resource claims.",
		Buckets:        metrics.ExponentialBuckets(0.05, 2, 14),
		StabilityLevel: metrics.ALPHA,
	})

	// PreemptionReleaseWaits counts the PostFilter answers that kept a
	// pod's nomination while its victims' claims were being released.
	PreemptionReleaseWaits = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "preemption_release_waits_total",
		Help:           "Scheduling attempts in which PostFilter kept a pod's nomination, instead of letting DefaultPreemption evict again, because the claims of its victims were being released on its nominated node.",
		StabilityLevel: metrics.ALPHA,
	})
)

// Preemption for pod groups' devices (issue 55). kube-scheduler's own
// scheduler_workload_preemption_attempts_total,
// scheduler_workload_preemption_victims and
// scheduler_preemption_evaluation_duration_seconds{preemptor_type="podgroup"}
// count and time every pod group preemption; these are the plugin's part.
var (
	// GroupPreemptionReruns counts the pod group preemption re-runs in
	// which the plugin freed the removed pods' devices.
	GroupPreemptionReruns = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "group_preemption_reruns_total",
		Help:           "Pod group preemption re-runs (DefaultPreemption's PodGroupPostFilter scheduling the group again without lower-priority pods) in which the plugin counted the removed pods' devices as free.",
		StabilityLevel: metrics.ALPHA,
	})

	// GroupPreemptionVictims counts the pods with resource claims that a
	// profile of this scheduler preempted for a pod group.
	GroupPreemptionVictims = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "group_preemption_victims_total",
		Help:           "Pods with resource claims that a profile of this scheduler preempted for a pod group (DisruptionTarget condition, reason PreemptionByScheduler, naming a pod group); also counted in preemption_victims_total.",
		StabilityLevel: metrics.ALPHA,
	})

	// GroupPreemptionRanking is the time the plugin spends estimating the
	// victims of one placement of a re-run.
	GroupPreemptionRanking = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      subsystem,
		Name:           "group_preemption_placement_ranking_seconds",
		Help:           "Time ScorePlacement spent estimating the victims a placement of a pod group preemption's re-run needs, per placement.",
		Buckets:        metrics.ExponentialBuckets(0.0001, 2.5, 14),
		StabilityLevel: metrics.ALPHA,
	})
)

// The consistency check of the plugin's long-lived state (issue 41).
var (
	// CacheDifferences counts the differences between the plugin's
	// long-lived state and the API's objects that the consistency check
	// found, each once while it lasts, by kind (drift.Kinds).
	CacheDifferences = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      subsystem,
		Name:           "cache_differences_total",
		Help:           "Differences between the DRAAllocator plugin's long-lived state (device inventory, devices allocated and in flight) and the API's objects that the consistency check found, each counted once while it lasts, by kind. Any is a bug: the scheduler's log names the objects.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind"})

	// ConsistencyCheckDifferences is the number of differences the last
	// consistency check found.
	ConsistencyCheckDifferences = metrics.NewGauge(&metrics.GaugeOpts{
		Subsystem:      subsystem,
		Name:           "consistency_check_differences",
		Help:           "Differences between the DRAAllocator plugin's long-lived state and the API's objects that the last consistency check found, those found before included.",
		StabilityLevel: metrics.ALPHA,
	})

	// ConsistencyCheckDuration is the time one consistency check spent
	// comparing, without the pause before a second comparison.
	ConsistencyCheckDuration = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      subsystem,
		Name:           "consistency_check_duration_seconds",
		Help:           "Time a consistency check of the DRAAllocator plugin's state spent comparing (both comparisons when the first found differences, not the pause between them).",
		Buckets:        metrics.ExponentialBuckets(0.001, 2, 15),
		StabilityLevel: metrics.ALPHA,
	})
)

var registerOnce sync.Once

// Register registers the metrics in the legacy registry; later calls do
// nothing.
func Register() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(BuildInfo, ExtensionPointDuration, SelectorCacheRequests, CELRuntimeErrors,
			CELCachedExpressions, CELCachedChains, CELCacheBytes, CELCacheEvictions,
			Inventory, ClaimsAllocated, ClaimsDeallocated, DoubleAllocations, PreBindConflicts, PluginPanics,
			PreemptionVictims, PreemptionNominatedToBound, PreemptionReleaseWaits,
			GroupPreemptionReruns, GroupPreemptionVictims, GroupPreemptionRanking,
			CacheDifferences, ConsistencyCheckDifferences, ConsistencyCheckDuration)
		BuildInfo.WithLabelValues(version.Version(), version.Kubernetes(), runtime.Version()).Set(1)
	})
}

// Latency is one extension point's ExtensionPointDuration histograms, one
// per status, each looked up once, on first use (a series appears when it
// has an observation): resolving the labels per call costs as much as a
// Filter call that a summary answers.
type Latency struct {
	extensionPoint string
	statuses       []string
	byStatus       []atomic.Pointer[metrics.ObserverMetric]
}

// NewLatency returns the histograms of the extension point; a status is
// then given by its index in statuses.
func NewLatency(extensionPoint string, statuses []string) *Latency {
	return &Latency{extensionPoint: extensionPoint, statuses: statuses, byStatus: make([]atomic.Pointer[metrics.ObserverMetric], len(statuses))}
}

// Since observes the time since start under the status of index status.
func (l *Latency) Since(status int, start time.Time) {
	o := l.byStatus[status].Load()
	if o == nil {
		// Two goroutines may both resolve it: the same series either way.
		observer := ExtensionPointDuration.WithLabelValues(l.extensionPoint, l.statuses[status])
		o = &observer
		l.byStatus[status].Store(o)
	}
	(*o).Observe(time.Since(start).Seconds())
}
