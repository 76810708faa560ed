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

package schedbench

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchenv"
	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// cleanupTimeout bounds the deletion of a run's namespace and inventory in
// an existing cluster.
const cleanupTimeout = 5 * time.Minute

// inProcessNamespace holds the pods on an in-process control plane.
const inProcessNamespace = "dra-bench"

// Run measures every configuration at every size and returns the report.
// A failed measurement is recorded in its Result (and Result.Failed says
// so) and the run goes on; an interrupt (ctx) or bad options end it, with
// the results so far. The report is nil only when the options are invalid.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.complete(); err != nil {
		return nil, err
	}
	rep := &Report{
		Tool:          "dra-bench scheduler",
		SchemaVersion: ReportSchemaVersion,
		Environment:   benchenv.Capture(""),
		StartedAt:     time.Now().UTC().Format(time.RFC3339),
		Settings: Settings{
			Workload:      opts.Workload,
			Shape:         opts.Shape.Name,
			ShapeDetail:   opts.Shape.Description,
			Claims:        string(opts.Claims),
			Warmup:        opts.Warmup,
			Pending:       opts.Pending,
			PendingReason: opts.pendingReasonSetting(),
			QPS:           opts.QPS,
			Burst:         opts.Burst,
			Writers:       opts.Writers,
			TimeoutNs:     int64(opts.Timeout),
			Target:        "in-process control plane",
			SchedulerName: SchedulerName,
			FeatureGates:  opts.FeatureGates.String(),
			ConfigFile:    opts.ConfigFile,
		},
	}
	switch opts.Workload {
	case WorkloadPreemption:
		rep.Settings.PreemptionTimeoutNs = int64(opts.PreemptionTimeout)
	case WorkloadGang, WorkloadGangPreemption:
		rep.Settings.GangTimeoutNs = int64(opts.GangTimeout)
	}
	if opts.Kubeconfig == "" {
		rep.Settings.ResourceClaimWorkers = opts.controlPlane().ResourceClaimWorkers()
	}
	sizes := opts.Sizes
	if opts.Kubeconfig != "" {
		rep.Settings.Target = "cluster of " + opts.Kubeconfig
		if !opts.CreateInventory {
			// The cluster's own nodes: one size, whatever it is.
			sizes = []int{0}
		}
	}
	total := len(sizes) * len(opts.Configs)
	for i, n := range sizes {
		for j, c := range opts.Configs {
			label := fmt.Sprintf("[%d/%d] nodes=%d config=%s", i*len(opts.Configs)+j+1, total, n, c)
			if n == 0 {
				label = fmt.Sprintf("[%d/%d] config=%s", j+1, total, c)
			}
			run := opts.runOne
			switch opts.Workload {
			case WorkloadPreemption:
				run = opts.runPreemption
			case WorkloadGang:
				run = opts.runGang
			case WorkloadGangPreemption:
				run = opts.runGangPreemption
			}
			res, err := run(ctx, n, c, label)
			if err != nil {
				res.Error = err.Error()
			}
			rep.Results = append(rep.Results, res)
			opts.progress("%s: %s", label, res.summary())
			if ctx.Err() != nil {
				rep.fillComparisons()
				return rep, ctx.Err()
			}
		}
	}
	rep.fillComparisons()
	return rep, nil
}

// summary is the progress line of a finished result.
func (r Result) summary() string {
	if msg := r.problem(); msg != "" {
		return "FAILED: " + msg
	}
	if r.Preemption != nil {
		return r.preemptionSummary()
	}
	if r.Gang != nil {
		return r.gangSummary()
	}
	if r.GangPreemption != nil {
		return r.gangPreemptionSummary()
	}
	return fmt.Sprintf("%d pods bound, %.1f pods/s, p50 %v, p99 %v, scheduler peak RSS %s MiB, CPU %.1fs",
		r.Bound, r.PodsPerSecond, time.Duration(r.Latency.P50Ns).Round(time.Millisecond),
		time.Duration(r.Latency.P99Ns).Round(time.Millisecond), fmtMiB(r.SchedulerPeakRSSBytes), r.SchedulerCPUSeconds)
}

func (o *Options) progress(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "dra-bench: "+format+"\n", args...)
	}
}

// runOne measures configuration c at n nodes (0: the existing cluster's).
func (o *Options) runOne(ctx context.Context, n int, c Config, label string) (res Result, finalErr error) {
	res = Result{Nodes: n, Config: c, SchedulerFeatureGates: o.SchedulerFeatureGates(c).String()}
	if o.Kubeconfig == "" {
		res.ResourceClaimWorkers = o.controlPlane().ResourceClaimWorkers()
	}
	setupStart := time.Now()
	tgt, err := o.startTarget(ctx)
	if err != nil {
		return res, err
	}
	defer tgt.stop()
	client := tgt.client
	cleanupCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	}

	ns := inProcessNamespace
	if o.Kubeconfig != "" {
		ns = o.Namespace + "-" + string(c)
	}
	if _, err := client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return res, fmt.Errorf("create namespace %s: %w", ns, err)
	}
	if o.Kubeconfig != "" {
		defer func() {
			cctx, cancel := cleanupCtx()
			defer cancel()
			if err := deleteNamespace(cctx, client, ns); err != nil && finalErr == nil {
				finalErr = err
			}
		}()
	}

	if n > 0 {
		cluster := o.forPending(o.forConfig(o.Shape.Cluster(n), c))
		res.Devices = n * o.Shape.DevicesPerNode
		if o.Kubeconfig != "" {
			defer func() {
				cctx, cancel := cleanupCtx()
				defer cancel()
				if err := deleteInventory(cctx, client, cluster, o.Writers); err != nil && finalErr == nil {
					finalErr = err
				}
			}()
		}
		if err := CreateInventory(ctx, client, cluster, o.Writers); err != nil {
			return res, err
		}
	} else {
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return res, fmt.Errorf("list nodes: %w", err)
		}
		n = len(nodes.Items)
		res.Nodes = n
	}
	warmup := make([]string, o.Warmup)
	for i := range warmup {
		warmup[i] = podName("warmup", i)
	}
	pods := make([]string, o.podsFor(n))
	for i := range pods {
		pods[i] = podName("pod", i)
	}
	res.Pods = len(pods)
	if c.HasClaims() {
		if err := createClaims(ctx, client, ns, o.Shape, o.Claims, append(warmup, pods...), o.Writers); err != nil {
			return res, err
		}
	}
	sched, rec, err := o.startRun(ctx, tgt, &res, ns, label, setupStart,
		fmt.Sprintf("%d nodes, %d devices, claims: %s", n, res.Devices, claimsNote(c, o.Claims)))
	if err != nil {
		return res, err
	}
	defer sched.stop()
	defer rec.Stop()
	if err := o.holdCapacity(ctx, client, rec, sched, ns, c, n, label, &res); err != nil {
		return res, err
	}
	if len(warmup) > 0 {
		if err := o.createRunPods(ctx, client, rec, ns, warmup, c); err != nil {
			return res, err
		}
		if err := waitBound(ctx, rec, warmup, sched, o.Timeout, o.Stall, o.Progress, label+" warm-up"); err != nil {
			return res, fmt.Errorf("warm-up: %w", err)
		}
		o.progress("%s: %d warm-up pods bound", label, len(warmup))
	}

	if o.Pending > 0 {
		if err := createBacklog(ctx, client, ns, o.Shape, c, o.PendingReason, o.Pending, o.Writers, o.Timeout); err != nil {
			return res, err
		}
		res.PendingPods, res.PendingReason = o.Pending, o.PendingReason
		o.progress("%s: %d pending pods (%s) in the queue", label, o.Pending, o.PendingReason)
	}

	before, err := sched.usage()
	if err != nil {
		return res, err
	}
	loadBefore, loadErr := currentAPILoad()
	submitStart := time.Now()
	if err := o.createRunPods(ctx, client, rec, ns, pods, c); err != nil {
		return res, err
	}
	res.SubmitNs = int64(time.Since(submitStart))
	o.progress("%s: %d pods created in %v", label, len(pods), time.Since(submitStart).Round(time.Millisecond))
	waitErr := waitBound(ctx, rec, pods, sched, o.Timeout, o.Stall, o.Progress, label)

	res.recordUsage(sched, before)
	if loadErr == nil && o.Kubeconfig == "" {
		if loadAfter, err := settledAPILoad(ctx, currentAPILoad, loadBefore, rec.CountBound(pods)); err == nil {
			res.recordLoad(loadBefore, loadAfter)
		}
	}
	res.WatchRestarts, res.WatchRelists = rec.WatchStats()
	lat, first, last := rec.Samples(pods)
	res.Bound = len(lat)
	res.Latency = Summarize(lat)
	if res.Bound > 0 && last.After(first) {
		span := last.Sub(first)
		res.SpanNs = int64(span)
		res.PodsPerSecond = float64(res.Bound) / span.Seconds()
	}

	cctx, cancel := cleanupCtx()
	defer cancel()
	if res.PendingPods > 0 {
		if err := countBacklog(cctx, client, ns, &res); err != nil {
			return res, errors.Join(waitErr, err)
		}
	}
	_, err = res.recordClaims(cctx, client, ns, waitErr)
	return res, err
}

// createRunPods creates the warm-up or measured pods of names for
// configuration c, on the free nodes with PendingHeld (runSelector).
func (o *Options) createRunPods(ctx context.Context, client kubernetes.Interface, rec *podlatency.Recorder, ns string, names []string, c Config) error {
	return createMadePods(ctx, client, rec, ns, len(names), o.Writers, func(i int) *v1.Pod {
		return makePodOn(names[i], ns, c, o.Claims, o.runSelector())
	})
}

// recordUsage records the scheduler's peak RSS and its CPU time since
// before, unless it has exited.
func (r *Result) recordUsage(sched *child, before usage) {
	if sched.exited() {
		return
	}
	if after, err := sched.usage(); err == nil {
		r.SchedulerPeakRSSBytes = after.peakRSS
		r.SchedulerCPUSeconds = (after.cpu - before.cpu).Seconds()
		r.SchedulerCPUTotalSeconds = after.cpu.Seconds()
	}
}

// recordClaims checks the claims of ns after a run (checkClaims) and
// records them, and, for device-plugin, the units of DevicePluginResource
// its bound pods ask for beyond their node's (checkUnits; they count as
// devices held twice); it returns the check and waitErr, joined with a
// failed check or a device held twice.
func (r *Result) recordClaims(ctx context.Context, client kubernetes.Interface, ns string, waitErr error) (claimCheck, error) {
	check, err := checkClaims(ctx, client, ns)
	if err != nil {
		return check, errors.Join(waitErr, err)
	}
	r.Claims, r.ClaimsAllocated, r.DuplicateDevices = check.claims, check.allocated, check.duplicates
	if check.duplicates > 0 {
		waitErr = errors.Join(waitErr, errors.New(check.example))
	}
	if r.Config == ConfigDevicePlugin && r.Nodes > 0 {
		over, example, err := checkUnits(ctx, client, ns, r.Devices/r.Nodes)
		if err != nil {
			return check, errors.Join(waitErr, err)
		}
		r.DuplicateDevices += over
		if over > 0 {
			waitErr = errors.Join(waitErr, errors.New(example))
		}
	}
	return check, waitErr
}

func claimsNote(c Config, mode ClaimMode) string {
	if c == ConfigDevicePlugin {
		return "none, one " + string(DevicePluginResource) + " per pod"
	}
	if !c.HasClaims() {
		return "none"
	}
	if mode == ClaimsTemplate {
		return "one per pod from ResourceClaimTemplate " + templateName
	}
	return "one pre-created ResourceClaim per pod"
}

// deleteNamespace deletes the pods (without grace), then the namespace,
// and waits until it is gone, so its claims' devices are free again.
func deleteNamespace(ctx context.Context, client kubernetes.Interface, ns string) error {
	err := client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, metav1.ListOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pods in namespace %s: %w", ns, err)
	}
	if err := client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete namespace %s: %w", ns, err)
	}
	err = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("wait for namespace %s to be deleted: %w", ns, err)
	}
	return nil
}
