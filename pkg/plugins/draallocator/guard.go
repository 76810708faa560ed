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
	"runtime/debug"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// The guard names the informer event handlers it protects like this; the
// framework's calls go by their extension point's name ("Filter", ...).
const (
	pointClaimEvent = "ResourceClaimEvent"
	pointSliceEvent = "ResourceSliceEvent"
	pointRuleEvent  = "DeviceTaintRuleEvent"
)

// Hooks inject faults and delays into one scheduler's DRAAllocator
// plugins, for tests. They run inside the panic guard.
type Hooks struct {
	// Enter runs first in every extension point, queueing hint and
	// informer event handler. point is the name the panic metric uses
	// ("PreFilter", "Filter", ..., "ResourceClaimEvent"); pod is nil in
	// event handlers.
	Enter func(point string, pod *v1.Pod)
	// Checked runs after every consistency check that completed, with
	// what made it run ("signal", "interval") and the differences it
	// found (those both of its comparisons found), so that a test of a
	// whole scheduler can name them.
	Checked func(trigger string, differences []drift.Difference)
}

// guard keeps a bug from taking the scheduler down: kube-scheduler does
// not recover panics in plugins, so one bad pod or object would crash the
// process, and the pod that caused it would crash it again after the
// restart. Every entry point the framework or an informer calls defers one
// of guard's recover methods: a panic becomes that pod's error (the
// framework then reports FailedScheduling and calls Unreserve, which
// releases what the attempt had in flight), is logged with its stack and
// counted in dra_scheduler_plugin_panics_total. A nil guard still
// recovers.
type guard struct {
	logger klog.Logger
	hooks  *Hooks
}

// enter runs the test hook, if any.
func (g *guard) enter(point string, pod *v1.Pod) {
	if g != nil && g.hooks != nil && g.hooks.Enter != nil {
		g.hooks.Enter(point, pod)
	}
}

// checked runs the test hook of a completed consistency check, if any.
func (g *guard) checked(trigger string, differences []drift.Difference) {
	if g != nil && g.hooks != nil && g.hooks.Checked != nil {
		g.hooks.Checked(trigger, differences)
	}
}

// recoverStatus, deferred by an extension point with a status result,
// turns a panic into an error status for the pod.
func (g *guard) recoverStatus(ctx context.Context, point string, pod *v1.Pod, status **fwk.Status) {
	if r := recover(); r != nil {
		*status = fwk.AsStatus(report(klog.FromContext(ctx), point, pod, r))
	}
}

// recoverHint, deferred by a queueing hint, turns a panic into "queue the
// pod" with an error, which the framework logs.
func (g *guard) recoverHint(logger klog.Logger, point string, pod *v1.Pod, hint *fwk.QueueingHint, err *error) {
	if r := recover(); r != nil {
		*hint, *err = fwk.Queue, report(logger, point, pod, r)
	}
}

// recoverPreHint, deferred by a pre-queueing hint, turns a panic into "all
// pods" with an error, which the queue logs.
func (g *guard) recoverPreHint(logger klog.Logger, point string, result *fwk.PreQueueingHintResult, err *error) {
	if r := recover(); r != nil {
		*result, *err = fwk.PreQueueingHintResult{AllPods: true}, report(logger, point, nil, r)
	}
}

// recoverHandler, deferred by an informer event handler, reports a panic;
// the informer goes on delivering events.
func (g *guard) recoverHandler(point string) {
	if r := recover(); r != nil {
		logger := klog.Background()
		if g != nil {
			logger = g.logger
		}
		_ = report(logger, point, nil, r)
	}
}

// report logs a recovered panic with its stack, counts it, and returns the
// error the pod's attempt fails with.
func report(logger klog.Logger, point string, pod *v1.Pod, r any) error {
	metrics.PluginPanics.WithLabelValues(point).Inc()
	err := fmt.Errorf("%s: internal error in %s: %v (a bug: the scheduler's log has the stack)", Name, point, r)
	kv := []any{"extensionPoint", point, "stack", string(debug.Stack())}
	if pod != nil {
		kv = append(kv, "pod", klog.KObj(pod))
	}
	logger.Error(err, "Recovered from a panic: only this pod's attempt fails", kv...)
	return err
}
