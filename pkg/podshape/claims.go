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
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/dra-scheduler/dra-scheduler/pkg/nodeallocatable"
)

// ClaimState says where a pod's claim stands.
type ClaimState string

const (
	// ClaimAllocated claims have devices; the pod must go where they are.
	ClaimAllocated ClaimState = "allocated"
	// ClaimToAllocate claims exist and wait for the scheduler to allocate
	// them.
	ClaimToAllocate ClaimState = "to allocate"
	// ClaimNotCreated claims come from a template the resourceclaim
	// controller has not instantiated yet; they are asked about as the
	// template describes them.
	ClaimNotCreated ClaimState = "not created yet"
	// ClaimUnusable claims keep the pod from being scheduled at all (see
	// Resolve's problems).
	ClaimUnusable ClaimState = "unusable"
)

// Claim is one entry of the pod's spec.resourceClaims.
type Claim struct {
	// PodClaim is the entry's name in the pod spec.
	PodClaim string `json:"podClaim"`
	// Name is the ResourceClaim's name; for a claim not created yet, the
	// prefix the resourceclaim controller will give it.
	Name string `json:"name,omitempty"`
	// Template is the ResourceClaimTemplate it comes from, if any.
	Template string     `json:"template,omitempty"`
	State    ClaimState `json:"state"`
	// Devices are the allocated devices, as "<request>: <driver>/<pool>/<device>".
	Devices []string `json:"devices,omitempty"`

	// Object is the ResourceClaim, or the one made from the template for a
	// claim not created yet; nil for an unusable claim.
	Object *resourceapi.ResourceClaim `json:"-"`
}

// ToAllocate reports whether the scheduler would allocate the claim for
// the pod: it exists unallocated, or is still to be made from its template.
func (c Claim) ToAllocate() bool {
	return c.State == ClaimToAllocate || c.State == ClaimNotCreated
}

// Source is where Resolve finds the pod's claims, templates and classes.
type Source interface {
	// Claim returns the claim namespace/name, or nil.
	Claim(namespace, name string) *resourceapi.ResourceClaim
	// Template returns the template namespace/name, or nil.
	Template(namespace, name string) *resourceapi.ResourceClaimTemplate
	// ClassExists reports whether the DeviceClass exists.
	ClassExists(name string) bool
}

// Options are the scheduler's features that change how claims resolve.
type Options struct {
	// PodGroupClaims accepts claims owned by the pod's PodGroup (the
	// DRAWorkloadResourceClaims feature).
	PodGroupClaims bool
	// MappedDevices are the ResourceSlices by node with
	// DRANodeAllocatableResources on, nil with it off: a claim whose
	// devices are node resources is not shared.
	MappedDevices *nodeallocatable.Slices
}

// Resolve resolves the pod's claims as the scheduler does, in
// spec.resourceClaims order; a template that generated no claim is left
// out. problems are why the scheduler would not look at any node for the
// pod.
func Resolve(pod *v1.Pod, src Source, o Options) (claims []Claim, problems []string) {
	for i := range pod.Spec.ResourceClaims {
		pc := &pod.Spec.ResourceClaims[i]
		out := Claim{PodClaim: pc.Name, Template: ptrValue(pc.ResourceClaimTemplateName)}
		claim, problem := resolve(pod, pc, src, o, &out)
		if problem == "" && claim == nil {
			continue // a template that generated no claim
		}
		if problem == "" {
			out.Object = claim
			problem = sharedMappedClaim(pod, claim, o)
		}
		if problem == "" && out.State == "" {
			out.State = ClaimToAllocate
			if claim.Status.Allocation != nil {
				out.State = ClaimAllocated
				out.Devices = DescribeResults(claim.Status.Allocation.Devices.Results)
			}
		}
		if problem == "" && out.State != ClaimAllocated {
			problem = missingClass(claim, src)
		}
		if problem != "" {
			out.State = ClaimUnusable
			problems = append(problems, fmt.Sprintf("claim %s: %s", pc.Name, problem))
		}
		claims = append(claims, out)
	}
	return claims, problems
}

// resolve finds the pod claim's ResourceClaim, or makes it from its
// template when it is not created yet; problem is why it cannot be used.
func resolve(pod *v1.Pod, pc *v1.PodResourceClaim, src Source, o Options, out *Claim) (_ *resourceapi.ResourceClaim, problem string) {
	name, mustCheckOwner, err := resourceclaim.Name(pod, pc)
	switch {
	case errors.Is(err, resourceclaim.ErrClaimNotFound):
		t := src.Template(pod.Namespace, out.Template)
		if t == nil {
			return nil, fmt.Sprintf("ResourceClaimTemplate %s/%s does not exist", pod.Namespace, out.Template)
		}
		claim := Virtual(pod, pc.Name, t, 0)
		out.State = ClaimNotCreated
		out.Name = claim.Name
		return claim, ""
	case err != nil:
		return nil, err.Error()
	case name == nil:
		return nil, ""
	}
	out.Name = *name
	claim := src.Claim(pod.Namespace, *name)
	switch {
	case claim == nil:
		return nil, fmt.Sprintf("ResourceClaim %s/%s does not exist", pod.Namespace, *name)
	case claim.DeletionTimestamp != nil:
		return nil, fmt.Sprintf("ResourceClaim %s/%s is being deleted", pod.Namespace, *name)
	}
	if mustCheckOwner {
		if err := resourceclaim.IsForPod(pod, claim, o.PodGroupClaims); err != nil {
			return nil, err.Error()
		}
	}
	if claim.Status.Allocation != nil && !resourceclaim.CanBeReserved(claim) && !resourceclaim.IsReservedForPod(pod, claim, o.PodGroupClaims) {
		return nil, fmt.Sprintf("ResourceClaim %s/%s is in use by as many consumers as it may have", pod.Namespace, *name)
	}
	return claim, ""
}

// sharedMappedClaim is the problem of a claim the scheduler will not share:
// its devices are node resources and another consumer holds it.
func sharedMappedClaim(pod *v1.Pod, claim *resourceapi.ResourceClaim, o Options) string {
	if o.MappedDevices == nil || claim.Status.Allocation == nil || len(claim.Status.ReservedFor) == 0 ||
		resourceclaim.IsReservedForPod(pod, claim, o.PodGroupClaims) ||
		!nodeallocatable.HasMapping(claim.Status.Allocation, o.MappedDevices.On(nil)) {
		return ""
	}
	return nodeallocatable.SharingRefused(claim.Name)
}

// missingClass names a class a claim's requests ask for that does not
// exist, as the scheduler's PreFilter checks.
func missingClass(claim *resourceapi.ResourceClaim, src Source) string {
	for _, req := range claim.Spec.Devices.Requests {
		names := []string{}
		if req.Exactly != nil {
			names = append(names, req.Exactly.DeviceClassName)
		}
		for _, sub := range req.FirstAvailable {
			names = append(names, sub.DeviceClassName)
		}
		for _, name := range names {
			if !src.ClassExists(name) {
				return fmt.Sprintf("request %s: DeviceClass %s does not exist", req.Name, name)
			}
		}
	}
	return ""
}

// DescribeResults lists allocated devices as "<request>: <driver>/<pool>/<device>".
func DescribeResults(results []resourceapi.DeviceRequestAllocationResult) []string {
	out := make([]string, 0, len(results))
	for _, r := range results {
		out = append(out, fmt.Sprintf("%s: %s/%s/%s", r.Request, r.Driver, r.Pool, r.Device))
	}
	return out
}

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
