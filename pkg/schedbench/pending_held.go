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
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// A backlog waiting for capacity that is held (PendingHeld, issue 40): a
// cluster where every GPU of most nodes is taken by long-running jobs
// while more jobs wait for one, and new jobs arrive for the nodes that
// still have free devices. The n nodes of a run are split in two parts,
// labelled CapacityLabel in the cluster objects, identically for every
// configuration:
//
//   - the first heldFreeNodes(n) nodes are CapacityFree: just enough
//     nodes for the warm-up and measured pods, one device each
//     (ceil((pods + warm-up) / Shape.DevicesPerNode)); the warm-up and
//     measured pods select them, so they never compete with the backlog;
//   - the other nodes are CapacityHeld: before the warm-up, every device
//     they have is taken by a holder pod of one device ("holder-<i>",
//     the burst workload's pod on those nodes), bound by the scheduler
//     under test and never deleted.
//
// The backlog's pods are the burst workload's pods (one device from the
// measured pods' template; for device-plugin one unit) selecting the
// held nodes: they fit there by everything but their device, so they
// wait for capacity that the holders hold, and every binding and claim
// allocation in the cluster may requeue them. no-claims has no devices
// to hold, and is refused.
const (
	// CapacityLabel is the node label saying which part of the cluster
	// a node is in with PendingHeld: CapacityFree or CapacityHeld.
	CapacityLabel = "dra-bench.example.com/capacity"
	// CapacityFree marks the nodes left free for the warm-up and
	// measured pods.
	CapacityFree = "free"
	// CapacityHeld marks the nodes whose devices holders take and the
	// backlog waits for.
	CapacityHeld = "held"
	// holderGroup names the holder pods ("holder-<i>").
	holderGroup = "holder"
	// holderLabel marks the holder pods.
	holderLabel = "dra-bench.dra-scheduler.io/holder"
)

// heldFreeNodes is the number of nodes of n left free with PendingHeld:
// enough for the warm-up and measured pods, one device each.
func (o *Options) heldFreeNodes(n int) int {
	pods := o.podsFor(n) + o.Warmup
	return (pods + o.Shape.DevicesPerNode - 1) / o.Shape.DevicesPerNode
}

// holdersFor is the number of holder pods at n nodes: every device of
// the held nodes.
func (o *Options) holdersFor(n int) int {
	return (n - o.heldFreeNodes(n)) * o.Shape.DevicesPerNode
}

// withCapacity returns cluster with its nodes labelled by part
// (CapacityLabel): the first free nodes CapacityFree, the others
// CapacityHeld. The nodes are copies, as the cluster's objects are shared.
func withCapacity(cluster inventorygen.Cluster, free int) inventorygen.Cluster {
	out := cluster
	out.Nodes = make([]*v1.Node, len(cluster.Nodes))
	for i, node := range cluster.Nodes {
		node = node.DeepCopy()
		if node.Labels == nil {
			node.Labels = map[string]string{}
		}
		node.Labels[CapacityLabel] = CapacityHeld
		if i < free {
			node.Labels[CapacityLabel] = CapacityFree
		}
		out.Nodes[i] = node
	}
	return out
}

// forPending returns cluster as the backlog needs it: with PendingHeld
// and a backlog, its nodes labelled by part (withCapacity); otherwise
// cluster itself.
func (o *Options) forPending(cluster inventorygen.Cluster) inventorygen.Cluster {
	if !o.held() {
		return cluster
	}
	return withCapacity(cluster, o.heldFreeNodes(len(cluster.Nodes)))
}

// pendingReasonSetting is the backlog's reason as Settings reports it:
// "" without a backlog.
func (o *Options) pendingReasonSetting() PendingReason {
	if o.Pending == 0 {
		return ""
	}
	return o.PendingReason
}

// held says whether the run has a backlog waiting for held capacity.
func (o *Options) held() bool { return o.Pending > 0 && o.PendingReason == PendingHeld }

// runSelector is the node selector of the warm-up and measured pods:
// the free nodes with PendingHeld, none otherwise.
func (o *Options) runSelector() map[string]string {
	if !o.held() {
		return nil
	}
	return map[string]string{CapacityLabel: CapacityFree}
}

// makeHeldPendingPod returns backlog pod name of configuration c with
// PendingHeld: the burst workload's pod (claims from the template of
// ClaimsTemplate; for device-plugin one unit) on the held nodes.
func makeHeldPendingPod(name, namespace string, c Config) *v1.Pod {
	pod := makePodOn(name, namespace, c, ClaimsTemplate, map[string]string{CapacityLabel: CapacityHeld})
	pod.Labels[pendingLabel] = "true"
	return pod
}

// makeHolder returns holder pod name of configuration c: the burst
// workload's pod of one device on the held nodes.
func makeHolder(name, namespace string, c Config) *v1.Pod {
	pod := makePodOn(name, namespace, c, ClaimsTemplate, map[string]string{CapacityLabel: CapacityHeld})
	pod.Labels[holderLabel] = "true"
	return pod
}

// holdCapacity takes every device of the held nodes of n with holder
// pods bound by the run's scheduler, before the warm-up; res gets the
// holders. The holders' and the backlog's claims come from the measured
// pods' template, created here when the measured pods have claims of
// their own (ClaimsPerPod).
func (o *Options) holdCapacity(ctx context.Context, client kubernetes.Interface, rec *podlatency.Recorder, sched *child, ns string, c Config, n int, label string, res *Result) error {
	if !o.held() {
		return nil
	}
	if c.HasClaims() && o.Claims != ClaimsTemplate {
		if err := createTemplate(ctx, client, ns, templateName, claimSpec(o.Shape)); err != nil {
			return err
		}
	}
	names := make([]string, o.holdersFor(n))
	for i := range names {
		names[i] = podName(holderGroup, i)
	}
	start := time.Now()
	if err := o.fillPods(ctx, client, rec, sched, ns, names, func(i int) *v1.Pod { return makeHolder(names[i], ns, c) }, label); err != nil {
		return fmt.Errorf("hold every device of the %d %s nodes with %d holder pods: %w", n-o.heldFreeNodes(n), CapacityHeld, len(names), err)
	}
	res.HolderPods, res.FreeNodes = len(names), o.heldFreeNodes(n)
	o.progress("%s: %d holder pods hold every device of %d nodes, in %v; %d nodes are free", label, len(names), n-o.heldFreeNodes(n),
		time.Since(start).Round(time.Millisecond), o.heldFreeNodes(n))
	return nil
}

// completePending checks the backlog's reason (after the pod counts).
func (o *Options) completePending() error {
	if o.PendingReason == "" {
		o.PendingReason = PendingTooBig
	}
	if _, err := ParsePendingReason(string(o.PendingReason)); err != nil {
		return err
	}
	if o.PendingReason != PendingHeld {
		return nil
	}
	switch {
	case o.Pending == 0:
		return fmt.Errorf("pending reason %s needs a backlog: pending pods (--pending) must be at least 1", PendingHeld)
	case o.Workload != WorkloadBurst:
		return fmt.Errorf("pending reason %s goes with the %s workload, not %s", PendingHeld, WorkloadBurst, o.Workload)
	case slices.ContainsFunc(o.Configs, func(c Config) bool { return !c.NeedsDevices() }):
		return fmt.Errorf("pending reason %s holds devices: configuration %q has none to hold or wait for (leave it out of the configurations)", PendingHeld, ConfigNoClaims)
	case o.Kubeconfig != "" && !o.CreateInventory:
		return fmt.Errorf("pending reason %s labels the nodes it creates (%s): with a kubeconfig, only with the created inventory (--create-inventory)", PendingHeld, CapacityLabel)
	}
	for _, n := range o.Sizes {
		if free := o.heldFreeNodes(n); n >= 1 && free >= n {
			return fmt.Errorf("pending reason %s on %d nodes of shape %s (%d devices each): the %d measured and %d warm-up pods need %d free nodes, leaving none whose devices the %d pending pods wait for",
				PendingHeld, n, o.Shape.Name, o.Shape.DevicesPerNode, o.podsFor(n), o.Warmup, free, o.Pending)
		}
	}
	return nil
}
