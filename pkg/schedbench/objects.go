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
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// Names of the objects a run creates in its namespace.
const (
	// templateName is the ResourceClaimTemplate of ClaimsTemplate.
	templateName = "dra-bench-device"
	// podClaimName is the name of the claim inside every pod spec.
	podClaimName = "device"
	// requestName is the claim's one request.
	requestName = "device"
)

// podName is the name of pod i of a group ("warmup" or "pod").
func podName(group string, i int) string { return fmt.Sprintf("%s-%d", group, i) }

// claimSpec is what every pod's claim asks for: one device of the shape's
// class with its selectors.
func claimSpec(s Shape) resourceapi.ResourceClaimSpec {
	exact := &resourceapi.ExactDeviceRequest{
		DeviceClassName: s.Class,
		AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
		Count:           1,
	}
	exact.Selectors = celSelectors(s.Selectors)
	return resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
		Requests: []resourceapi.DeviceRequest{{Name: requestName, Exactly: exact}},
	}}
}

// celSelectors are CEL device selectors of the expressions.
func celSelectors(exprs []string) []resourceapi.DeviceSelector {
	var out []resourceapi.DeviceSelector
	for _, expr := range exprs {
		out = append(out, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: expr}})
	}
	return out
}

// makePod returns pod name of a configuration: one pause container, the
// benchmark's scheduler, and one claim from the template or the
// pre-created claim of the same name (no claim for no-claims; for
// device-plugin, one unit of DevicePluginResource instead).
func makePod(name, namespace string, c Config, mode ClaimMode) *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/name": "dra-bench"}},
		Spec: v1.PodSpec{
			SchedulerName: SchedulerName,
			Containers:    []v1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}},
			// No kubelet may ever run these pods: deleting them must not wait.
			TerminationGracePeriodSeconds: ptr.To[int64](0),
		},
	}
	if c == ConfigDevicePlugin {
		setDeviceUnits(pod, 1)
	}
	if !c.HasClaims() {
		return pod
	}
	claim := v1.PodResourceClaim{Name: podClaimName}
	if mode == ClaimsTemplate {
		claim.ResourceClaimTemplateName = ptr.To(templateName)
	} else {
		claim.ResourceClaimName = ptr.To(name)
	}
	pod.Spec.ResourceClaims = []v1.PodResourceClaim{claim}
	pod.Spec.Containers[0].Resources.Claims = []v1.ResourceClaim{{Name: podClaimName}}
	return pod
}

// makePodOn returns makePod's pod restricted to the nodes with the
// labels of selector (none: any node).
func makePodOn(name, namespace string, c Config, mode ClaimMode, selector map[string]string) *v1.Pod {
	pod := makePod(name, namespace, c, mode)
	if len(selector) > 0 {
		pod.Spec.NodeSelector = selector
	}
	return pod
}

// parallel runs do(0..n-1) on workers goroutines and returns the first
// error; after an error, the remaining items are skipped.
func Parallel(ctx context.Context, n, workers int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := do(ctx, i); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && err != context.Canceled {
		return err
	}
	return ctx.Err()
}

// CreateInventory creates the cluster's DeviceClasses (an existing class of
// the same name is kept), Nodes with their status, and ResourceSlices, as
// kubelet and the driver would.
func CreateInventory(ctx context.Context, client kubernetes.Interface, cluster inventorygen.Cluster, workers int) error {
	for _, c := range cluster.Classes {
		c := c.DeepCopy()
		c.UID = ""
		if _, err := client.ResourceV1().DeviceClasses().Create(ctx, c, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create DeviceClass %s: %w", c.Name, err)
		}
	}
	err := Parallel(ctx, len(cluster.Nodes), workers, func(ctx context.Context, i int) error {
		n := cluster.Nodes[i].DeepCopy()
		n.UID = ""
		created, err := client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("create Node %s: %w", n.Name, err)
		}
		created.Status = n.Status
		if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("update status of Node %s: %w", n.Name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return Parallel(ctx, len(cluster.Slices), workers, func(ctx context.Context, i int) error {
		s := cluster.Slices[i].DeepCopy()
		s.UID, s.OwnerReferences = "", nil
		if _, err := client.ResourceV1().ResourceSlices().Create(ctx, s, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create ResourceSlice %s: %w", s.Name, err)
		}
		return nil
	})
}

// deleteInventory removes what CreateInventory created, except the
// DeviceClasses (which may have existed before).
func deleteInventory(ctx context.Context, client kubernetes.Interface, cluster inventorygen.Cluster, workers int) error {
	err := Parallel(ctx, len(cluster.Slices), workers, func(ctx context.Context, i int) error {
		name := cluster.Slices[i].Name
		if err := client.ResourceV1().ResourceSlices().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete ResourceSlice %s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return Parallel(ctx, len(cluster.Nodes), workers, func(ctx context.Context, i int) error {
		name := cluster.Nodes[i].Name
		if err := client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete Node %s: %w", name, err)
		}
		return nil
	})
}

// createClaims creates what the pods of a DRA configuration reference:
// the template, or one claim per pod name.
func createClaims(ctx context.Context, client kubernetes.Interface, namespace string, s Shape, mode ClaimMode, names []string, workers int) error {
	if mode == ClaimsTemplate {
		return createTemplate(ctx, client, namespace, templateName, claimSpec(s))
	}
	return Parallel(ctx, len(names), workers, func(ctx context.Context, i int) error {
		return createClaim(ctx, client, namespace, names[i], claimSpec(s))
	})
}

// createClaim creates the ResourceClaim name with spec.
func createClaim(ctx context.Context, client kubernetes.Interface, namespace, name string, spec resourceapi.ResourceClaimSpec) error {
	claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Spec: spec}
	if _, err := client.ResourceV1().ResourceClaims(namespace).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ResourceClaim %s/%s: %w", namespace, name, err)
	}
	return nil
}

// createTemplate creates the ResourceClaimTemplate name with spec.
func createTemplate(ctx context.Context, client kubernetes.Interface, namespace, name string, spec resourceapi.ResourceClaimSpec) error {
	tmpl := &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: spec},
	}
	if _, err := client.ResourceV1().ResourceClaimTemplates(namespace).Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ResourceClaimTemplate %s/%s: %w", namespace, name, err)
	}
	return nil
}

// claimCheck is what the claims of a run look like after it.
type claimCheck struct {
	// claims in the namespace, allocated among them, and devices held by
	// more than one claim.
	claims, allocated, duplicates int
	// example describes the first duplicate.
	example string
	// requests counts the allocation results by request name ("device",
	// or "device/whole" for a firstAvailable subrequest).
	requests map[string]int
}

// checkClaims lists the namespace's claims and checks that no device is
// allocated twice.
func checkClaims(ctx context.Context, client kubernetes.Interface, namespace string) (claimCheck, error) {
	var cc claimCheck
	list, err := client.ResourceV1().ResourceClaims(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return cc, fmt.Errorf("list ResourceClaims in %s: %w", namespace, err)
	}
	owner := map[string]string{}
	for _, c := range list.Items {
		cc.claims++
		if c.Status.Allocation == nil {
			continue
		}
		cc.allocated++
		for _, r := range c.Status.Allocation.Devices.Results {
			if cc.requests == nil {
				cc.requests = map[string]int{}
			}
			cc.requests[r.Request]++
			key := r.Driver + "/" + r.Pool + "/" + r.Device
			if other, ok := owner[key]; ok {
				cc.duplicates++
				if cc.example == "" {
					cc.example = fmt.Sprintf("device %s allocated to claims %s and %s", key, other, c.Name)
				}
				continue
			}
			owner[key] = c.Name
		}
	}
	return cc, nil
}
