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

package podshape

import (
	v1 "k8s.io/api/core/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/nodecheck"
)

// NodeCheck returns what a node must pass before its devices are asked
// about: the pod's own constraints and where its allocated claims are.
func NodeCheck(pod *v1.Pod, claims []Claim, f nodecheck.Features) (*nodecheck.Check, error) {
	nc := nodecheck.New(pod, f)
	for _, c := range claims {
		if c.State != ClaimAllocated {
			continue
		}
		if err := nc.AddAllocation(c.Object.Namespace+"/"+c.Object.Name, c.Object.Status.Allocation); err != nil {
			return nil, err
		}
	}
	return nc, nil
}
