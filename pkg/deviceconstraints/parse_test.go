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
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParseReadsJSONAndYAMLAlike(t *testing.T) {
	want := []Constraint{
		{
			Requests:       []RequestRef{{PodClaim: "gpu", Request: "accel"}, {PodClaim: "nic", Request: "net"}},
			MatchAttribute: attr("resource.kubernetes.io/pcieRoot"),
		},
		{
			Requests:          []RequestRef{{PodClaim: "gpu"}},
			DistinctAttribute: attr("gpu.example.com/uuid"),
		},
		{
			MatchAttribute: attr("example.com/numa"),
		},
	}
	for _, tc := range []struct {
		name, value string
	}{
		{"compact JSON", `[{"requests":["gpu/accel","nic/net"],"matchAttribute":"resource.kubernetes.io/pcieRoot"},{"requests":["gpu"],"distinctAttribute":"gpu.example.com/uuid"},{"matchAttribute":"example.com/numa"}]`},
		{"JSON indented with tabs, which YAML would refuse", "[\n\t{\"requests\": [\"gpu/accel\", \"nic/net\"], \"matchAttribute\": \"resource.kubernetes.io/pcieRoot\"},\n\t{\"requests\": [\"gpu\"], \"distinctAttribute\": \"gpu.example.com/uuid\"},\n\t{\"matchAttribute\": \"example.com/numa\"}\n]"},
		{"JSON with null and empty requests meaning every request", `[{"requests":["gpu/accel","nic/net"],"matchAttribute":"resource.kubernetes.io/pcieRoot","distinctAttribute":null},{"requests":["gpu"],"distinctAttribute":"gpu.example.com/uuid"},{"requests":[],"matchAttribute":"example.com/numa"}]`},
		{"block YAML", `
- requests: [gpu/accel, nic/net]
  matchAttribute: resource.kubernetes.io/pcieRoot
- requests:
  - gpu
  distinctAttribute: gpu.example.com/uuid
- matchAttribute: example.com/numa
  requests: null
`},
		{"flow YAML without quotes", `[{requests: [gpu/accel, nic/net], matchAttribute: resource.kubernetes.io/pcieRoot}, {requests: [gpu], distinctAttribute: gpu.example.com/uuid}, {matchAttribute: example.com/numa}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.value)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Parse = %v, want %v", got, want)
			}
		})
	}
}

func TestParseReadsAnEmptyListAsNoConstraints(t *testing.T) {
	for _, value := range []string{"[]", " [ ] ", "[]\n"} {
		got, err := Parse(value)
		if err != nil || got != nil {
			t.Errorf("Parse(%q) = %v, %v; want nil, nil", value, got, err)
		}
	}
}

func TestParseAcceptsExactlyMaxConstraints(t *testing.T) {
	value := "[" + strings.TrimSuffix(strings.Repeat(`{"matchAttribute":"example.com/a"},`, MaxConstraints), ",") + "]"
	got, err := Parse(value)
	if err != nil || len(got) != MaxConstraints {
		t.Fatalf("Parse of %d constraints = %d, %v", MaxConstraints, len(got), err)
	}
}

func TestParseRefusesWithAMessageNamingConstraintAndField(t *testing.T) {
	const ok = `"matchAttribute":"example.com/root"`
	for _, tc := range []struct {
		name, value string
		// want is a substring of the message after the annotation prefix.
		want       string
		constraint int
		field      string
	}{
		{"an empty value", "  ", "empty value: want a list of constraints ([] for none)", NoConstraint, ""},
		{"an unparsable value", `[{"requests": [`, "not valid JSON or YAML: yaml:", NoConstraint, ""},
		{"a YAML duplicate key, on one line", "- requests: [gpu]\n  requests: [nic]\n  matchAttribute: a.com/b\n", `not valid JSON or YAML: yaml: unmarshal errors: line 2: key "requests" already set in map`, NoConstraint, ""},
		{"an object instead of a list", `{` + ok + `}`, "must be a list of constraints, got an object", NoConstraint, ""},
		{"a string instead of a list", `gpu`, "must be a list of constraints, got a string", NoConstraint, ""},
		{"null instead of a list", `null`, "must be a list of constraints, got null", NoConstraint, ""},
		{"more than MaxConstraints constraints", "[" + strings.TrimSuffix(strings.Repeat("{"+ok+"},", MaxConstraints+1), ",") + "]", "33 constraints, at most 32 allowed", NoConstraint, ""},
		{"an entry that is a string", `[{` + ok + `}, "gpu"]`, "constraint 1: must be an object, got a string", 1, ""},
		{"an entry that is a list", `[[` + ok + `]]`, "constraint 0: must be an object, got a list", 0, ""},
		{"a misspelt field", `[{"requests":["gpu"],"matchAtribute":"example.com/root"}]`, `constraint 0: unknown field "matchAtribute" (known: requests, matchAttribute, distinctAttribute)`, 0, ""},
		{"a misspelt field set to null", `[{` + ok + `,"request":null}]`, `constraint 0: unknown field "request"`, 0, ""},
		{"a field in the wrong case", `[{"MatchAttribute":"example.com/root"}]`, `constraint 0: unknown field "MatchAttribute"`, 0, ""},
		{"a field given twice in JSON", `[{` + ok + `,` + ok + `}]`, `constraint 0: duplicate field "matchAttribute"`, 0, ""},
		{"both attributes", `[{` + ok + `,"distinctAttribute":"example.com/uuid"}]`, "constraint 0: exactly one of matchAttribute or distinctAttribute is required, both are set", 0, ""},
		{"neither attribute", `[{` + ok + `},{"requests":["gpu"]}]`, "constraint 1: exactly one of matchAttribute or distinctAttribute is required, neither is set", 1, ""},
		{"an empty attribute", `[{"matchAttribute":""}]`, "constraint 0: matchAttribute: must not be empty", 0, "matchAttribute"},
		{"an unqualified attribute", `[{"distinctAttribute":"pcieRoot"}]`, `constraint 0: distinctAttribute "pcieRoot": a fully qualified name must be a domain and a name separated by a slash`, 0, "distinctAttribute"},
		{"an attribute with an empty domain", `[{"matchAttribute":"/pcieRoot"}]`, `matchAttribute "/pcieRoot": prefix must not be empty`, 0, "matchAttribute"},
		{"an attribute with an empty name", `[{"matchAttribute":"example.com/"}]`, `matchAttribute "example.com/": name must not be empty`, 0, "matchAttribute"},
		{"an attribute with an upper-case domain", `[{"matchAttribute":"Example.com/root"}]`, `matchAttribute "Example.com/root": prefix: a lowercase RFC 1123 subdomain`, 0, "matchAttribute"},
		{"an attribute whose name is no C identifier", `[{"matchAttribute":"example.com/pcie-root"}]`, `matchAttribute "example.com/pcie-root": a valid C identifier`, 0, "matchAttribute"},
		{"an attribute whose name is too long", `[{"matchAttribute":"example.com/` + strings.Repeat("a", 33) + `"}]`, "may not be more than 32 bytes", 0, "matchAttribute"},
		{"an attribute whose domain is too long", `[{"matchAttribute":"` + strings.Repeat("a", 64) + `/root"}]`, "may not be more than 63 bytes", 0, "matchAttribute"},
		{"an attribute with two slashes", `[{"matchAttribute":"example.com/a/b"}]`, `matchAttribute "example.com/a/b": a fully qualified name must be a domain and a name separated by a single slash`, 0, "matchAttribute"},
		{"an attribute that is a number", `[{"matchAttribute":7}]`, "constraint 0: matchAttribute: must be a string, got a number", 0, "matchAttribute"},
		{"requests that are a string", `[{"requests":"gpu",` + ok + `}]`, "constraint 0: requests: must be a list of strings, got a string", 0, "requests"},
		{"a request that is a number", `[{"requests":["gpu",1],` + ok + `}]`, "constraint 0: requests[1]: must be a string, got a number", 0, "requests[1]"},
		{"an empty request entry", `[{"requests":[""],` + ok + `}]`, "constraint 0: requests[0]: must not be empty", 0, "requests[0]"},
		{"an empty request name", `[{` + ok + `},{` + ok + `},{"requests":["gpu","a//b"],` + ok + `}]`, `constraint 2: requests[1] "a//b": empty request name`, 2, "requests[1]"},
		{"an empty pod claim name", `[{"requests":["/x"],` + ok + `}]`, `constraint 0: requests[0] "/x": empty pod claim name`, 0, "requests[0]"},
		{"a trailing slash", `[{"requests":["gpu/"],` + ok + `}]`, `constraint 0: requests[0] "gpu/": empty request name`, 0, "requests[0]"},
		{"too many parts", `[{"requests":["a/b/c/d"],` + ok + `}]`, `constraint 0: requests[0] "a/b/c/d": too many parts: want <pod claim>[/<request>[/<subrequest>]]`, 0, "requests[0]"},
		{"a pod claim that is no DNS label", `[{"requests":["GPU/accel"],` + ok + `}]`, `constraint 0: requests[0] "GPU/accel": invalid pod claim name "GPU": a lowercase RFC 1123 label`, 0, "requests[0]"},
		{"a request that is no DNS label", `[{"requests":["gpu/ac.cel"],` + ok + `}]`, `invalid request name "ac.cel"`, 0, "requests[0]"},
		{"a subrequest longer than 63", `[{"requests":["gpu/accel/` + strings.Repeat("b", 64) + `"],` + ok + `}]`, `invalid subrequest name "bbbb`, 0, "requests[0]"},
		{"a request given twice", `[{"requests":["gpu/accel","nic","gpu/accel"],` + ok + `}]`, `constraint 0: requests[2] "gpu/accel": duplicate of requests[0]`, 0, "requests[2]"},
		{"a YAML request that YAML reads as a boolean", "- requests: [yes]\n  matchAttribute: example.com/root\n", "constraint 0: requests[0]: must be a string, got a boolean", 0, "requests[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.value)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", tc.value, got)
			}
			if got != nil {
				t.Errorf("Parse returned constraints %v along with its error", got)
			}
			const prefix = "annotation dra-scheduler.io/device-constraints: "
			msg := err.Error()
			if !strings.HasPrefix(msg, prefix) {
				t.Errorf("message %q does not start with %q", msg, prefix)
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q does not contain %q", msg, tc.want)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message %q spans lines", msg)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error", err)
			}
			if e.Constraint != tc.constraint || e.Field != tc.field {
				t.Errorf("*Error at constraint %d field %q, want constraint %d field %q", e.Constraint, e.Field, tc.constraint, tc.field)
			}
		})
	}
}

func TestParseErrorsWrapTheirCause(t *testing.T) {
	_, err := Parse(`[{"matchAttribute":"Example.com/root"}]`)
	var e *Error
	if !errors.As(err, &e) || e.Err == nil || errors.Unwrap(err) != e.Err {
		t.Fatalf("Parse error %v does not unwrap to its cause", err)
	}
	_, err = Parse(`[{`)
	if !errors.As(err, &e) || errors.Unwrap(e.Err) == nil {
		t.Errorf("the YAML error is not wrapped: %v", err)
	}
}

func TestOfReadsTheAnnotationOfPodsAndPodGroups(t *testing.T) {
	const value = `[{"requests":["gpu"],"matchAttribute":"example.com/root"}]`
	want := []Constraint{{Requests: []RequestRef{{PodClaim: "gpu"}}, MatchAttribute: attr("example.com/root")}}
	for _, tc := range []struct {
		name      string
		obj       metav1.Object
		want      []Constraint
		wantFound bool
		wantErr   string
	}{
		{"a pod with the annotation", &v1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{Annotation: value}}}, want, true, ""},
		{"a pod group with the annotation", &schedulingapi.PodGroup{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{Annotation: value}}}, want, true, ""},
		{"a pod without annotations", &v1.Pod{}, nil, false, ""},
		{"a pod with other annotations only", &v1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"other": value}}}, nil, false, ""},
		{"a pod with an invalid annotation", &v1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{Annotation: `[{}]`}}}, nil, true, "neither is set"},
		{"no object", nil, nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, found, err := Of(tc.obj)
			if found != tc.wantFound || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Of = %v, %v; want %v, %v", got, found, tc.want, tc.wantFound)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Of error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestMarshalWritesCompactJSONThatParsesBack(t *testing.T) {
	for _, tc := range []struct {
		name        string
		constraints []Constraint
		want        string
	}{
		{"no constraints", nil, `[]`},
		{"every request", []Constraint{{MatchAttribute: attr("example.com/root")}}, `[{"matchAttribute":"example.com/root"}]`},
		{"claims, requests and subrequests", []Constraint{{
			Requests:          []RequestRef{{PodClaim: "gpu"}, {PodClaim: "nic", Request: "net"}, {PodClaim: "gpu", Request: "accel", Subrequest: "big"}},
			DistinctAttribute: attr("gpu.example.com/uuid"),
		}}, `[{"requests":["gpu","nic/net","gpu/accel/big"],"distinctAttribute":"gpu.example.com/uuid"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Marshal(tc.constraints)
			if err != nil || got != tc.want {
				t.Fatalf("Marshal = %q, %v; want %q", got, err, tc.want)
			}
			back, err := Parse(got)
			if err != nil || !reflect.DeepEqual(back, tc.constraints) {
				t.Errorf("Parse(Marshal) = %v, %v; want %v", back, err, tc.constraints)
			}
		})
	}
}

func TestConstraintStringIsItsMarshalledObject(t *testing.T) {
	c := Constraint{Requests: []RequestRef{{PodClaim: "gpu"}}, MatchAttribute: attr("example.com/root")}
	if got, want := c.String(), `{"requests":["gpu"],"matchAttribute":"example.com/root"}`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := (Constraint{}).String(), "<invalid: constraint 0: exactly one of matchAttribute or distinctAttribute is required, neither is set>"; got != want {
		t.Errorf("String() of an invalid constraint = %q, want %q", got, want)
	}
}
