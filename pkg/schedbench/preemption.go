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
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// The preemption workload (WorkloadPreemption): every node of the shape is
// filled with low-priority pods of one device each (the warm-up, not
// measured), then high-priority preemptors needing PreemptorSizes devices
// are created in a burst. A preemptor binds only once the scheduler has
// evicted low-priority pods for it and a kubelet stand-in (kubelet.go) has
// finished their graceful deletion. Each low-priority pod holds one device,
// so a preemptor of k devices needs exactly k victims: the minimum is the
// sum of the preemptors' devices (MinVictims). With device-plugin, a
// device is a unit of DevicePluginResource: every node has as many units
// as low-priority pods, and a preemptor asks for k units, which stock
// DefaultPreemption frees by evicting k of them.
const (
	// lowPriorityClass and highPriorityClass are the PriorityClasses of
	// the filling pods and of the preemptors.
	lowPriorityClass  = "dra-bench-low"
	highPriorityClass = "dra-bench-high"
	lowPriority       = 100
	highPriority      = 1000
	// lowGroup and preemptorGroup name the pods ("low-<i>",
	// "preemptor-<i>").
	lowGroup       = "low"
	preemptorGroup = "preemptor"
	// victimGracePeriod is the low-priority pods'
	// terminationGracePeriodSeconds: preemption deletes them with it, so
	// they terminate, their claims reserved, until the kubelet stand-in
	// deletes them for good.
	victimGracePeriod = 30
	// devicesLabel holds the number of devices a preemptor needs.
	devicesLabel = "dra-bench.dra-scheduler.io/devices"
	// eventsSettle bounds the wait for the scheduler's Preempted events,
	// which it writes asynchronously, once the preemptors are bound.
	eventsSettle = 10 * time.Second
)

// PreemptorSizes are the device counts of the preemptors, in the order
// PreemptorMix deals them out.
var PreemptorSizes = []int{1, 2, 4, 8}

// DefaultPreemptors is the default number of preemptors on n nodes: one
// per 4 nodes, at least one.
func DefaultPreemptors(n int) int { return max(1, n/4) }

// PreemptorMix returns the devices each of count preemptors needs:
// PreemptorSizes dealt out in turn (so each size gets a quarter), leaving
// out sizes larger than a node's devicesPerNode.
func PreemptorMix(count, devicesPerNode int) []int {
	var sizes []int
	for _, s := range PreemptorSizes {
		if s <= devicesPerNode {
			sizes = append(sizes, s)
		}
	}
	if len(sizes) == 0 {
		return nil
	}
	mix := make([]int, count)
	for i := range mix {
		mix[i] = sizes[i%len(sizes)]
	}
	return mix
}

// MinVictims is the fewest low-priority pods that preemptors of these
// sizes can evict on full nodes: each low-priority pod holds one device,
// so a preemptor needs one victim per device.
func MinVictims(sizes []int) int {
	total := 0
	for _, s := range sizes {
		total += s
	}
	return total
}

// preemptorsFor is the number of preemptors at cluster size n.
func (o *Options) preemptorsFor(n int) int {
	if o.Preemptors > 0 {
		return o.Preemptors
	}
	return DefaultPreemptors(n)
}

// completePreemption checks the options of WorkloadPreemption, after the
// ones every workload has.
func (o *Options) completePreemption() error {
	if err := o.completeOwnPods("it creates PriorityClasses and deletes terminating pods as their kubelet would", "preempts for devices", "the preemptors' count"); err != nil {
		return err
	}
	switch {
	case o.Preemptors < 0:
		return fmt.Errorf("%d preemptors: want at least 1, or 0 for one per 4 nodes", o.Preemptors)
	case PreemptorMix(1, o.Shape.DevicesPerNode) == nil:
		return fmt.Errorf("shape %s has %d devices per node, too few for a preemptor of %d", o.Shape.Name, o.Shape.DevicesPerNode, PreemptorSizes[0])
	}
	for _, n := range o.Sizes {
		if n < 1 {
			return fmt.Errorf("cluster size %d: want at least 1 node", n)
		}
		// With at most one preemptor per node, each finds a node that no
		// other preemptor holds, whatever the scheduler chose before.
		if p := o.preemptorsFor(n); p > n {
			return fmt.Errorf("%d preemptors on %d nodes: at most one per node, so that each fits on a node after evicting", p, n)
		}
	}
	return nil
}

// preemptionTemplate is the name of the ResourceClaimTemplate of claims
// for devices devices of the shape.
func preemptionTemplate(devices int) string { return "dra-bench-devices-" + strconv.Itoa(devices) }

// makePriorityPod returns pod name of configuration c and priority class
// class, whose claim asks for devices devices: from the template of that
// count or, with pre-created claims (mode ClaimsPerPod), the claim named
// after the pod (createPreemptionObjects creates both); with
// device-plugin, it asks for devices units of DevicePluginResource
// instead.
func makePriorityPod(name, namespace string, c Config, mode ClaimMode, class string, devices int) *v1.Pod {
	pod := makePod(name, namespace, c, mode)
	pod.Labels[devicesLabel] = strconv.Itoa(devices)
	pod.Spec.PriorityClassName = class
	if c == ConfigDevicePlugin {
		setDeviceUnits(pod, devices)
		return pod
	}
	if mode == ClaimsTemplate {
		pod.Spec.ResourceClaims[0].ResourceClaimTemplateName = ptr.To(preemptionTemplate(devices))
	}
	return pod
}

// makeLowPod returns a low-priority pod of configuration c of one device
// that terminates gracefully when deleted.
func makeLowPod(name, namespace string, c Config, mode ClaimMode) *v1.Pod {
	pod := makePriorityPod(name, namespace, c, mode, lowPriorityClass, 1)
	pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](victimGracePeriod)
	return pod
}

// preemptionPods names the pods of a run: the low-priority ones, of one
// device each, and the preemptors, preemptors[i] of sizes[i] devices.
type preemptionPods struct {
	lows, preemptors []string
	sizes            []int
}

// devices returns the name and device count of pod i of all the run's
// pods, the low-priority ones first.
func (p preemptionPods) devices(i int) (string, int) {
	if i < len(p.lows) {
		return p.lows[i], 1
	}
	return p.preemptors[i-len(p.lows)], p.sizes[i-len(p.lows)]
}

// createPreemptionObjects creates the two PriorityClasses and, for a
// configuration with claims, what its pods' claims come from: a claim
// template per device count of the preemptors and for the low-priority
// pods' one, or, with pre-created claims (mode ClaimsPerPod), each pod's
// own claim, created by workers writers.
func createPreemptionObjects(ctx context.Context, client kubernetes.Interface, namespace string, s Shape, c Config, mode ClaimMode, pods preemptionPods, workers int) error {
	if err := createPriorityClasses(ctx, client); err != nil {
		return err
	}
	switch {
	case !c.HasClaims():
		return nil
	case mode == ClaimsPerPod:
		return Parallel(ctx, len(pods.lows)+len(pods.preemptors), workers, func(ctx context.Context, i int) error {
			name, devices := pods.devices(i)
			return createClaim(ctx, client, namespace, name, preemptionClaimSpec(s, devices))
		})
	}
	counts := append([]int{1}, pods.sizes...)
	slices.Sort(counts)
	for _, devices := range slices.Compact(counts) {
		if err := createTemplate(ctx, client, namespace, preemptionTemplate(devices), preemptionClaimSpec(s, devices)); err != nil {
			return err
		}
	}
	return nil
}

// createPriorityClasses creates the PriorityClasses of the low-priority
// pods and of the pods that preempt them.
func createPriorityClasses(ctx context.Context, client kubernetes.Interface) error {
	for name, value := range map[string]int32{lowPriorityClass: lowPriority, highPriorityClass: highPriority} {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
		if _, err := client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create PriorityClass %s: %w", name, err)
		}
	}
	return nil
}

// preemptionClaimSpec is the spec of a claim for devices devices of the
// shape.
func preemptionClaimSpec(s Shape, devices int) resourceapi.ResourceClaimSpec {
	spec := claimSpec(s)
	spec.Devices.Requests[0].Exactly.Count = int64(devices)
	return spec
}

// runPreemption measures WorkloadPreemption for configuration c at n nodes
// on a fresh in-process control plane.
func (o *Options) runPreemption(ctx context.Context, n int, c Config, label string) (res Result, finalErr error) {
	res = Result{Nodes: n, Config: c, SchedulerFeatureGates: o.SchedulerFeatureGates(c).String(),
		ResourceClaimWorkers: o.controlPlane().ResourceClaimWorkers()}
	sizes := PreemptorMix(o.preemptorsFor(n), o.Shape.DevicesPerNode)
	lows := make([]string, n*o.Shape.DevicesPerNode)
	for i := range lows {
		lows[i] = podName(lowGroup, i)
	}
	preemptors := make([]string, len(sizes))
	for i := range preemptors {
		preemptors[i] = podName(preemptorGroup, i)
	}
	pods := preemptionPods{lows: lows, preemptors: preemptors, sizes: sizes}
	res.Pods = len(preemptors)
	res.Preemption = &PreemptionResult{LowPods: len(lows), MinVictims: MinVictims(sizes)}

	setupStart := time.Now()
	tgt, _, err := o.startInProcess(ctx, n, &res)
	if err != nil {
		return res, err
	}
	defer tgt.stop()
	client, ns := tgt.client, inProcessNamespace
	if err := createPreemptionObjects(ctx, client, ns, o.Shape, c, o.Claims, pods, o.Writers); err != nil {
		return res, err
	}
	sched, rec, err := o.startRun(ctx, tgt, &res, ns, label, setupStart, fmt.Sprintf("%d nodes, %d devices", n, res.Devices))
	if err != nil {
		return res, err
	}
	defer sched.stop()
	defer rec.Stop()
	kubelet, err := startKubeletStandIn(ctx, client, ns)
	if err != nil {
		return res, err
	}
	defer func() {
		if err := kubelet.stop(); err != nil && finalErr == nil {
			finalErr = err
		}
	}()

	fillStart := time.Now()
	if err := o.fillPods(ctx, client, rec, sched, ns, lows, func(i int) *v1.Pod { return makeLowPod(lows[i], ns, c, o.Claims) }, label); err != nil {
		return res, fmt.Errorf("fill the nodes with low-priority pods: %w", err)
	}
	o.progress("%s: %d low-priority pods fill every device, in %v", label, len(lows), time.Since(fillStart).Round(time.Millisecond))

	before, err := sched.usage()
	if err != nil {
		return res, err
	}
	loadBefore, loadErr := currentAPILoad()
	submitStart := time.Now()
	if err := createMadePods(ctx, client, rec, ns, len(preemptors), o.Writers, func(i int) *v1.Pod {
		return makePriorityPod(preemptors[i], ns, c, o.Claims, highPriorityClass, sizes[i])
	}); err != nil {
		return res, err
	}
	res.SubmitNs = int64(time.Since(submitStart))
	o.progress("%s: %d preemptors created (%d devices in all) in %v", label, len(preemptors), res.Preemption.MinVictims, time.Since(submitStart).Round(time.Millisecond))
	waitErr := waitBound(ctx, rec, preemptors, sched, o.PreemptionTimeout, o.PreemptionTimeout, o.Progress, label)
	if errors.Is(waitErr, errTimedOut) || errors.Is(waitErr, errStalled) {
		// Not a failure of the run: Bound says how many made it (in-tree's
		// plugin cannot preempt for devices), and Failed judges it.
		o.progress("%s: %v", label, waitErr)
		waitErr = nil
	}
	o.progress("%s: %d of %d preemptors bound; the kubelet stand-in ended %d graceful deletions", label, rec.CountBound(preemptors), len(preemptors), kubelet.deleted.Load())
	res.recordUsage(sched, before)
	if loadErr == nil {
		if loadAfter, err := settledAPILoad(ctx, currentAPILoad, loadBefore, rec.CountBound(preemptors)); err == nil {
			res.recordLoad(loadBefore, loadAfter)
		}
	}
	res.WatchRestarts, res.WatchRelists = rec.WatchStats()
	lat, first, last := rec.Samples(preemptors)
	res.Bound, res.Latency = len(lat), Summarize(lat)
	if res.Bound > 0 && last.After(first) {
		res.SpanNs = int64(last.Sub(first))
	}

	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := o.countVictims(cctx, client, ns, rec, preemptors, sizes, res.Preemption); err != nil {
		return res, errors.Join(waitErr, err)
	}
	_, err = res.recordClaims(cctx, client, ns, waitErr)
	return res, err
}

// countVictims fills p's victims, overall and per preemptor size, and the
// preemptors' latency per size. A victim is a low-priority pod that is
// gone or terminating; the scheduler's Preempted event on it names its
// preemptor (victims whose event is missing are unattributed).
func (o *Options) countVictims(ctx context.Context, client kubernetes.Interface, ns string, rec *podlatency.Recorder, preemptors []string, sizes []int, p *PreemptionResult) error {
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list the pods in %s: %w", ns, err)
	}
	staying := 0
	devicesOf := map[string]int{} // preemptor UID → devices
	for _, pod := range pods.Items {
		switch {
		case pod.Spec.PriorityClassName == lowPriorityClass && pod.DeletionTimestamp == nil:
			staying++
		case pod.Spec.PriorityClassName == highPriorityClass:
			devicesOf[string(pod.UID)], _ = strconv.Atoi(pod.Labels[devicesLabel])
		}
	}
	p.Victims = p.LowPods - staying

	byDevices := map[int]int{} // devices → victims
	attributed := 0
	if p.Victims > 0 {
		deadline := time.Now().Add(eventsSettle)
		for {
			byDevices, attributed, err = victimsByPreemptor(ctx, client, ns, devicesOf)
			if err != nil || attributed >= p.Victims || time.Now().After(deadline) {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		if err != nil {
			return err
		}
	}
	p.UnattributedVictims = max(0, p.Victims-attributed)

	p.Sizes = nil
	for _, devices := range PreemptorSizes {
		var names []string
		for i, s := range sizes {
			if s == devices {
				names = append(names, preemptors[i])
			}
		}
		if len(names) == 0 {
			continue
		}
		lat, _, _ := rec.Samples(names)
		p.Sizes = append(p.Sizes, PreemptorSize{Devices: devices, Preemptors: len(names), Bound: len(lat),
			Victims: byDevices[devices], MinVictims: devices * len(names), Latency: Summarize(lat)})
	}
	return nil
}

// victimsByPreemptor counts the distinct victims of the scheduler's
// Preempted events in ns by the devices of their preemptor (devicesOf, by
// UID); attributed is their sum.
func victimsByPreemptor(ctx context.Context, client kubernetes.Interface, ns string, devicesOf map[string]int) (byDevices map[int]int, attributed int, _ error) {
	events, err := client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, 0, fmt.Errorf("list the events in %s: %w", ns, err)
	}
	byDevices = map[int]int{}
	seen := map[string]bool{}
	for _, ev := range events.Items {
		if ev.Reason != "Preempted" || seen[string(ev.Regarding.UID)] {
			continue
		}
		uid := preemptorUID(ev.Note)
		if ev.Related != nil {
			uid = string(ev.Related.UID)
		}
		devices, ok := devicesOf[uid]
		if !ok {
			continue
		}
		seen[string(ev.Regarding.UID)] = true
		byDevices[devices]++
		attributed++
	}
	return byDevices, attributed, nil
}

// preemptorUID returns the preemptor's UID from the note of kube-scheduler's
// Preempted event ("Preempted by pod <uid> on node <node>"), or "". The
// event is recorded with the preemptor as its related object too, but
// the stored event may lack it (it does on the in-process control plane).
func preemptorUID(note string) string {
	f := strings.Fields(note)
	if len(f) < 4 || f[0] != "Preempted" || f[1] != "by" {
		return ""
	}
	return f[3]
}
