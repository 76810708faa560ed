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
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// watchClaims feeds the tracker from the scheduler's ResourceClaim
// informer and returns whether the handler has been handed every claim
// that existed when it started. The plugin itself records what it writes
// (PreBind, PostFilter) and what it has in flight (Reserve, Unreserve) as
// it happens; the tracker ignores informer copies older than what was
// recorded, as the scheduler's assume cache does, and a write recorded
// after the informer reported the claim deleted (the assume cache, keyed
// by the informer's objects, ignores it too).
//
// freed is called after a change that releases devices (a claim
// deallocated or deleted).
func watchClaims(factory informers.SharedInformerFactory, t *allocator.Tracker, freed func(), g *guard) (cache.InformerSynced, error) {
	reg, err := factory.Resource().V1().ResourceClaims().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			defer g.recoverHandler(pointClaimEvent)
			if claim, ok := obj.(*resourceapi.ResourceClaim); ok {
				g.enter(pointClaimEvent, nil)
				t.SetClaim(claim)
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			defer g.recoverHandler(pointClaimEvent)
			claim, ok := obj.(*resourceapi.ResourceClaim)
			if !ok {
				return
			}
			g.enter(pointClaimEvent, nil)
			t.SetClaim(claim)
			if old, ok := oldObj.(*resourceapi.ResourceClaim); ok && old.Status.Allocation != nil && claim.Status.Allocation == nil {
				freed()
			}
		},
		DeleteFunc: func(obj any) {
			defer g.recoverHandler(pointClaimEvent)
			// The deleted object's version; unknown after a relist.
			known := true
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj, known = tomb.Obj, false
			}
			if claim, ok := obj.(*resourceapi.ResourceClaim); ok {
				g.enter(pointClaimEvent, nil)
				rv := ""
				if known {
					rv = claim.ResourceVersion
				}
				// Kept deleted: PreBind may record its write of the
				// claim after this.
				t.ClaimDeleted(claim.UID, rv)
				if claim.Status.Allocation != nil {
					freed()
				}
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("watch resource claims: %w", err)
	}
	return reg.HasSynced, nil
}

// trimManagedFields makes the scheduler's claim informer drop each claim's
// managedFields as it decodes it, as kube-scheduler does for pods: nothing
// in the scheduler reads them, and they are about a third of a claim's
// memory (every writer's field set). The plugin's writes keep the stored
// ones: an update without managedFields leaves them to the API server,
// which takes the live object's. A transform must be set before the
// informer starts; one that has started keeps its claims whole, which
// costs memory only.
func trimManagedFields(logger klog.Logger, informer cache.SharedIndexInformer) {
	err := informer.SetTransform(func(obj any) (any, error) {
		if claim, ok := obj.(*resourceapi.ResourceClaim); ok {
			claim.ManagedFields = nil
		}
		return obj, nil
	})
	if err != nil {
		logger.Info("Keeping claims' managedFields in the scheduler's memory", "err", err)
	}
}

// reportDoubleAllocation raises a warning event on both claims of a
// device that two claims hold, and counts it. Two schedulers allocating
// from the same pools cause this; the plugin itself never does.
func reportDoubleAllocation(recorder events.EventRecorder, c allocator.Conflict) {
	metrics.DoubleAllocations.Inc()
	for i, ref := range c.Claims {
		namespace, name, ok := strings.Cut(ref, "/")
		if !ok {
			continue
		}
		claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
		recorder.Eventf(claim, nil, v1.EventTypeWarning, "DeviceAllocatedTwice", "Allocation",
			"device %s is also allocated to claim %s: two schedulers may be allocating from the same device pools", c.Device, c.Claims[1-i])
	}
}
