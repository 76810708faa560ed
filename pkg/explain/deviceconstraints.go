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
	"cmp"
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints/crossclaims"
)

// Device constraints across a pod's claims: the pod's
// dra-scheduler.io/device-constraints annotation, which the plugin's
// PreFilter reads (crossclaims.Of, shared with it) and gives to the pod's
// allocator, its allocated claims as fixed choices; and its PodGroup's
// (crossclaims.OfGroup), over the group's pods' claims, their allocated
// ones fixed choices too. A wrong annotation,
// or allocated claims that break it by themselves, is a problem of the
// pod, with the scheduler's message. Nodes where the claims would fit but
// for the constraints say so.

// constraintsNotMet is added to the reason of a node where the pod's
// claims fit without its device constraints but not with them.
const constraintsNotMet = "the device constraints (annotation " + deviceconstraints.Annotation + ") are not met on this node"

// crossClaims are the pod's constraints across its claims, with its
// allocated claims as the fixed choices they start from.
type crossClaims struct {
	constraints []allocator.CrossClaimConstraint
	fixed       []*resourceapi.ResourceClaim
}

// on returns a honouring the constraints; a itself without any.
func (x crossClaims) on(a *allocator.Allocator) *allocator.Allocator {
	if len(x.constraints) == 0 {
		return a
	}
	return a.WithCrossClaimConstraints(x.constraints, x.fixed)
}

// deviceConstraints reads pod's device constraints over its resolved
// claims as the plugin's PreFilter does; problem is the scheduler's
// message when the annotation is wrong or the allocated claims break it
// on every node. Unusable claims are left out: they are problems already.
func (c *Cluster) deviceConstraints(ctx context.Context, pod *v1.Pod, claims []Claim) (_ crossClaims, problem string, _ error) {
	var objs []*resourceapi.ResourceClaim
	var podClaims []string
	var x crossClaims
	for _, cl := range claims {
		if cl.Object == nil || cl.State == ClaimUnusable {
			continue
		}
		objs = append(objs, cl.Object)
		podClaims = append(podClaims, cl.PodClaim)
		if cl.State == ClaimAllocated {
			x.fixed = append(x.fixed, cl.Object)
		}
	}
	var err error
	if x.constraints, err = crossclaims.Of(pod, objs, podClaims); err != nil {
		return crossClaims{}, err.Error(), nil
	}
	group, fixed, err := c.groupDeviceConstraints(pod, objs, podClaims)
	if err != nil {
		return crossClaims{}, err.Error(), nil
	}
	x.constraints, x.fixed = append(x.constraints, group...), append(x.fixed, fixed...)
	broken, err := crossclaims.CheckFixed(ctx, c.allocator(c.snap.State()), x.constraints, x.fixed)
	switch {
	case err != nil:
		return crossClaims{}, "", fmt.Errorf("check the allocated claims against the device constraints: %w", err)
	case broken != "":
		return crossClaims{}, broken, nil
	}
	return x, "", nil
}

// groupDeviceConstraints reads the device constraints of pod's PodGroup
// over the claims of every pod of the group the input holds (pod's are
// claims, of the pod claims podClaims) as the plugin's PreFilter does,
// with the group's other allocated claims as fixed choices; none when the
// group has none. The error is the scheduler's message for a wrong value.
func (c *Cluster) groupDeviceConstraints(pod *v1.Pod, claims []*resourceapi.ResourceClaim, podClaims []string) ([]allocator.CrossClaimConstraint, []*resourceapi.ResourceClaim, error) {
	sg := pod.Spec.SchedulingGroup
	if sg == nil || sg.PodGroupName == nil {
		return nil, nil, nil
	}
	pg := c.podGroup(pod.Namespace, *sg.PodGroupName)
	if pg == nil {
		return nil, nil, nil
	}
	if _, found := pg.Annotations[deviceconstraints.Annotation]; !found {
		return nil, nil, nil
	}
	members := []crossclaims.Member{{Pod: pod, Claims: claims, PodClaims: podClaims}}
	var fixed []*resourceapi.ResourceClaim
	seen := map[string]bool{}
	for _, claim := range claims {
		seen[claim.Name] = true
	}
	for _, p := range c.objs.Pods {
		if p.UID == pod.UID || !memberOf(p, pod.Namespace, *sg.PodGroupName) {
			continue
		}
		resolved, problems := c.podClaims(p)
		if len(problems) > 0 {
			continue // the scheduler's view of it: no member yet
		}
		m := crossclaims.Member{Pod: p}
		for _, cl := range resolved {
			if cl.Object == nil {
				continue
			}
			m.Claims, m.PodClaims = append(m.Claims, cl.Object), append(m.PodClaims, cl.PodClaim)
			if cl.State == ClaimAllocated && !seen[cl.Object.Name] {
				seen[cl.Object.Name] = true
				fixed = append(fixed, cl.Object)
			}
		}
		members = append(members, m)
	}
	// The scheduler takes the group's other pods in UID order.
	slices.SortFunc(members[1:], func(a, b crossclaims.Member) int { return cmp.Compare(a.Pod.UID, b.Pod.UID) })
	group, err := crossclaims.OfGroup(pg, members)
	if err != nil {
		return nil, nil, err
	}
	return group, fixed, nil
}

// unconstrainedFit reports whether q's claims fit on node with plain, the
// allocator without the pod's device constraints, where they do not with
// them: then the constraints are what fails there. An error of plain's
// other than the context's is no: the node fails for more than them.
func (q question) unconstrainedFit(ctx context.Context, plain *allocator.Allocator, node *v1.Node) (bool, error) {
	if len(q.cross.constraints) == 0 {
		return false, nil
	}
	fits, err := plain.Fits(ctx, node, q.claims)
	if err != nil && ctx.Err() != nil {
		return false, fmt.Errorf("node %s without the device constraints: %w", node.Name, err)
	}
	return err == nil && fits, nil
}
