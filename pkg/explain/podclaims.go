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
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
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
	// the report's problems).
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

	obj *resourceapi.ResourceClaim
}

// podClaims resolves the pod's claims as the scheduler does. problems are
// why the scheduler would not look at any node for the pod.
func (c *Cluster) podClaims(pod *v1.Pod) (claims []Claim, problems []string) {
	for i := range pod.Spec.ResourceClaims {
		pc := &pod.Spec.ResourceClaims[i]
		out := Claim{PodClaim: pc.Name, Template: ptrValue(pc.ResourceClaimTemplateName)}
		claim, problem := c.resolve(pod, pc, &out)
		if problem != "" {
			out.State = ClaimUnusable
			problems = append(problems, fmt.Sprintf("claim %s: %s", pc.Name, problem))
			claims = append(claims, out)
			continue
		}
		if claim == nil {
			continue // a template that generated no claim
		}
		out.obj = claim
		if problem := c.sharedMappedClaim(pod, claim); problem != "" {
			out.State = ClaimUnusable
			problems = append(problems, fmt.Sprintf("claim %s: %s", pc.Name, problem))
			claims = append(claims, out)
			continue
		}
		if out.State == "" {
			out.State = ClaimToAllocate
			if claim.Status.Allocation != nil {
				out.State = ClaimAllocated
				out.Devices = describeResults(claim.Status.Allocation.Devices.Results)
			}
		}
		if out.State != ClaimAllocated {
			if problem := c.missingClass(claim); problem != "" {
				out.State = ClaimUnusable
				problems = append(problems, fmt.Sprintf("claim %s: %s", pc.Name, problem))
			}
		}
		claims = append(claims, out)
	}
	return claims, problems
}

// resolve finds the pod claim's ResourceClaim, or makes it from its
// template when it is not created yet; problem is why it cannot be used.
func (c *Cluster) resolve(pod *v1.Pod, pc *v1.PodResourceClaim, out *Claim) (_ *resourceapi.ResourceClaim, problem string) {
	name, mustCheckOwner, err := resourceclaim.Name(pod, pc)
	switch {
	case errors.Is(err, resourceclaim.ErrClaimNotFound):
		t := c.template(pod.Namespace, out.Template)
		if t == nil {
			return nil, fmt.Sprintf("ResourceClaimTemplate %s/%s does not exist", pod.Namespace, out.Template)
		}
		out.State = ClaimNotCreated
		out.Name = generatedPrefix(pod.Name, pc.Name) + "…"
		return &resourceapi.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{Name: out.Name, Namespace: pod.Namespace, Labels: t.Spec.Labels, Annotations: t.Spec.Annotations},
			Spec:       t.Spec.Spec,
		}, ""
	case err != nil:
		return nil, err.Error()
	case name == nil:
		return nil, ""
	}
	out.Name = *name
	claim := c.claim(pod.Namespace, *name)
	switch {
	case claim == nil:
		return nil, fmt.Sprintf("ResourceClaim %s/%s does not exist", pod.Namespace, *name)
	case claim.DeletionTimestamp != nil:
		return nil, fmt.Sprintf("ResourceClaim %s/%s is being deleted", pod.Namespace, *name)
	}
	if mustCheckOwner {
		if err := resourceclaim.IsForPod(pod, claim, c.settings.PodGroupClaims); err != nil {
			return nil, err.Error()
		}
	}
	if claim.Status.Allocation != nil && !resourceclaim.CanBeReserved(claim) && !resourceclaim.IsReservedForPod(pod, claim, c.settings.PodGroupClaims) {
		return nil, fmt.Sprintf("ResourceClaim %s/%s is in use by as many consumers as it may have", pod.Namespace, *name)
	}
	return claim, ""
}

// generatedPrefix is the generateName the resourceclaim controller gives
// a pod's claim: "<pod>-<claim>-", both parts shortened in proportion
// when that is longer than 57 characters.
func generatedPrefix(pod, claim string) string {
	const maxBaseLen = 57
	name := pod + "-" + claim + "-"
	if len(name) <= maxBaseLen {
		return name
	}
	return pod[:len(pod)*maxBaseLen/len(name)] + "-" + claim[:len(claim)*maxBaseLen/len(name)]
}

// missingClass names a class a claim's requests ask for that does not
// exist, as the scheduler's PreFilter checks.
func (c *Cluster) missingClass(claim *resourceapi.ResourceClaim) string {
	for _, req := range claim.Spec.Devices.Requests {
		names := []string{}
		if req.Exactly != nil {
			names = append(names, req.Exactly.DeviceClassName)
		}
		for _, sub := range req.FirstAvailable {
			names = append(names, sub.DeviceClassName)
		}
		for _, name := range names {
			if _, err := c.classes.Get(name); err != nil {
				return fmt.Sprintf("request %s: DeviceClass %s does not exist", req.Name, name)
			}
		}
	}
	return ""
}

// describeResults lists allocated devices as "<request>: <driver>/<pool>/<device>".
func describeResults(results []resourceapi.DeviceRequestAllocationResult) []string {
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
