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

package crossclaims_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints/crossclaims"
)

const root = resourceapi.FullyQualifiedName("resource.kubernetes.io/pcieRoot")

func TestOfNamesThePodsClaimsByTheirResourceClaims(t *testing.T) {
	claim := func(name, request string) *resourceapi.ResourceClaim {
		return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: request, Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "example"}}},
		}}}
	}
	// Pod claims gpu, nic and later (not resolved yet); their
	// ResourceClaims are p-gpu-x and p-nic-y.
	claims := []*resourceapi.ResourceClaim{claim("p-gpu-x", "accel"), claim("p-nic-y", "net")}
	podClaims := []string{"gpu", "nic"}
	pod := func(value string) *v1.Pod {
		p := &v1.Pod{}
		for _, name := range []string{"gpu", "nic", "later"} {
			p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: name})
		}
		if value != "" {
			p.Annotations = map[string]string{deviceconstraints.Annotation: value}
		}
		return p
	}
	r := root
	for _, tc := range []struct {
		name, value string
		want        []allocator.CrossClaimConstraint
		wantErr     string
	}{
		{name: "without the annotation there are none"},
		{name: "an empty list is none", value: `[]`, want: []allocator.CrossClaimConstraint{}},
		{name: "claims and requests are named by their ResourceClaims", value: `[{"requests": ["gpu/accel", "nic"], "matchAttribute": "` + string(root) + `"}]`,
			want: []allocator.CrossClaimConstraint{{MatchAttribute: &r, Requests: []allocator.ClaimRequest{{Claim: "p-gpu-x", Request: "accel"}, {Claim: "p-nic-y"}}}}},
		{name: "no requests are every claim given, each named bare", value: `[{"distinctAttribute": "` + string(root) + `"}]`,
			want: []allocator.CrossClaimConstraint{{DistinctAttribute: &r, Requests: []allocator.ClaimRequest{{Claim: "p-gpu-x"}, {Claim: "p-nic-y"}}}}},
		{name: "a claim not resolved yet is left out, and a constraint of it alone dropped",
			value: `[{"requests": ["later"], "matchAttribute": "` + string(root) + `"}, {"requests": ["later", "nic/net"], "matchAttribute": "` + string(root) + `"}]`,
			want:  []allocator.CrossClaimConstraint{{MatchAttribute: &r, Requests: []allocator.ClaimRequest{{Claim: "p-nic-y", Request: "net"}}}}},
		{name: "an unparsable value is the parser's error", value: `[{`, wantErr: "annotation " + deviceconstraints.Annotation + ": "},
		{name: "an unknown request is CheckPod's error", value: `[{"requests": ["gpu/net"], "matchAttribute": "` + string(root) + `"}]`,
			wantErr: "claim gpu has no request net (it has: accel)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := crossclaims.Of(pod(tc.value), claims, podClaims)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "annotation "+deviceconstraints.Annotation+": ") || got != nil {
					t.Fatalf("Of = %v, %v; want nil and an error saying %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Of = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestBrokenNamesTheAnnotationAndTheAllocatorsFinding(t *testing.T) {
	got := crossclaims.Broken(errors.New("constraint 0 across claims: device d, allocated to claim c for request r, is in no slice"))
	want := "annotation dra-scheduler.io/device-constraints: the pod's allocated claims break it: constraint 0 across claims: device d, allocated to claim c for request r, is in no slice"
	if got != want {
		t.Errorf("Broken = %q, want %q", got, want)
	}
}
