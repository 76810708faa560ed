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

// Package gangoracle is the tests' reference for gang planning: a brute
// force that says whether the pods of a gang can be assigned to nodes so
// that, on every node, the claims of the pods assigned there fit together.
// It knows no classes, symmetry or memo, so it checks allocator.PlanGang
// and the scheduler plugin independently of their search.
package gangoracle

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
)

// AssignmentExists tries every assignment of the pods (each its claims)
// to nodes, pod by pod, abandoning a partial assignment as soon as a
// node's pods do not fit together (they would not with more pods either).
// Errors are the allocator's.
func AssignmentExists(ctx context.Context, a *allocator.Allocator, nodes []*v1.Node, pods [][]*resourceapi.ResourceClaim) (bool, error) {
	on := make([][]*resourceapi.ResourceClaim, len(nodes))
	var try func(i int) (bool, error)
	try = func(i int) (bool, error) {
		if i == len(pods) {
			return true, nil
		}
		for n, node := range nodes {
			before := on[n]
			on[n] = append(slices.Clone(before), pods[i]...)
			fits, err := a.Fits(ctx, node, on[n])
			if err != nil {
				return false, err
			}
			if fits {
				if ok, err := try(i + 1); ok || err != nil {
					return ok, err
				}
			}
			on[n] = before
		}
		return false, nil
	}
	return try(0)
}
