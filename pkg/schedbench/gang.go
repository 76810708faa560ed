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
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// The gang workload (WorkloadGang, issue 32): gangs of GangSize pods, each
// a PodGroup whose gang policy's minCount is its size, whose pods have one
// claim each from a template that prefers a whole device of the shape and
// falls back to a part of one (firstAvailable; h100-mig: a whole H100,
// else a 3g.40gb MIG device, half of one). With GangOwnNode each gang's
// pods select a node of their own, whose parts hold the gang only if
// most of its pods take parts: pod by pod, the first pods take whole
// devices and strand their siblings (kubernetes/kubernetes#138765), and
// the gang never runs; planned jointly, every gang is placed. With
// GangAnyNode the gangs go anywhere and compete for the cluster's
// devices. The PodGroups and the template are created with the set-up,
// then every gang's pods in a burst; the run ends when every gang is
// placed or after GangTimeout (gangs still pending are reported, not an
// error).
const (
	// DefaultGangSize is the pods of a gang unless Options.GangSize says
	// otherwise.
	DefaultGangSize = 8
	// gangGroup names the PodGroups ("gang-<g>") and their pods
	// ("gang-<g>-<i>").
	gangGroup = "gang"
	// gangTemplateName is the template of every gang pod's claim, whose
	// request has the subrequests wholeSubrequest and partSubrequest.
	gangTemplateName = "dra-bench-whole-else-part"
	wholeSubrequest  = "whole"
	partSubrequest   = "part"
	// gangSettle bounds the wait, after the run, for gangs whose pods
	// are being bound, so that a gang bound at the end is not counted as
	// partly bound.
	gangSettle = 10 * time.Second
	// metricsPaths are the scheduler paths any client may read: the
	// defaults and /metrics, which the gang workload scrapes.
	metricsPaths = "/healthz,/readyz,/livez,/metrics"
)

// GangPlacement says where a gang's pods may go.
type GangPlacement string

const (
	// GangOwnNode: each gang's pods select a node of their own (by its
	// hostname label), one gang per node.
	GangOwnNode GangPlacement = "own-node"
	// GangAnyNode: the pods may go to any node; the gangs compete for the
	// cluster's devices.
	GangAnyNode GangPlacement = "any"
	// GangRack: each gang's pods go to one rack of nodes (a PodGroup
	// topology constraint on RackLabel; see gang_racks.go).
	GangRack GangPlacement = "rack"
)

// ParseGangPlacement returns the placement of that name.
func ParseGangPlacement(name string) (GangPlacement, error) {
	switch p := GangPlacement(name); p {
	case GangOwnNode, GangAnyNode, GangRack:
		return p, nil
	}
	return "", fmt.Errorf("unknown gang placement %q (want %s, %s or %s)", name, GangOwnNode, GangAnyNode, GangRack)
}

// workloadFeatureGates are the gates the workload's objects need: on in
// the in-process control plane and in every scheduler. Gangs in racks
// turn topology-aware workload scheduling on, with or without their
// constraint, so that the two differ in the constraint only.
func (o *Options) workloadFeatureGates() FeatureGates {
	switch {
	case o.Workload == WorkloadGangPreemption:
		return FeatureGates{string(features.GenericWorkload): true, string(features.TopologyAwareWorkloadScheduling): true}
	case o.Workload != WorkloadGang:
		return nil
	case o.GangPlacement == GangRack || o.RackSize > 0:
		return FeatureGates{string(features.GenericWorkload): true, string(features.TopologyAwareWorkloadScheduling): true}
	}
	return FeatureGates{string(features.GenericWorkload): true}
}

// hasGangs says whether the workload's pods are in PodGroups.
func (o *Options) hasGangs() bool {
	return o.Workload == WorkloadGang || o.Workload == WorkloadGangPreemption
}

// workloadAPIServerFlags are the in-process kube-apiserver's flags the
// workload needs: the gang workloads' PodGroups are served by
// scheduling.k8s.io/v1beta1, off by default.
func (o *Options) workloadAPIServerFlags() []string {
	if o.hasGangs() {
		return []string{"--runtime-config=scheduling.k8s.io/v1beta1=true"}
	}
	return nil
}

// workloadSchedulerFlags are the scheduler flags the workload needs: the
// gang workloads read the scheduler's pod-group cycles from /metrics.
func (o *Options) workloadSchedulerFlags() []string {
	if o.hasGangs() {
		return []string{"--authorization-always-allow-paths=" + metricsPaths}
	}
	return nil
}

// partsPerNode is how many parts of the shape's devices a node holds.
func (o *Options) partsPerNode() int {
	return o.Shape.DevicesPerNode * o.Shape.Partition.PerDevice
}

// gangsFor is the number of gangs at cluster size n: Gangs, or as many
// as the nodes' parts hold (one per node with GangOwnNode, one per free
// rack in racks).
func (o *Options) gangsFor(n int) int {
	switch {
	case o.Gangs > 0:
		return o.Gangs
	case o.GangPlacement == GangOwnNode:
		return n
	case o.racked():
		return o.freeRacks(n)
	}
	return n * o.partsPerNode() / o.GangSize
}

// completeGang checks the options of WorkloadGang, after the ones every
// workload has.
func (o *Options) completeGang() error {
	var withParts []string
	for _, s := range Shapes() {
		if s.Partition != nil {
			withParts = append(withParts, s.Name)
		}
	}
	if err := o.completeOwnPods("it turns GenericWorkload on and serves scheduling.k8s.io/v1beta1", "plans devices", "the gangs and their size"); err != nil {
		return err
	}
	if o.Claims != ClaimsTemplate {
		return fmt.Errorf("the %s workload's pods get their claims from templates, not claims mode %q", o.Workload, o.Claims)
	}
	if _, err := ParseGangPlacement(string(o.GangPlacement)); err != nil {
		return err
	}
	switch {
	case o.GangSize < 2:
		return fmt.Errorf("gang size %d: want at least 2 pods", o.GangSize)
	case o.Gangs < 0:
		return fmt.Errorf("%d gangs: want at least 1, or 0 for as many as the cluster holds", o.Gangs)
	}
	if err := o.completeRacks(); err != nil {
		return err
	}
	switch {
	case o.racked():
		return nil // whole devices of any shape; completeRacks checked the sizes
	case slices.Contains(o.Configs, ConfigDevicePlugin):
		return fmt.Errorf("the gang workload's pods prefer a whole device and fall back to a part of one (firstAvailable), which an extended resource cannot express: configuration %q runs gangs of whole devices only, in racks (--gang-placement %s, or %s with --rack-size)", ConfigDevicePlugin, GangRack, GangAnyNode)
	case o.Shape.Partition == nil:
		return fmt.Errorf("shape %s announces no parts of its devices for a gang's pods to fall back to (want one of %s)", o.Shape.Name, strings.Join(withParts, ", "))
	}
	perNode, parts := o.Shape.DevicesPerNode, o.partsPerNode()
	if o.GangPlacement == GangOwnNode && (o.GangSize <= perNode || o.GangSize > parts) {
		return fmt.Errorf("gangs of %d on nodes of their own: a node of shape %s has %d devices in %d parts; want more pods than devices (else every pod gets a whole one) and at most as many as parts (else the gang never fits): %d to %d",
			o.GangSize, o.Shape.Name, perNode, parts, perNode+1, parts)
	}
	for _, n := range o.Sizes {
		if n < 1 {
			return fmt.Errorf("cluster size %d: want at least 1 node", n)
		}
		gangs := o.gangsFor(n)
		switch {
		case gangs < 1:
			return fmt.Errorf("%d nodes hold %d parts of devices, too few for a gang of %d", n, n*parts, o.GangSize)
		case o.GangPlacement == GangOwnNode && gangs > n:
			return fmt.Errorf("%d gangs on %d nodes of their own: at most one per node", gangs, n)
		case gangs*o.GangSize > n*parts:
			return fmt.Errorf("%d gangs of %d pods on %d nodes: more pods than the %d parts of their devices", gangs, o.GangSize, n, n*parts)
		}
	}
	return nil
}

// gangClaimSpec is a gang pod's claim: one device of the shape's class,
// else one part (firstAvailable).
func gangClaimSpec(s Shape) resourceapi.ResourceClaimSpec {
	sub := func(name, class string, selectors []string) resourceapi.DeviceSubRequest {
		return resourceapi.DeviceSubRequest{Name: name, DeviceClassName: class, Selectors: celSelectors(selectors),
			AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}
	}
	return resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
		Requests: []resourceapi.DeviceRequest{{Name: requestName, FirstAvailable: []resourceapi.DeviceSubRequest{
			sub(wholeSubrequest, s.Class, s.Selectors),
			sub(partSubrequest, s.Partition.Class, s.Partition.Selectors),
		}}},
	}}
}

// gangMembers names the pods of gangs gangs of size pods, by gang.
func gangMembers(gangs, size int) [][]string {
	sizes := make([]int, gangs)
	for g := range sizes {
		sizes[g] = size
	}
	return mixedGangMembers(sizes)
}

// mixedGangMembers names the pods of gangs of sizes[g] pods, by gang.
func mixedGangMembers(sizes []int) [][]string {
	members := make([][]string, len(sizes))
	for g, size := range sizes {
		for i := range size {
			members[g] = append(members[g], podName(podName(gangGroup, g), i))
		}
	}
	return members
}

// gangTemplate is the claim template of a gang pod: whole devices in
// racks, else a whole device or a part.
func (o *Options) gangTemplate() string {
	if o.racked() {
		return templateName
	}
	return gangTemplateName
}

// createGangObjects creates, for a configuration c with claims, the claim
// template, and a gang PodGroup per gang, its minCount the gang's size,
// with the gangs' constraints and priorityClass (its pods' too; "" for
// none).
func (o *Options) createGangObjects(ctx context.Context, client kubernetes.Interface, namespace string, c Config, members [][]string, priorityClass string) error {
	spec := claimSpec(o.Shape)
	if !o.racked() {
		spec = gangClaimSpec(o.Shape) // the shape has parts (completeGang)
	}
	if c.HasClaims() {
		if err := createTemplate(ctx, client, namespace, o.gangTemplate(), spec); err != nil {
			return err
		}
	}
	return Parallel(ctx, len(members), o.Writers, func(ctx context.Context, g int) error {
		group := &schedulingapi.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Name: podName(gangGroup, g), Namespace: namespace},
			Spec: schedulingapi.PodGroupSpec{
				SchedulingPolicy: schedulingapi.PodGroupSchedulingPolicy{
					Gang: &schedulingapi.GangSchedulingPolicy{MinCount: int32(len(members[g]))},
				},
				SchedulingConstraints: o.gangConstraints(),
				PriorityClassName:     priorityClass,
			},
		}
		if _, err := client.SchedulingV1beta1().PodGroups(namespace).Create(ctx, group, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create PodGroup %s/%s: %w", namespace, group.Name, err)
		}
		return nil
	})
}

// makeGangPod returns pod name of configuration c and PodGroup group, its
// claim from template (device-plugin: one unit of DevicePluginResource),
// on node when it is not empty.
func makeGangPod(name, namespace string, c Config, group, template, node string) *v1.Pod {
	pod := makePod(name, namespace, c, ClaimsTemplate)
	if c.HasClaims() {
		pod.Spec.ResourceClaims[0].ResourceClaimTemplateName = ptr.To(template)
	}
	pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
	if node != "" {
		pod.Spec.NodeSelector = map[string]string{v1.LabelHostname: node}
	}
	return pod
}

// runGang measures WorkloadGang for configuration c at n nodes on a
// fresh in-process control plane.
func (o *Options) runGang(ctx context.Context, n int, c Config, label string) (res Result, finalErr error) {
	res = Result{Nodes: n, Config: c, SchedulerFeatureGates: o.SchedulerFeatureGates(c).String(),
		ResourceClaimWorkers: o.controlPlane().ResourceClaimWorkers()}
	members := gangMembers(o.gangsFor(n), o.GangSize)
	all := slices.Concat(members...)
	res.Pods = len(all)
	res.Gang = &GangResult{Placement: o.GangPlacement, GangSize: o.GangSize, Gangs: len(members)}
	if o.racked() {
		res.Gang.RackSize, res.Gang.Racks = o.RackSize, o.racks(n)
	} else {
		res.Gang.Part = o.Shape.Partition.Name
	}

	setupStart := time.Now()
	tgt, cluster, err := o.startInProcess(ctx, n, &res)
	if err != nil {
		return res, err
	}
	defer tgt.stop()
	client, ns := tgt.client, inProcessNamespace
	if err := o.createGangObjects(ctx, client, ns, c, members, ""); err != nil {
		return res, err
	}
	sched, rec, err := o.startRun(ctx, tgt, &res, ns, label, setupStart,
		fmt.Sprintf("%d nodes, %d devices, %d gangs of %d, placement %s", n, res.Devices, len(members), o.GangSize, o.GangPlacement))
	if err != nil {
		return res, err
	}
	defer sched.stop()
	defer rec.Stop()
	if err := o.fillRacks(ctx, client, rec, sched, ns, c, cluster, label, res.Gang); err != nil {
		return res, err
	}

	before, err := sched.usage()
	if err != nil {
		return res, err
	}
	cyclesBefore, err := readCycles(ctx, sched)
	if err != nil {
		return res, err
	}
	submitStart := time.Now()
	if err := createMadePods(ctx, client, rec, ns, len(all), o.Writers, func(i int) *v1.Pod {
		g := i / o.GangSize
		node := ""
		if o.GangPlacement == GangOwnNode {
			node = cluster.Nodes[g].Name
		}
		return makeGangPod(all[i], ns, c, podName(gangGroup, g), o.gangTemplate(), node)
	}); err != nil {
		return res, err
	}
	res.SubmitNs = int64(time.Since(submitStart))
	o.progress("%s: %d pods of %d gangs created in %v", label, len(all), len(members), time.Since(submitStart).Round(time.Millisecond))
	waitErr := waitBound(ctx, rec, all, sched, o.GangTimeout, o.GangTimeout, o.Progress, label)
	if errors.Is(waitErr, errTimedOut) || errors.Is(waitErr, errStalled) {
		// Not a failure of the run: the gangs placed say how many made
		// it, and Failed judges it.
		o.progress("%s: %v", label, waitErr)
		waitErr = nil
		settleGangs(ctx, rec, members)
	}
	res.recordUsage(sched, before)
	res.Gang.CPUSecondsPerGang = res.SchedulerCPUSeconds / float64(len(members))
	if cycles, err := readCycles(ctx, sched); err == nil {
		res.Gang.setCycles(cycles.minus(cyclesBefore))
	} else {
		waitErr = errors.Join(waitErr, err)
	}
	res.WatchRestarts, res.WatchRelists = rec.WatchStats()
	res.Gang.record(rec, members)
	lat, _, _ := rec.Samples(all)
	res.Bound, res.Latency, res.SpanNs = len(lat), Summarize(lat), res.Gang.SpanNs
	o.progress("%s: %d of %d gangs placed, %d of %d pods bound", label, res.Gang.Placed, res.Gang.Gangs, res.Bound, res.Pods)

	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := o.recordRacks(cctx, client, ns, cluster, members, res.Gang); err != nil {
		waitErr = errors.Join(waitErr, err)
	}
	check, err := res.recordClaims(cctx, client, ns, waitErr)
	res.Gang.WholeDevices = check.requests[requestName+"/"+wholeSubrequest] + check.requests[requestName] - res.Gang.FillerPods
	res.Gang.PartDevices = check.requests[requestName+"/"+partSubrequest]
	if c == ConfigDevicePlugin {
		// No claims: every bound pod holds one whole unit.
		res.Gang.WholeDevices = res.Bound
	}
	return res, err
}

// settleGangs waits up to gangSettle while some gang has only part of its
// pods bound: kube-scheduler binds a placed gang's pods one by one.
func settleGangs(ctx context.Context, rec *podlatency.Recorder, members [][]string) {
	deadline := time.Now().Add(gangSettle)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		partial := false
		for _, pods := range members {
			if b := rec.CountBound(pods); b > 0 && b < len(pods) {
				partial = true
				break
			}
		}
		if !partial {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
