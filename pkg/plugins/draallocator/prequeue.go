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
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// Pre-queueing hint (SchedulerPreQueueingHints, alpha in 1.37): without
// one, every ResourceClaim event runs the plugin's queueing hint once for
// every pod waiting in the unschedulable pool — O(pods × claims) when a
// burst of pods gets claims from templates, each claim's creation an
// event. With the gate on, the scheduling queue first asks the plugin
// which pods an event concerns and runs the hint for those alone:
//
//   - a claim deallocated, or deleted with an allocation: every pod (the
//     freed devices may suit any of them);
//   - otherwise the pods that name the claim, in their spec or, for a
//     generated claim, in their status (a pod index on the scheduler's pod
//     informer), and the pod that owns the claim: the resourceclaim
//     controller creates a template's claim, owned by its pod, before it
//     records the claim's name in the pod's status, so a new template
//     claim concerns exactly its own pod.
//
// With the gate off the queue ignores the function and nothing is
// indexed: behaviour is unchanged.

// claimIndex is the name of the pod informer index from a claim
// ("namespace/name") to the pods that name it.
const claimIndex = "dra-scheduler.io/resource-claim"

// podIndex finds pods by the claims they name.
type podIndex struct {
	indexer cache.Indexer
}

// newPodIndex adds the claim index to the scheduler's pod informer. It
// must run before the informer starts, as plugins are built.
func newPodIndex(factory informers.SharedInformerFactory) (*podIndex, error) {
	informer := factory.Core().V1().Pods().Informer()
	if err := informer.AddIndexers(cache.Indexers{claimIndex: claimsOfPod}); err != nil {
		return nil, fmt.Errorf("add the pod index by resource claim: %w", err)
	}
	return &podIndex{indexer: informer.GetIndexer()}, nil
}

// claimsOfPod is the index function: the keys of the claims the pod names
// in its spec and, for claims generated from templates, in its status.
func claimsOfPod(obj any) ([]string, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok || len(pod.Spec.ResourceClaims) == 0 {
		return nil, nil
	}
	var keys []string
	for _, rc := range pod.Spec.ResourceClaims {
		if rc.ResourceClaimName != nil {
			keys = append(keys, pod.Namespace+"/"+*rc.ResourceClaimName)
		}
	}
	for _, st := range pod.Status.ResourceClaimStatuses {
		if st.ResourceClaimName != nil {
			keys = append(keys, pod.Namespace+"/"+*st.ResourceClaimName)
		}
	}
	return keys, nil
}

// podsForClaimEvent is the PreQueueingHintFn of ResourceClaim events.
func (x *podIndex) podsForClaimEvent(_ klog.Logger, oldObj, newObj any) (fwk.PreQueueingHintResult, error) {
	all := fwk.PreQueueingHintResult{AllPods: true}
	if tomb, ok := oldObj.(cache.DeletedFinalStateUnknown); ok {
		if newObj == nil {
			return all, nil // the deleted claim's last state is unknown
		}
		oldObj = tomb.Obj
	}
	oldClaim, _ := oldObj.(*resourceapi.ResourceClaim)
	newClaim, _ := newObj.(*resourceapi.ResourceClaim)
	if oldClaim != nil && oldClaim.Status.Allocation != nil && (newClaim == nil || newClaim.Status.Allocation == nil) {
		return all, nil // devices freed
	}
	claim := newClaim
	if claim == nil {
		claim = oldClaim
	}
	if claim == nil {
		return all, fmt.Errorf("unexpected objects of types %T and %T for a claim event", oldObj, newObj)
	}
	named, err := x.indexer.ByIndex(claimIndex, claim.Namespace+"/"+claim.Name)
	if err != nil {
		return all, fmt.Errorf("look up the pods of claim %s: %w", klog.KObj(claim), err)
	}
	var pods []types.NamespacedName
	add := func(pod types.NamespacedName) {
		if !slices.Contains(pods, pod) {
			pods = append(pods, pod)
		}
	}
	for _, obj := range named {
		if pod, ok := obj.(*v1.Pod); ok {
			add(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
		}
	}
	for _, ref := range claim.OwnerReferences {
		if ref.APIVersion == "v1" && ref.Kind == "Pod" {
			add(types.NamespacedName{Namespace: claim.Namespace, Name: ref.Name})
		}
	}
	return fwk.PreQueueingHintResult{Pods: pods}, nil
}
