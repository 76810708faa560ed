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

package allocationcheck

import (
	"testing"

	resourceapi "k8s.io/api/resource/v1"
)

func classConfig(params ...string) []resourceapi.DeviceClassConfiguration {
	var out []resourceapi.DeviceClassConfiguration
	for _, p := range params {
		out = append(out, resourceapi.DeviceClassConfiguration{DeviceConfiguration: opaque(p)})
	}
	return out
}

func claimConfig(params string, requests ...string) resourceapi.DeviceClaimConfiguration {
	return resourceapi.DeviceClaimConfiguration{Requests: requests, DeviceConfiguration: opaque(params)}
}

func fromClass(params string, requests ...string) resourceapi.DeviceAllocationConfiguration {
	return resourceapi.DeviceAllocationConfiguration{Source: resourceapi.AllocationConfigSourceClass, Requests: requests, DeviceConfiguration: opaque(params)}
}

func fromClaim(params string, requests ...string) resourceapi.DeviceAllocationConfiguration {
	return resourceapi.DeviceAllocationConfiguration{Source: resourceapi.AllocationConfigSourceClaim, Requests: requests, DeviceConfiguration: opaque(params)}
}

// configured: class gpu has configs c1, c2 and class other has o1. claim-0
// asks for req-0 (gpu) and req-1 (subrequest big of class gpu, else small of
// class other) and configures x0 for all, x1 for req-1/big, x2 for
// req-1/small and x3 for req-0. req-1/small is allocated, so x1 does not
// apply.
func configured() *fixture {
	f := newFixture()
	f.classes[0].Spec.Config = classConfig(`{"c":1}`, `{"c":2}`)
	other := f.addClass(class("other", `device.driver == "dra.example.com"`))
	other.Spec.Config = classConfig(`{"o":1}`)
	claim := f.claim("claim-0", exact("req-0", "gpu", 1), firstAvailable("req-1", sub("big", "gpu", 8), sub("small", "other", 1)))
	claim.Spec.Devices.Config = []resourceapi.DeviceClaimConfiguration{
		claimConfig(`{"x":0}`),
		claimConfig(`{"x":1}`, "req-1/big"),
		claimConfig(`{"x":2}`, "req-1/small"),
		claimConfig(`{"x":3}`, "req-0"),
	}
	r := f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"), got("req-1/small", thisNode, "gpu-1"))
	r.Devices.Config = []resourceapi.DeviceAllocationConfiguration{
		fromClass(`{"c":1}`, "req-0"),
		fromClass(`{"c":2}`, "req-0"),
		fromClass(`{"o":1}`, "req-1/small"),
		fromClaim(`{"x":0}`),
		fromClaim(`{"x":2}`, "req-1/small"),
		fromClaim(`{"x":3}`, "req-0"),
	}
	return f
}

func (f *fixture) config(i int) []resourceapi.DeviceAllocationConfiguration {
	return f.results[i].Devices.Config
}

func TestConfig(t *testing.T) {
	runCheckCases(t, CheckConfig, []checkCase{
		{
			name:  "class configs followed by the applicable claim configs pass",
			build: configured,
		},
		{
			name: "a class config covering every request may omit the request names",
			build: func() *fixture {
				f := oneGPU()
				f.classes[0].Spec.Config = classConfig(`{"c":1}`)
				f.results[0].Devices.Config = []resourceapi.DeviceAllocationConfiguration{fromClass(`{"c":1}`)}
				return f
			},
		},
		{
			name: "a class config may name the plain request instead of the chosen subrequest",
			build: func() *fixture {
				f := configured()
				f.config(0)[2].Requests = []string{"req-1"}
				return f
			},
		},
		{
			name: "class configs of different classes may come in any order",
			build: func() *fixture {
				f := configured()
				c := f.config(0)
				c[0], c[1], c[2] = c[2], c[0], c[1]
				return f
			},
		},
		{
			name: "a missing class config is reported",
			build: func() *fixture {
				f := configured()
				f.results[0].Devices.Config = append(f.config(0)[:1], f.config(0)[2:]...)
				return f
			},
			want: `claim default/claim-0: config #1 of class gpu is missing: want source FromClass, applying to requests ["req-0"]`,
		},
		{
			name: "a missing claim config is reported",
			build: func() *fixture {
				f := configured()
				f.results[0].Devices.Config = f.config(0)[:5]
				return f
			},
			want: `claim config #3 is missing: want source FromClaim, applying to requests ["req-0"]`,
		},
		{
			name: "a class config after a claim config is reported",
			build: func() *fixture {
				f := configured()
				c := f.config(0)
				c[2], c[3] = c[3], c[2]
				return f
			},
			want: "config entry #3 comes from a class, but follows an entry from the claim",
		},
		{
			name: "claim configs out of the claim's order are reported",
			build: func() *fixture {
				f := configured()
				c := f.config(0)
				c[4], c[5] = c[5], c[4]
				return f
			},
			want: "config entry #5 (claim config #2) is out of order",
		},
		{
			name: "a claim config for a subrequest that was not chosen is reported",
			build: func() *fixture {
				f := configured()
				f.results[0].Devices.Config = append(f.config(0), fromClaim(`{"x":1}`, "req-1/big"))
				return f
			},
			want: `config entry #6 (source FromClaim, requests ["req-1/big"]) is not a class or claim config that applies as given`,
		},
		{
			name: "a class config applying to requests that do not use the class is reported",
			build: func() *fixture {
				f := configured()
				f.config(0)[0].Requests = nil
				return f
			},
			want: `config entry #0 (source FromClass, requests []) is not a class or claim config that applies as given`,
		},
		{
			name: "a class config passed on as claim config is reported",
			build: func() *fixture {
				f := configured()
				f.config(0)[0].Source = resourceapi.AllocationConfigSourceClaim
				return f
			},
			want: "config #0 of class gpu is missing",
		},
	})
}
