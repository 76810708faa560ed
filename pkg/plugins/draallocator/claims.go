package draallocator

import (
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
)

// watchClaims feeds the tracker from the scheduler's ResourceClaim
// informer. The plugin itself records what it writes (PreBind, PostFilter)
// and what it has in flight (Reserve, Unreserve) as it happens; the
// tracker ignores informer copies older than what was recorded, as the
// scheduler's assume cache does.
//
// freed is called after a change that releases devices (a claim
// deallocated or deleted).
func watchClaims(factory informers.SharedInformerFactory, t *allocator.Tracker, freed func()) error {
	_, err := factory.Resource().V1().ResourceClaims().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if claim, ok := obj.(*resourceapi.ResourceClaim); ok {
				t.SetClaim(claim)
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			claim, ok := obj.(*resourceapi.ResourceClaim)
			if !ok {
				return
			}
			t.SetClaim(claim)
			if old, ok := oldObj.(*resourceapi.ResourceClaim); ok && old.Status.Allocation != nil && claim.Status.Allocation == nil {
				freed()
			}
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if claim, ok := obj.(*resourceapi.ResourceClaim); ok {
				t.DeleteClaim(claim.UID)
				if claim.Status.Allocation != nil {
					freed()
				}
			}
		},
	})
	if err != nil {
		return fmt.Errorf("watch resource claims: %w", err)
	}
	return nil
}
