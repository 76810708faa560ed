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
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// The gang preemption workload (WorkloadGangPreemption, issue 55): nodes
// in racks of RackSize (RackLabel), every rack filled with low-priority
// pods of one device to RackOccupancyPercent (the layout,
// gang_preemption_layout.go), each pod on its node by its hostname
// label; then high-priority gangs of GangSizes pods, each a PodGroup
// with a topology constraint on RackLabel whose pods ask for one whole
// device (a claim from the template; device-plugin: one unit of
// DevicePluginResource), created one after the other: each gang is
// waited for until bound or GangTimeout, so that its fewest victims
// (MinGangVictims over the layout read from the API just before it) is
// well defined. A gang still pending then is deleted, so that the next
// one is measured alone. The kubelet stand-in ends the victims' graceful
// deletions.
const (
	// lowRackGroup names the low-priority pods ("rack-low-<i>").
	lowRackGroup = "rack-low"
	// terminatingSettle bounds the wait, between two gangs, for the
	// victims and deleted pods to be gone.
	terminatingSettle = time.Minute
)

// gangPreemptionSizes is the size of every gang of a run: GangSizes dealt
// out to Gangs gangs, two of each size by default.
func (o *Options) gangPreemptionSizes() []int {
	gangs := o.Gangs
	if gangs == 0 {
		gangs = 2 * len(o.GangSizes)
	}
	return GangSizeMix(gangs, o.GangSizes)
}

// completeGangPreemption checks the options of WorkloadGangPreemption,
// after the ones every workload has, and defaults its racks and sizes.
func (o *Options) completeGangPreemption() error {
	if err := o.completeOwnPods("it turns GenericWorkload on, creates PriorityClasses and deletes terminating pods as their kubelet would", "preempts for devices", "the gangs and their sizes"); err != nil {
		return err
	}
	if o.Claims != ClaimsTemplate {
		return fmt.Errorf("the %s workload's pods get their claims from templates, not claims mode %q", o.Workload, o.Claims)
	}
	if len(o.GangSizes) == 0 {
		o.GangSizes = DefaultGangPreemptionSizes()
	}
	if o.RackSize == 0 {
		o.RackSize = DefaultRackSize
	}
	switch o.GangPlacement {
	case "", GangOwnNode, GangRack:
		// Own-node is the default of the other gang workload.
		o.GangPlacement = GangRack
	default:
		return fmt.Errorf("the %s workload's gangs go to one rack each, not gang placement %q", o.Workload, o.GangPlacement)
	}
	switch {
	case o.RackSize < 0:
		return fmt.Errorf("rack size %d: want at least 1 node", o.RackSize)
	case o.Gangs < 0:
		return fmt.Errorf("%d gangs: want at least 1, or 0 for two of each size", o.Gangs)
	}
	for _, s := range o.GangSizes {
		if s < 2 {
			return fmt.Errorf("gang size %d: want at least 2 pods", s)
		}
	}
	largest := slices.Max(o.GangSizes)
	for _, n := range o.Sizes {
		if n < 1 {
			return fmt.Errorf("cluster size %d: want at least 1 node", n)
		}
		if have := min(n, o.RackSize) * o.Shape.DevicesPerNode; largest > have {
			return fmt.Errorf("gangs of %d on %d nodes in racks of %d of shape %s: a rack has at most %d devices", largest, n, o.RackSize, o.Shape.Name, have)
		}
	}
	return nil
}

// makeRackLowPod returns low-priority pod name of configuration c on
// node, of one device, that terminates gracefully when deleted.
func makeRackLowPod(name, namespace string, c Config, node string) *v1.Pod {
	pod := makeRackFiller(name, namespace, c, node)
	pod.Spec.PriorityClassName = lowPriorityClass
	pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](victimGracePeriod)
	return pod
}

// lowPodNodes are the nodes of the low-priority pods of cluster (racks
// of rackSize) for the layout racks: one entry per pod.
func lowPodNodes(cluster inventorygen.Cluster, racks []RackLayout, rackSize int) []string {
	var nodes []string
	for r, rack := range racks {
		first := r * rackSize
		for i, count := range LowPodsPerNode(rack, rackNodes(r, len(cluster.Nodes), rackSize)) {
			for range count {
				nodes = append(nodes, cluster.Nodes[first+i].Name)
			}
		}
	}
	return nodes
}

// runGangPreemption measures WorkloadGangPreemption for configuration c
// at n nodes on a fresh in-process control plane.
func (o *Options) runGangPreemption(ctx context.Context, n int, c Config, label string) (res Result, finalErr error) {
	res = Result{Nodes: n, Config: c, SchedulerFeatureGates: o.SchedulerFeatureGates(c).String(),
		ResourceClaimWorkers: o.controlPlane().ResourceClaimWorkers()}
	sizes := o.gangPreemptionSizes()
	members := mixedGangMembers(sizes)
	res.Pods = len(slices.Concat(members...))
	layout := InitialRackLayout(n, o.RackSize, o.Shape.DevicesPerNode)
	gp := &GangPreemptionResult{RackSize: o.RackSize, Racks: len(layout)}
	res.GangPreemption = gp

	setupStart := time.Now()
	tgt, cluster, err := o.startInProcess(ctx, n, &res)
	if err != nil {
		return res, err
	}
	defer tgt.stop()
	client, ns := tgt.client, inProcessNamespace
	if err := createPriorityClasses(ctx, client); err != nil {
		return res, err
	}
	if err := o.createGangObjects(ctx, client, ns, c, members, highPriorityClass); err != nil {
		return res, err
	}
	sched, rec, err := o.startRun(ctx, tgt, &res, ns, label, setupStart,
		fmt.Sprintf("%d nodes, %d devices, %d racks of %d, %d gangs of %v", n, res.Devices, len(layout), o.RackSize, len(sizes), o.GangSizes))
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

	nodes := lowPodNodes(cluster, layout, o.RackSize)
	lows := make([]string, len(nodes))
	for i := range lows {
		lows[i] = podName(lowRackGroup, i)
	}
	fillStart := time.Now()
	if err := o.fillPods(ctx, client, rec, sched, ns, lows, func(i int) *v1.Pod { return makeRackLowPod(lows[i], ns, c, nodes[i]) }, label); err != nil {
		return res, fmt.Errorf("fill the racks with low-priority pods: %w", err)
	}
	gp.LowPods = len(lows)
	o.progress("%s: %d low-priority pods fill %d racks to 80-100%%, in %v", label, len(lows), len(layout), time.Since(fillStart).Round(time.Millisecond))

	rackOf := make(map[string]int, len(cluster.Nodes))
	for i, node := range cluster.Nodes {
		rackOf[node.Name] = i / o.RackSize
	}
	start, err := sched.usage()
	if err != nil {
		return res, err
	}
	var waitErr error
	for g, pods := range members {
		gang, err := o.runOneGang(ctx, client, rec, sched, ns, c, g, pods, rackOf, layout, gp, label)
		gp.Gangs = append(gp.Gangs, gang)
		if err != nil {
			waitErr = err
			break
		}
	}
	// The last gang's victims: the low-priority pods gone since it was
	// created, counted once its pods and victims have settled.
	if _, err := settleGang(ctx, client, ns, rackOf, layout, gp); err != nil {
		waitErr = errors.Join(waitErr, err)
	}
	res.recordUsage(sched, start)
	res.WatchRestarts, res.WatchRelists = rec.WatchStats()
	all := slices.Concat(members...)
	lat, first, last := rec.Samples(all)
	res.Bound, res.Latency = len(lat), Summarize(lat)
	if res.Bound > 0 && last.After(first) {
		res.SpanNs = int64(last.Sub(first))
	}
	gp.total()
	if err := attributeGangVictims(ctx, client, ns, gp); err != nil {
		waitErr = errors.Join(waitErr, err)
	}
	o.progress("%s: %d of %d gangs bound, %d victims (minimum %d)", label, gp.Bound, len(gp.Gangs), gp.Victims, gp.MinVictims)

	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	_, err = res.recordClaims(cctx, client, ns, waitErr)
	return res, err
}

// runOneGang measures gang g (its pods' names): it settles the gangs of
// gp before it (settleGang), which reads the layout, computes the gang's
// fewest victims, creates its pods and waits until they are bound or
// GangTimeout passes, then deletes them if they are not all bound. The
// gang's victims are counted when the next gang starts, or at the end.
func (o *Options) runOneGang(ctx context.Context, client kubernetes.Interface, rec *podlatency.Recorder, sched *child, ns string, c Config, g int, pods []string,
	rackOf map[string]int, layout []RackLayout, gp *GangPreemptionResult, label string) (PreemptingGang, error) {
	gang := PreemptingGang{Name: podName(gangGroup, g), Size: len(pods), Rack: "-", members: pods}
	now, err := settleGang(ctx, client, ns, rackOf, layout, gp)
	if err != nil {
		return gang, err
	}
	gang.lowBefore = now.lowStaying
	var at []int
	gang.MinVictims, at, gang.Fits = MinGangVictims(now.racks, len(pods))
	gang.RacksAtMinimum = len(at)

	before, err := sched.usage()
	if err != nil {
		return gang, err
	}
	cyclesBefore, err := readCycles(ctx, sched)
	if err != nil {
		return gang, err
	}
	if err := createMadePods(ctx, client, rec, ns, len(pods), o.Writers, func(i int) *v1.Pod {
		pod := makeGangPod(pods[i], ns, c, gang.Name, o.gangTemplate(), "")
		pod.Spec.PriorityClassName = highPriorityClass
		return pod
	}); err != nil {
		return gang, err
	}
	waitErr := waitBound(ctx, rec, pods, sched, o.GangTimeout, o.GangTimeout, nil, label)
	if errors.Is(waitErr, errTimedOut) || errors.Is(waitErr, errStalled) {
		// Not a failure of the run: the gang's result says it stayed
		// pending, and Failed judges it.
		gang.TimedOut, waitErr = true, nil
		settleGangs(ctx, rec, [][]string{pods})
	}
	if waitErr != nil {
		return gang, waitErr
	}
	if after, err := sched.usage(); err == nil {
		gang.SchedulerCPUSeconds = (after.cpu - before.cpu).Seconds()
	}
	cyclesAfter, err := readCycles(ctx, sched)
	if err != nil {
		return gang, err
	}
	cy := cyclesAfter.minus(cyclesBefore)
	gang.Cycles, gang.Placements, gang.FeasiblePlacements = int64(cy.groups), int64(cy.placements), int64(cy.feasiblePlacements)
	lat, _, _ := rec.Samples(pods)
	gang.BoundPods, gang.Latency = len(lat), Summarize(lat)
	gang.Bound = gang.BoundPods == len(pods)
	o.progress("%s: gang %d of %d pods: %s, minimum %d victims (%s), CPU %.2fs, p99 %s", label, g, len(pods),
		gang.state(), gang.MinVictims, fitsNote(gang), gang.SchedulerCPUSeconds, fmtNs(gang.Latency.P99Ns, gang.BoundPods))
	if !gang.Bound {
		// Measure the next gang alone: a gang left pending would take
		// the devices of its victims, and be tried beside it.
		if err := deleteGang(ctx, client, ns, pods); err != nil {
			return gang, err
		}
	}
	return gang, nil
}

// fitsNote says where a gang fits for a progress line.
func fitsNote(g PreemptingGang) string {
	if !g.Fits {
		return "no rack holds it"
	}
	return fmt.Sprintf("in %d racks", g.RacksAtMinimum)
}

// deleteGang deletes the pods of a gang left pending, without grace.
func deleteGang(ctx context.Context, client kubernetes.Interface, ns string, pods []string) error {
	return Parallel(ctx, len(pods), 8, func(ctx context.Context, i int) error {
		err := client.CoreV1().Pods(ns).Delete(ctx, pods[i], metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete pending gang pod %s/%s: %w", ns, pods[i], err)
		}
		return nil
	})
}
