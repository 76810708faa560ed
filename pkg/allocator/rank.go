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
