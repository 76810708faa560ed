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
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints"
	"github.com/dra-scheduler/dra-scheduler/pkg/deviceconstraints/crossclaims"
)

// member is pod name with a pod claim per pair of pod claim and
// ResourceClaim name, each claim of one request "dev".
func member(name string, claims ...[2]string) crossclaims.Member {
	m := crossclaims.Member{Pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}}
	for _, c := range claims {
		m.Pod.Spec.ResourceClaims = append(m.Pod.Spec.ResourceClaims, v1.PodResourceClaim{Name: c[0]})
		m.PodClaims = append(m.PodClaims, c[0])
		m.Claims = append(m.Claims, &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: c[1]}, Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: "dev", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "example"}}},
		}}})
	}
	return m
}

func TestOfGroupTiesTheClaimsOfEveryMember(t *testing.T) {
	const rail = resourceapi.FullyQualifiedName("net.example.com/rail")
	r := rail
	// Two workers with a NIC each and a shared dataset claim; a launcher
	// with none of them.
	members := []crossclaims.Member{
		member("worker-0", [2]string{"nic", "worker-0-nic"}, [2]string{"data", "dataset"}),
		member("worker-1", [2]string{"nic", "worker-1-nic"}, [2]string{"data", "dataset"}),
		member("launcher"),
	}
	group := func(value string) *schedulingapi.PodGroup {
		g := &schedulingapi.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "team"}}
		if value != "" {
			g.Annotations = map[string]string{deviceconstraints.Annotation: value}
		}
		return g
	}
	for _, tc := range []struct {
		name, value string
		want        []allocator.CrossClaimConstraint
		wantErr     string
	}{
		{name: "without the annotation there are none"},
		{name: "a constraint names the pod claim of every member that has it", value: `[{"requests": ["nic/dev"], "matchAttribute": "` + string(rail) + `"}]`,
			want: []allocator.CrossClaimConstraint{{MatchAttribute: &r, Requests: []allocator.ClaimRequest{{Claim: "worker-0-nic", Request: "dev"}, {Claim: "worker-1-nic", Request: "dev"}}}}},
		{name: "a claim the members share is named once", value: `[{"requests": ["nic", "data"], "distinctAttribute": "` + string(rail) + `"}]`,
			want: []allocator.CrossClaimConstraint{{DistinctAttribute: &r, Requests: []allocator.ClaimRequest{{Claim: "worker-0-nic"}, {Claim: "dataset"}, {Claim: "worker-1-nic"}}}}},
		{name: "no requests are every claim of every member", value: `[{"matchAttribute": "` + string(rail) + `"}]`,
			want: []allocator.CrossClaimConstraint{{MatchAttribute: &r, Requests: []allocator.ClaimRequest{{Claim: "worker-0-nic"}, {Claim: "dataset"}, {Claim: "worker-1-nic"}}}}},
		{name: "a pod claim no member has is wrong, naming the PodGroup", value: `[{"requests": ["gpu"], "matchAttribute": "` + string(rail) + `"}]`,
			wantErr: `PodGroup team/train: annotation ` + deviceconstraints.Annotation + `: constraint 0: requests[0] "gpu": no pod of the group has resource claim gpu`},
		{name: "a request a member's claim lacks is wrong, naming the pod", value: `[{"requests": ["nic/net"], "matchAttribute": "` + string(rail) + `"}]`,
			wantErr: "PodGroup team/train: pod worker-0: annotation " + deviceconstraints.Annotation + `: constraint 0: requests[0] "nic/net": claim nic has no request net (it has: dev)`},
		{name: "an unparsable value is wrong, naming the PodGroup", value: `[{`, wantErr: "PodGroup team/train: annotation " + deviceconstraints.Annotation + ": "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := crossclaims.OfGroup(group(tc.value), members)
			if tc.wantErr != "" {
				var e *deviceconstraints.Error
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &e) || got != nil {
					t.Fatalf("OfGroup = %v, %v; want nil and an error saying %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("OfGroup = %+v, want %+v", got, tc.want)
			}
		})
	}
}
