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

	resourceapi "k8s.io/api/resource/v1"
)

func attr(name string) *resourceapi.FullyQualifiedName {
	fqn := resourceapi.FullyQualifiedName(name)
	return &fqn
}

func TestParseRequestRefSplitsAClaimARequestAndASubrequest(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       RequestRef
	}{
		{"a bare pod claim names the claim only", "gpu", RequestRef{PodClaim: "gpu"}},
		{"a claim and a request name the request", "gpu/accel", RequestRef{PodClaim: "gpu", Request: "accel"}},
		{"three parts name a subrequest", "gpu/accel/big", RequestRef{PodClaim: "gpu", Request: "accel", Subrequest: "big"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRequestRef(tc.text)
			if err != nil {
				t.Fatalf("ParseRequestRef(%q): %v", tc.text, err)
			}
			if got != tc.want {
				t.Errorf("ParseRequestRef(%q) = %+v, want %+v", tc.text, got, tc.want)
			}
			if s := got.String(); s != tc.text {
				t.Errorf("String() = %q, want %q", s, tc.text)
			}
		})
	}
}

func TestParseRequestRefRefusesMalformedNames(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"an empty text", "", "must not be empty"},
		{"an empty request between slashes", "a//b", "empty request name"},
		{"an empty pod claim before a slash", "/x", "empty pod claim name"},
		{"an empty request after a slash", "a/", "empty request name"},
		{"an empty subrequest at the end", "a/b/", "empty subrequest name"},
		{"four parts", "a/b/c/d", "too many parts"},
		{"an upper-case pod claim", "Gpu", `invalid pod claim name "Gpu": a lowercase RFC 1123 label`},
		{"an underscore in a request", "gpu/my_req", `invalid request name "my_req"`},
		{"a subrequest longer than 63 characters", "gpu/accel/" + strings.Repeat("s", 64), "invalid subrequest name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRequestRef(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseRequestRef(%q) = %v, want an error containing %q", tc.text, err, tc.want)
			}
		})
	}
}

func TestCoversFollowsUpstreamRulesAcrossClaims(t *testing.T) {
	refs := func(texts ...string) []RequestRef {
		var out []RequestRef
		for _, text := range texts {
			ref, err := ParseRequestRef(text)
			if err != nil {
				t.Fatalf("ParseRequestRef(%q): %v", text, err)
			}
			out = append(out, ref)
		}
		return out
	}
	type target struct{ podClaim, request, subrequest string }
	for _, tc := range []struct {
		name     string
		requests []RequestRef
		covered  []target
		excluded []target
	}{
		{
			name:     "an empty list covers every request of every claim",
			requests: nil,
			covered:  []target{{"gpu", "accel", ""}, {"nic", "net", ""}, {"gpu", "accel", "big"}},
		},
		{
			name:     "a bare claim covers all its requests and subrequests and no other claim's",
			requests: refs("gpu"),
			covered:  []target{{"gpu", "accel", ""}, {"gpu", "other", ""}, {"gpu", "accel", "big"}},
			excluded: []target{{"nic", "net", ""}, {"gpus", "accel", ""}},
		},
		{
			name:     "a parent request covers itself and its subrequests",
			requests: refs("gpu/accel"),
			covered:  []target{{"gpu", "accel", ""}, {"gpu", "accel", "big"}, {"gpu", "accel", "small"}},
			excluded: []target{{"gpu", "other", ""}, {"nic", "accel", ""}},
		},
		{
			name:     "a subrequest covers only that subrequest",
			requests: refs("gpu/accel/big"),
			covered:  []target{{"gpu", "accel", "big"}},
			excluded: []target{{"gpu", "accel", ""}, {"gpu", "accel", "small"}, {"gpu", "other", "big"}},
		},
		{
			name:     "several entries cover the union of what each covers",
			requests: refs("gpu/accel/big", "nic"),
			covered:  []target{{"gpu", "accel", "big"}, {"nic", "net", ""}},
			excluded: []target{{"gpu", "accel", "small"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Constraint{Requests: tc.requests, MatchAttribute: attr("example.com/root")}
			for _, x := range tc.covered {
				if !c.Covers(x.podClaim, x.request, x.subrequest) {
					t.Errorf("Covers(%q, %q, %q) = false, want true", x.podClaim, x.request, x.subrequest)
				}
			}
			for _, x := range tc.excluded {
				if c.Covers(x.podClaim, x.request, x.subrequest) {
					t.Errorf("Covers(%q, %q, %q) = true, want false", x.podClaim, x.request, x.subrequest)
				}
			}
		})
	}
}

func TestAttributeReturnsWhicheverAttributeIsSet(t *testing.T) {
	if got := (Constraint{MatchAttribute: attr("example.com/m")}).Attribute(); got != "example.com/m" {
		t.Errorf("match: Attribute() = %q", got)
	}
	if got := (Constraint{DistinctAttribute: attr("example.com/d")}).Attribute(); got != "example.com/d" {
		t.Errorf("distinct: Attribute() = %q", got)
	}
	if got := (Constraint{}).Attribute(); got != "" {
		t.Errorf("neither: Attribute() = %q, want empty", got)
	}
}

func TestValidateRefusesConstraintsBuiltWrongInCode(t *testing.T) {
	valid := func() Constraint { return Constraint{MatchAttribute: attr("example.com/root")} }
	tooMany := make([]Constraint, MaxConstraints+1)
	for i := range tooMany {
		tooMany[i] = valid()
	}
	for _, tc := range []struct {
		name        string
		constraints []Constraint
		want        string
	}{
		{"a subrequest without a request", []Constraint{{Requests: []RequestRef{{PodClaim: "gpu", Subrequest: "big"}}, MatchAttribute: attr("example.com/a")}},
			`constraint 0: requests[0] "gpu//big": empty request name`},
		{"a pod claim holding a slash", []Constraint{valid(), {Requests: []RequestRef{{PodClaim: "gpu/accel"}}, MatchAttribute: attr("example.com/a")}},
			`constraint 1: requests[0] "gpu/accel": invalid pod claim name "gpu/accel"`},
		{"a request ref without a pod claim", []Constraint{{Requests: []RequestRef{{Request: "accel"}}, MatchAttribute: attr("example.com/a")}},
			`constraint 0: requests[0] "/accel": empty pod claim name`},
		{"the same request twice", []Constraint{{Requests: []RequestRef{{PodClaim: "gpu"}, {PodClaim: "gpu"}}, MatchAttribute: attr("example.com/a")}},
			`constraint 0: requests[1] "gpu": duplicate of requests[0]`},
		{"no attribute", []Constraint{{}}, "constraint 0: exactly one of matchAttribute or distinctAttribute is required, neither is set"},
		{"more constraints than allowed", tooMany, "33 constraints, at most 32 allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.constraints)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("Validate() error %T is not an *Error", err)
			}
			if _, err := Marshal(tc.constraints); err == nil {
				t.Errorf("Marshal() accepted what Validate refuses")
			}
		})
	}
}
