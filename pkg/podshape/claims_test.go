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

package podshape_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/podshape"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const (
	gpu = "gpu.example.com"
	ns  = "team"
)

// source is a Source over lists.
type source struct {
	claims    []*resourceapi.ResourceClaim
	templates []*resourceapi.ResourceClaimTemplate
	classes   []string
}

func (s source) Claim(namespace, name string) *resourceapi.ResourceClaim {
	for _, c := range s.claims {
		if c.Namespace == namespace && c.Name == name {
			return c
		}
	}
	return nil
}

func (s source) Template(namespace, name string) *resourceapi.ResourceClaimTemplate {
	for _, t := range s.templates {
		if t.Namespace == namespace && t.Name == name {
			return t
		}
	}
	return nil
}

func (s source) ClassExists(name string) bool {
	for _, c := range s.classes {
		if c == name {
			return true
		}
	}
	return false
}

func allocated(c *resourceapi.ResourceClaim, device string) *resourceapi.ResourceClaim {
	c.Status.Allocation = &resourceapi.AllocationResult{
		Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
			{Request: "gpu", Driver: gpu, Pool: "node-1", Device: device},
		}},
		NodeSelector: objects.NodeSelectorFor("node-1"),
	}
	return c
}

func TestResolveFindsClaimsAsTheSchedulerDoes(t *testing.T) {
	deleted := objects.Claim("deleted", ns, objects.ClaimSpec("gpu", gpu, 1))
	deleted.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	foreign := objects.Claim("other-pod-gpu-x1", ns, objects.ClaimSpec("gpu", gpu, 1))
	foreign.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "other-pod", UID: "other-uid", Controller: ptr.To(true)}}
	templated := objects.MakePod("p", ns).ClaimFromTemplate("gpu", "one-gpu").Obj()
	templated.UID = "p-uid"
	templated.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("other-pod-gpu-x1")}}
	src := source{
		claims: []*resourceapi.ResourceClaim{
			objects.Claim("free", ns, objects.ClaimSpec("gpu", gpu, 1)),
			allocated(objects.Claim("held", ns, objects.ClaimSpec("gpu", gpu, 1)), "gpu-0"),
			objects.Claim("other-class", ns, objects.ClaimSpec("gpu", "fpga.example.com", 1)),
			deleted, foreign,
		},
		templates: []*resourceapi.ResourceClaimTemplate{objects.ClaimTemplate("one-gpu", ns, "gpu", gpu, 1)},
		classes:   []string{gpu},
	}
	for _, tc := range []struct {
		name     string
		pod      *v1.Pod
		states   []podshape.ClaimState
		names    []string
		problems []string
	}{
		{
			name:   "a claim to allocate, an allocated one and one not created from its template",
			pod:    objects.MakePod("p", ns).Claim("a", "free").Claim("b", "held").ClaimFromTemplate("c", "one-gpu").Obj(),
			states: []podshape.ClaimState{podshape.ClaimToAllocate, podshape.ClaimAllocated, podshape.ClaimNotCreated},
			names:  []string{"free", "held", "p-c-…"},
		},
		{
			name:     "a missing claim and a missing template are problems",
			pod:      objects.MakePod("p", ns).Claim("a", "gone").ClaimFromTemplate("b", "no-such-template").Obj(),
			states:   []podshape.ClaimState{podshape.ClaimUnusable, podshape.ClaimUnusable},
			names:    []string{"gone", ""},
			problems: []string{"claim a: ResourceClaim team/gone does not exist", "claim b: ResourceClaimTemplate team/no-such-template does not exist"},
		},
		{
			name:     "a claim being deleted and one of a missing class are problems",
			pod:      objects.MakePod("p", ns).Claim("a", "deleted").Claim("b", "other-class").Obj(),
			states:   []podshape.ClaimState{podshape.ClaimUnusable, podshape.ClaimUnusable},
			names:    []string{"deleted", "other-class"},
			problems: []string{"claim a: ResourceClaim team/deleted is being deleted", "claim b: request gpu: DeviceClass fpga.example.com does not exist"},
		},
		{
			name:     "a template's claim that another pod owns is a problem",
			pod:      templated,
			states:   []podshape.ClaimState{podshape.ClaimUnusable},
			names:    []string{"other-pod-gpu-x1"},
			problems: []string{"claim gpu: ResourceClaim team/other-pod-gpu-x1 was not created for Pod team/p (Pod is not owner)"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			claims, problems := podshape.Resolve(tc.pod, src, podshape.Options{})
			var states []podshape.ClaimState
			var names []string
			for _, c := range claims {
				states = append(states, c.State)
				names = append(names, c.Name)
				if c.State != podshape.ClaimUnusable && c.Object == nil {
					t.Errorf("claim %s: state %q without its object", c.PodClaim, c.State)
				}
			}
			if !reflect.DeepEqual(states, tc.states) || !reflect.DeepEqual(names, tc.names) {
				t.Errorf("states %q, names %q; want %q, %q", states, names, tc.states, tc.names)
			}
			if !reflect.DeepEqual(problems, tc.problems) {
				t.Errorf("problems %q, want %q", problems, tc.problems)
			}
		})
	}
}

func TestVirtualCopiesAreDistinctClaimsOfTheTemplate(t *testing.T) {
	pod := objects.MakePod("trainer", ns).ClaimFromTemplate("gpu", "one-gpu").Obj()
	tmpl := objects.ClaimTemplate("one-gpu", ns, "gpu", gpu, 1)
	own, first, second := podshape.Virtual(pod, "gpu", tmpl, 0), podshape.Virtual(pod, "gpu", tmpl, 1), podshape.Virtual(pod, "gpu", tmpl, 2)
	if own.Name != "trainer-gpu-…" || own.UID != "" {
		t.Errorf("the pod's own claim is %s (UID %q), want trainer-gpu-… without a UID", own.Name, own.UID)
	}
	if first.Name == second.Name || first.UID == second.UID || first.UID == "" {
		t.Errorf("copies 1 and 2 are %s (%s) and %s (%s): want distinct names and UIDs", first.Name, first.UID, second.Name, second.UID)
	}
	if !reflect.DeepEqual(first.Spec, tmpl.Spec.Spec) || first.Namespace != ns {
		t.Errorf("copy 1 is %+v in %s, want the template's spec in %s", first.Spec, first.Namespace, ns)
	}
	first.Spec.Devices.Requests[0].Name = "changed"
	if tmpl.Spec.Spec.Devices.Requests[0].Name == "changed" {
		t.Error("changing a copy's spec changed the template's")
	}
}

func TestGeneratedPrefixShortensLongNamesAsTheControllerDoes(t *testing.T) {
	for _, tc := range []struct{ pod, claim, want string }{
		{"p", "gpu", "p-gpu-"},
		{strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("a", 27) + "-" + strings.Repeat("b", 27)},
	} {
		if got := podshape.GeneratedPrefix(tc.pod, tc.claim); got != tc.want {
			t.Errorf("GeneratedPrefix(%q, %q) = %q, want %q", tc.pod, tc.claim, got, tc.want)
		}
	}
}
