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

package deviceconstraints

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

func podWithClaims(names ...string) *v1.Pod {
	pod := &v1.Pod{}
	for _, name := range names {
		template := name + "-template"
		pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, v1.PodResourceClaim{Name: name, ResourceClaimTemplateName: &template})
	}
	return pod
}

// claimSpec has an exactly request per name of exact and a firstAvailable
// request per key of firstAvailable, with those subrequests.
func claimSpec(exact []string, firstAvailable map[string][]string) *resourceapi.ResourceClaimSpec {
	spec := &resourceapi.ResourceClaimSpec{}
	for _, name := range exact {
		spec.Devices.Requests = append(spec.Devices.Requests, resourceapi.DeviceRequest{
			Name:    name,
			Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "example"},
		})
	}
	for name, subrequests := range firstAvailable {
		request := resourceapi.DeviceRequest{Name: name}
		for _, sub := range subrequests {
			request.FirstAvailable = append(request.FirstAvailable, resourceapi.DeviceSubRequest{Name: sub, DeviceClassName: "example"})
		}
		spec.Devices.Requests = append(spec.Devices.Requests, request)
	}
	return spec
}

func TestCheckPodFindsWhatConstraintsNameOrSaysWhatExists(t *testing.T) {
	pod := podWithClaims("gpu", "nic", "pending")
	specs := map[string]*resourceapi.ResourceClaimSpec{
		"gpu": claimSpec([]string{"accel"}, map[string][]string{"flex": {"big", "small"}}),
		"nic": claimSpec([]string{"net", "mgmt"}, nil),
		// "pending" is not resolved yet.
	}
	for _, tc := range []struct {
		name   string
		value  string
		pod    *v1.Pod
		want   []string // message substrings, one per fault; none means no error
		reason error
	}{
		{name: "every request of every claim names nothing to check", value: `[{"matchAttribute":"example.com/root"}]`},
		{name: "existing claims, requests and subrequests pass", value: `[{"requests":["gpu","nic/net","gpu/accel","gpu/flex","gpu/flex/small"],"matchAttribute":"example.com/root"}]`},
		{name: "a pod claim not resolved yet is skipped", value: `[{"requests":["pending/anything/at-all","pending"],"matchAttribute":"example.com/root"}]`},
		{
			name:   "a claim the pod does not have is unknown",
			value:  `[{"requests":["gpu","gpus/accel"],"matchAttribute":"example.com/root"}]`,
			want:   []string{`constraint 0: requests[1] "gpus/accel": pod has no resource claim gpus (it has: gpu, nic, pending)`},
			reason: ErrUnknownClaim,
		},
		{
			name:   "a claim is unknown even when specs holds it, if the pod lacks it",
			value:  `[{"requests":["nic"],"matchAttribute":"example.com/root"}]`,
			pod:    podWithClaims("gpu"),
			want:   []string{`constraint 0: requests[0] "nic": pod has no resource claim nic (it has: gpu)`},
			reason: ErrUnknownClaim,
		},
		{
			name:   "a pod without claims has none to name",
			value:  `[{"requests":["gpu"],"matchAttribute":"example.com/root"}]`,
			pod:    &v1.Pod{},
			want:   []string{`pod has no resource claim gpu (it has none)`},
			reason: ErrUnknownClaim,
		},
		{
			name:   "a request the claim does not have is unknown",
			value:  `[{"requests":["gpu/acel"],"matchAttribute":"example.com/root"}]`,
			want:   []string{`constraint 0: requests[0] "gpu/acel": claim gpu has no request acel (it has: accel, flex)`},
			reason: ErrUnknownRequest,
		},
		{
			name:   "a subrequest the firstAvailable request does not have is unknown",
			value:  `[{"requests":["gpu/flex/medium"],"distinctAttribute":"example.com/uuid"}]`,
			want:   []string{`constraint 0: requests[0] "gpu/flex/medium": claim gpu request flex has no subrequest medium (it has: big, small)`},
			reason: ErrUnknownSubrequest,
		},
		{
			name:   "a subrequest of an exactly request is unknown",
			value:  `[{"requests":["gpu/accel/big"],"matchAttribute":"example.com/root"}]`,
			want:   []string{`claim gpu request accel has no subrequest big (it has none)`},
			reason: ErrUnknownSubrequest,
		},
		{
			name:  "every fault of every constraint is reported",
			value: `[{"matchAttribute":"example.com/root"},{"requests":["nic/nett","gpu/flex/huge","tpu"],"matchAttribute":"example.com/root"}]`,
			want: []string{
				`constraint 1: requests[0] "nic/nett": claim nic has no request nett (it has: net, mgmt)`,
				`constraint 1: requests[1] "gpu/flex/huge": claim gpu request flex has no subrequest huge`,
				`constraint 1: requests[2] "tpu": pod has no resource claim tpu`,
			},
			reason: ErrUnknownRequest,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			constraints, err := Parse(tc.value)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			p := pod
			if tc.pod != nil {
				p = tc.pod
			}
			err = CheckPod(constraints, p, specs)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("CheckPod: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckPod = nil, want %q", tc.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("CheckPod reported %d faults, want %d: %v", len(lines), len(tc.want), err)
			}
			for i, want := range tc.want {
				if !strings.HasPrefix(lines[i], "annotation "+Annotation+": ") || !strings.Contains(lines[i], want) {
					t.Errorf("fault %d = %q, want it to contain %q", i, lines[i], want)
				}
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("CheckPod error %T holds no *Error", err)
			}
			if !errors.Is(err, tc.reason) {
				t.Errorf("CheckPod error %v is not %v", err, tc.reason)
			}
		})
	}
}

func TestCheckPodWithoutAPodFindsEveryClaimUnknown(t *testing.T) {
	constraints := []Constraint{{Requests: []RequestRef{{PodClaim: "gpu"}}, MatchAttribute: attr("example.com/root")}}
	if err := CheckPod(constraints, nil, nil); !errors.Is(err, ErrUnknownClaim) {
		t.Errorf("CheckPod(nil pod) = %v, want %v", err, ErrUnknownClaim)
	}
	if err := CheckPod(nil, nil, nil); err != nil {
		t.Errorf("CheckPod(no constraints) = %v, want nil", err)
	}
}
