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
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// A backlog of pending pods (Options.Pending) with PendingTooBig: pods
// that can never be scheduled, created before the measured ones and left
// in the scheduler's queue through the run, as in a cluster where some
// jobs wait for devices that do not exist. With claims, each pod's claim comes from a template
// that asks for one device more than a node of the shape has; with
// device-plugin, the pod asks for one unit of DevicePluginResource more
// than a node has, so it waits for capacity as the claims' pods do;
// without devices (no-claims), the pod selects a node label no node has.
// PendingHeld's backlog waits for devices that other pods hold instead
// (pending_held.go).
const (
	// pendingGroup names the backlog's pods ("pending-<i>").
	pendingGroup = "pending"
	// pendingTemplateName is the template of the backlog's claims.
	pendingTemplateName = "dra-bench-too-big"
	// pendingLabel marks the backlog's pods; the no-claims ones also
	// select it as a node label, which no node has.
	pendingLabel = "dra-bench.dra-scheduler.io/pending"
)

// pendingClaimSpec asks for one device more than a node of the shape has.
func pendingClaimSpec(s Shape) resourceapi.ResourceClaimSpec {
	spec := claimSpec(s)
	spec.Devices.Requests[0].Exactly.Count = int64(s.DevicesPerNode + 1)
	return spec
}

// makePendingPod returns backlog pod name of configuration c on nodes of
// shape s: a pod of c made from templates, whose claim comes from the
// too-big template; with device-plugin, one asking for one unit more than
// a node has.
func makePendingPod(name, namespace string, s Shape, c Config) *v1.Pod {
	pod := makePod(name, namespace, c, ClaimsTemplate)
	pod.Labels[pendingLabel] = "true"
	if c == ConfigDevicePlugin {
		setDeviceUnits(pod, s.DevicesPerNode+1)
		return pod
	}
	if !c.HasClaims() {
		pod.Spec.NodeSelector = map[string]string{pendingLabel: "true"}
		return pod
	}
	pod.Spec.ResourceClaims[0].ResourceClaimTemplateName = ptr.To(pendingTemplateName)
	return pod
}

// makeBacklogPod returns backlog pod name of configuration c that waits
// for reason: makePendingPod's for PendingTooBig, makeHeldPendingPod's
// for PendingHeld.
func makeBacklogPod(name, namespace string, s Shape, c Config, reason PendingReason) *v1.Pod {
	if reason == PendingHeld {
		return makeHeldPendingPod(name, namespace, c)
	}
	return makePendingPod(name, namespace, s, c)
}

// createBacklog creates n backlog pods that wait for reason (and, with
// claims of PendingTooBig, their template; PendingHeld's come from the
// measured pods' template) and waits until the scheduler has tried each
// once and found it unschedulable, so that they sit in its queue when the
// measured pods come.
func createBacklog(ctx context.Context, client kubernetes.Interface, namespace string, s Shape, c Config, reason PendingReason, n, workers int, timeout time.Duration) error {
	if c.HasClaims() && reason != PendingHeld {
		if err := createTemplate(ctx, client, namespace, pendingTemplateName, pendingClaimSpec(s)); err != nil {
			return err
		}
	}
	if err := Parallel(ctx, n, workers, func(ctx context.Context, i int) error {
		pod := makeBacklogPod(podName(pendingGroup, i), namespace, s, c, reason)
		if _, err := client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod %s/%s: %w", namespace, pod.Name, err)
		}
		return nil
	}); err != nil {
		return err
	}
	var tried int
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		pods, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: pendingLabel + "=true"})
		if err != nil {
			return false, fmt.Errorf("list the pending pods: %w", err)
		}
		tried = 0
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				return false, fmt.Errorf("pending pod %s/%s (%s) was bound to %s", namespace, p.Name, reason, p.Spec.NodeName)
			}
			for _, cond := range p.Status.Conditions {
				if cond.Type == v1.PodScheduled && cond.Status == v1.ConditionFalse && cond.Reason == v1.PodReasonUnschedulable {
					tried++
				}
			}
		}
		return tried == n, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the scheduler to find the %d pending pods unschedulable (%d so far): %w", n, tried, err)
	}
	return nil
}

// countBacklog lists the pods of namespace after a run and records in res
// how many backlog pods are bound (PendingBound, must be none) and how
// many holders still are (HoldersBound, must be all).
func countBacklog(ctx context.Context, client kubernetes.Interface, namespace string, res *Result) error {
	pods, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list the pods in %s to count the pending and holder pods bound: %w", namespace, err)
	}
	res.PendingBound, res.HoldersBound = 0, 0
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" {
			continue
		}
		switch {
		case p.Labels[pendingLabel] == "true":
			res.PendingBound++
		case p.Labels[holderLabel] == "true":
			res.HoldersBound++
		}
	}
	return nil
}
