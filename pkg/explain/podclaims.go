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

package explain

import (
	v1 "k8s.io/api/core/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/podshape"
)

// Claim is one entry of the pod's spec.resourceClaims, resolved as the
// scheduler resolves it (pkg/podshape).
type Claim = podshape.Claim

// ClaimState says where a pod's claim stands.
type ClaimState = podshape.ClaimState

// The states of a pod's claim (pkg/podshape).
const (
	ClaimAllocated  = podshape.ClaimAllocated
	ClaimToAllocate = podshape.ClaimToAllocate
	ClaimNotCreated = podshape.ClaimNotCreated
	ClaimUnusable   = podshape.ClaimUnusable
)

// podClaims resolves the pod's claims as the scheduler does. problems are
// why the scheduler would not look at any node for the pod.
func (c *Cluster) podClaims(pod *v1.Pod) (claims []Claim, problems []string) {
	o := podshape.Options{PodGroupClaims: c.settings.PodGroupClaims}
	if c.settings.NodeAllocatable {
		o.MappedDevices = c.snap.Slices()
	}
	return podshape.Resolve(pod, c.snap, o)
}
