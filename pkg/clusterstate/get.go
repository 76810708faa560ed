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

package clusterstate

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Query says what Get reads beyond the cluster-wide DRA objects (Nodes,
// ResourceSlices, DeviceClasses, every ResourceClaim, DeviceTaintRules).
type Query struct {
	// Pod, if set, is the pod asked about, in Namespace; the
	// ResourceClaimTemplates of Namespace are read with it.
	Namespace, Pod string
	// Preemption also reads the pods bound to nodes and every
	// PodDisruptionBudget: what a preemption would evict.
	Preemption bool
	// BoundPods also reads the pods bound to nodes (implied by
	// Preemption): what they take of their nodes' resources.
	BoundPods bool
	// Templates also reads the ResourceClaimTemplates of Namespace
	// (implied by Pod).
	Templates bool
}

// Get reads the objects q asks for from an API server, with list and get
// only. A cluster that does not serve DeviceTaintRules (the
// DRADeviceTaintRules feature is off) has none.
func Get(ctx context.Context, client kubernetes.Interface, q Query) (*Objects, error) {
	objs := &Objects{}
	list := metav1.ListOptions{}
	// The pod before the claims: a claim its status names (the
	// resourceclaim controller creates it, then records it) is then in the
	// list of claims read after.
	var pod *v1.Pod
	if q.Pod != "" {
		var err error
		if pod, err = getPodObjects(ctx, client, objs, q); err != nil {
			return nil, err
		}
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, list)
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	for i := range nodes.Items {
		objs.Nodes = append(objs.Nodes, &nodes.Items[i])
	}
	res := client.ResourceV1()
	slices, err := res.ResourceSlices().List(ctx, list)
	if err != nil {
		return nil, fmt.Errorf("list resourceslices: %w", err)
	}
	for i := range slices.Items {
		objs.Slices = append(objs.Slices, &slices.Items[i])
	}
	classes, err := res.DeviceClasses().List(ctx, list)
	if err != nil {
		return nil, fmt.Errorf("list deviceclasses: %w", err)
	}
	for i := range classes.Items {
		objs.Classes = append(objs.Classes, &classes.Items[i])
	}
	claims, err := res.ResourceClaims(metav1.NamespaceAll).List(ctx, list)
	if err != nil {
		return nil, fmt.Errorf("list resourceclaims in all namespaces: %w", err)
	}
	for i := range claims.Items {
		objs.Claims = append(objs.Claims, &claims.Items[i])
	}
	rules, err := res.DeviceTaintRules().List(ctx, list)
	switch {
	case apierrors.IsNotFound(err):
		objs.Notes = append(objs.Notes, "the cluster serves no DeviceTaintRules (the DRADeviceTaintRules feature is off)")
	case err != nil:
		return nil, fmt.Errorf("list devicetaintrules: %w", err)
	default:
		for i := range rules.Items {
			objs.TaintRules = append(objs.TaintRules, &rules.Items[i])
		}
	}
	if q.BoundPods && (pod == nil || !q.Preemption) {
		if err := getBoundPods(ctx, client, objs, pod); err != nil {
			return nil, err
		}
	}
	if pod == nil && !q.Templates {
		return objs, nil
	}
	templates, err := res.ResourceClaimTemplates(q.Namespace).List(ctx, list)
	if err != nil {
		return nil, fmt.Errorf("list resourceclaimtemplates in %s: %w", q.Namespace, err)
	}
	for i := range templates.Items {
		objs.Templates = append(objs.Templates, &templates.Items[i])
	}
	return objs, nil
}

// getPodObjects reads the pod q asks about and adds it, with the pods and
// PodDisruptionBudgets preemption needs (q.Preemption) and the pod's
// PodGroup with its pending pods.
func getPodObjects(ctx context.Context, client kubernetes.Interface, objs *Objects, q Query) (*v1.Pod, error) {
	pod, err := client.CoreV1().Pods(q.Namespace).Get(ctx, q.Pod, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get pod %s/%s: %w", q.Namespace, q.Pod, err)
	}
	objs.Pods = append(objs.Pods, pod)
	if q.Preemption {
		if err := getPreemptionObjects(ctx, client, objs, pod); err != nil {
			return nil, err
		}
	}
	if sg := pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		if err := getPodGroup(ctx, client, objs, pod, *sg.PodGroupName); err != nil {
			return nil, err
		}
	}
	return pod, nil
}

// getPreemptionObjects adds the pods bound to nodes that are not done
// (asked, other than the pod already read), every PodDisruptionBudget and
// every PodGroup.
func getPreemptionObjects(ctx context.Context, client kubernetes.Interface, objs *Objects, asked *v1.Pod) error {
	if err := getBoundPods(ctx, client, objs, asked); err != nil {
		return err
	}
	pdbs, err := client.PolicyV1().PodDisruptionBudgets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list poddisruptionbudgets in all namespaces: %w", err)
	}
	for i := range pdbs.Items {
		objs.PDBs = append(objs.PDBs, &pdbs.Items[i])
	}
	// Every PodGroup: a victim whose group's disruptionMode is All is
	// evicted with all the group's pods.
	groups, err := client.SchedulingV1beta1().PodGroups(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil // PodGroups are not served: no pod has one
	case apierrors.IsForbidden(err):
		objs.Notes = append(objs.Notes, "PodGroups could not be listed (forbidden): victims whose group goes whole are counted alone")
		return nil
	case err != nil:
		return fmt.Errorf("list podgroups in all namespaces: %w", err)
	}
	for i := range groups.Items {
		objs.PodGroups = append(objs.PodGroups, &groups.Items[i])
	}
	return nil
}

// getBoundPods adds the pods bound to nodes that are not done, other than
// asked (nil when none), which is read already.
func getBoundPods(ctx context.Context, client kubernetes.Interface, objs *Objects, asked *v1.Pod) error {
	pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		FieldSelector: "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed",
	})
	if err != nil {
		return fmt.Errorf("list pods bound to nodes in all namespaces: %w", err)
	}
	for i := range pods.Items {
		if asked == nil || pods.Items[i].UID != asked.UID {
			objs.Pods = append(objs.Pods, &pods.Items[i])
		}
	}
	return nil
}

// getPodGroup adds the pod's PodGroup and its other pods that are not
// bound (those bound are among the preemption objects, or not needed). A
// cluster that does not serve PodGroups (scheduling.k8s.io/v1beta1) or
// lacks this one gets a note.
func getPodGroup(ctx context.Context, client kubernetes.Interface, objs *Objects, asked *v1.Pod, name string) error {
	pg, err := client.SchedulingV1beta1().PodGroups(asked.Namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		objs.Notes = append(objs.Notes, fmt.Sprintf("PodGroup %s/%s was not found (or scheduling.k8s.io/v1beta1 is not served)", asked.Namespace, name))
		return nil
	case err != nil:
		return fmt.Errorf("get podgroup %s/%s: %w", asked.Namespace, name, err)
	}
	if !slices.ContainsFunc(objs.PodGroups, func(g *schedulingapi.PodGroup) bool { return g.UID == pg.UID }) {
		objs.PodGroups = append(objs.PodGroups, pg) // not listed with the preemption objects
	}
	pods, err := client.CoreV1().Pods(asked.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName="})
	if err != nil {
		return fmt.Errorf("list pending pods in %s: %w", asked.Namespace, err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if sg := p.Spec.SchedulingGroup; p.UID != asked.UID && sg != nil && sg.PodGroupName != nil && *sg.PodGroupName == name {
			objs.Pods = append(objs.Pods, p)
		}
	}
	return nil
}
