package allocator

import (
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// FirstAvailableRank ranks the results of claims (results[i] is claims[i]'s)
// by the firstAvailable alternatives they chose: for every chosen
// alternative, FirstAvailableDeviceRequestMaxSize minus its position, so
// that earlier alternatives rank higher. Claims without firstAvailable
// requests add nothing. It is the in-tree plugin's node score before
// normalization.
func FirstAvailableRank(claims []*resourceapi.ResourceClaim, results []resourceapi.AllocationResult) int64 {
	var rank int64
	for j, claim := range claims {
		chosen := map[string]bool{}
		for _, res := range results[j].Devices.Results {
			if resourceclaim.IsSubRequestRef(res.Request) {
				chosen[res.Request] = true
			}
		}
		for _, req := range claim.Spec.Devices.Requests {
			for i, sub := range req.FirstAvailable {
				if chosen[resourceclaim.CreateSubRequestRef(req.Name, sub.Name)] {
					rank += int64(resourceapi.FirstAvailableDeviceRequestMaxSize - i)
				}
			}
		}
	}
	return rank
}
