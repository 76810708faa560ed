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
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Annotation is the key of the annotation, on a Pod or a PodGroup, whose
// value lists the constraints.
const Annotation = "dra-scheduler.io/device-constraints"

// MaxConstraints is the most constraints one annotation may hold.
const MaxConstraints = 32

// RequestRef names what a constraint covers: a pod claim, a request of it,
// or a subrequest of a firstAvailable request of it.
type RequestRef struct {
	// PodClaim is the pod's spec.resourceClaims[].name.
	PodClaim string
	// Request is the name of a request in the claim's spec; empty means
	// every request of PodClaim.
	Request string
	// Subrequest is the name of a firstAvailable subrequest of Request;
	// empty means Request and all its subrequests.
	Subrequest string
}

// String gives back the text form, "<pod claim>[/<request>[/<subrequest>]]".
func (r RequestRef) String() string {
	s := r.PodClaim
	if r.Request != "" || r.Subrequest != "" {
		s += "/" + r.Request
	}
	if r.Subrequest != "" {
		s += "/" + r.Subrequest
	}
	return s
}

// covers reports whether r names the request (or subrequest, when
// subrequest is not empty) request of podClaim.
func (r RequestRef) covers(podClaim, request, subrequest string) bool {
	switch {
	case r.PodClaim != podClaim:
		return false
	case r.Request == "":
		return true
	case r.Request != request:
		return false
	default:
		return r.Subrequest == "" || r.Subrequest == subrequest
	}
}

// ParseRequestRef parses "<pod claim>[/<request>[/<subrequest>]]", each
// part a DNS label. Its errors say what is wrong with s without quoting it.
func ParseRequestRef(s string) (RequestRef, error) {
	if s == "" {
		return RequestRef{}, errors.New("must not be empty")
	}
	parts := strings.Split(s, "/")
	if len(parts) > 3 {
		return RequestRef{}, errors.New("too many parts: want <pod claim>[/<request>[/<subrequest>]]")
	}
	for i, part := range parts {
		if part == "" {
			return RequestRef{}, fmt.Errorf("empty %s name", refPartName(i))
		}
	}
	var ref RequestRef
	ref.PodClaim = parts[0]
	if len(parts) > 1 {
		ref.Request = parts[1]
	}
	if len(parts) > 2 {
		ref.Subrequest = parts[2]
	}
	if err := ref.validate(); err != nil {
		return RequestRef{}, err
	}
	return ref, nil
}

// refPartName names part i of a RequestRef's text form.
func refPartName(i int) string {
	switch i {
	case 0:
		return "pod claim"
	case 1:
		return "request"
	default:
		return "subrequest"
	}
}

// validate checks that every part r has is a DNS label, that r has a pod
// claim, and a request if it has a subrequest.
func (r RequestRef) validate() error {
	switch {
	case r.PodClaim == "":
		return fmt.Errorf("empty %s name", refPartName(0))
	case r.Request == "" && r.Subrequest != "":
		return fmt.Errorf("empty %s name", refPartName(1))
	}
	for i, part := range [...]string{r.PodClaim, r.Request, r.Subrequest} {
		if part == "" {
			continue
		}
		if msgs := content.IsDNS1123Label(part); len(msgs) > 0 {
			return fmt.Errorf("invalid %s name %q: %s", refPartName(i), part, strings.Join(msgs, "; "))
		}
	}
	return nil
}

// Constraint ties the devices allocated for the requests it covers: they
// must all have the same value of MatchAttribute, or pairwise different
// values of DistinctAttribute. Exactly one of the two is set.
type Constraint struct {
	// Requests lists what the constraint covers; nil (or empty) means every
	// request of every claim.
	Requests []RequestRef
	// MatchAttribute, when set, is the attribute whose value the covered
	// devices must share.
	MatchAttribute *resourceapi.FullyQualifiedName
	// DistinctAttribute, when set, is the attribute whose value the covered
	// devices must not share.
	DistinctAttribute *resourceapi.FullyQualifiedName
}

// Attribute returns the one attribute set, MatchAttribute or
// DistinctAttribute; empty if neither is (an invalid Constraint).
func (c Constraint) Attribute() resourceapi.FullyQualifiedName {
	switch {
	case c.MatchAttribute != nil:
		return *c.MatchAttribute
	case c.DistinctAttribute != nil:
		return *c.DistinctAttribute
	default:
		return ""
	}
}

// Covers reports whether c applies to the devices allocated for request
// of the pod claim podClaim, or, when subrequest is not empty, for that
// firstAvailable subrequest of request. An empty Requests covers
// everything; a bare pod claim covers all its requests and subrequests; a
// request covers itself and its subrequests; "claim/request/subrequest"
// covers only that subrequest.
func (c Constraint) Covers(podClaim, request, subrequest string) bool {
	if len(c.Requests) == 0 {
		return true
	}
	for _, ref := range c.Requests {
		if ref.covers(podClaim, request, subrequest) {
			return true
		}
	}
	return false
}

// Validate checks constraints as Parse checks a value: at most
// MaxConstraints, each with exactly one valid attribute and distinct,
// well-formed requests. Its error is an *Error for the first fault.
func Validate(constraints []Constraint) error {
	if err := checkCount(len(constraints)); err != nil {
		return err
	}
	for i, c := range constraints {
		for j, ref := range c.Requests {
			if err := ref.validate(); err != nil {
				return &Error{Constraint: i, Field: requestsField(j), Value: ref.String(), Err: err}
			}
		}
		if err := c.validate(i); err != nil {
			return err
		}
	}
	return nil
}

// checkCount refuses more than MaxConstraints constraints.
func checkCount(n int) error {
	if n > MaxConstraints {
		return valueError(fmt.Errorf("%d constraints, at most %d allowed", n, MaxConstraints))
	}
	return nil
}

// validate checks c, constraint i, given that each of its requests is
// well-formed: no request twice, and exactly one valid attribute.
func (c Constraint) validate(i int) error {
	seen := make(map[RequestRef]int, len(c.Requests))
	for j, ref := range c.Requests {
		if first, dup := seen[ref]; dup {
			return &Error{Constraint: i, Field: requestsField(j), Value: ref.String(),
				Err: fmt.Errorf("duplicate of %s", requestsField(first))}
		}
		seen[ref] = j
	}
	switch {
	case c.MatchAttribute != nil && c.DistinctAttribute != nil:
		return &Error{Constraint: i, Err: fmt.Errorf("exactly one of %s or %s is required, both are set", fieldMatchAttribute, fieldDistinctAttribute)}
	case c.MatchAttribute != nil:
		return validateAttribute(i, fieldMatchAttribute, *c.MatchAttribute)
	case c.DistinctAttribute != nil:
		return validateAttribute(i, fieldDistinctAttribute, *c.DistinctAttribute)
	default:
		return &Error{Constraint: i, Err: fmt.Errorf("exactly one of %s or %s is required, neither is set", fieldMatchAttribute, fieldDistinctAttribute)}
	}
}

// Field names of a constraint, as in the annotation.
const (
	fieldRequests          = "requests"
	fieldMatchAttribute    = "matchAttribute"
	fieldDistinctAttribute = "distinctAttribute"
)

// requestsField is the path of the j-th entry of requests.
func requestsField(j int) string {
	return fmt.Sprintf("%s[%d]", fieldRequests, j)
}

// validateAttribute checks the attribute name of fieldName of constraint i
// with upstream's rule for DeviceConstraint.MatchAttribute (see the package
// documentation), refusing more than one "/" too.
func validateAttribute(i int, fieldName string, name resourceapi.FullyQualifiedName) error {
	fault := func(err error) error {
		return &Error{Constraint: i, Field: fieldName, Value: string(name), Err: err}
	}
	if name == "" {
		return fault(errors.New("must not be empty"))
	}
	errs := validate.ResourceFullyQualifiedName(context.Background(), operation.Operation{Type: operation.Create},
		field.NewPath(fieldName), &name, nil)
	if len(errs) > 0 {
		return fault(&attributeError{errs: errs})
	}
	if strings.Count(string(name), "/") > 1 {
		return fault(errors.New("a fully qualified name must be a domain and a name separated by a single slash"))
	}
	return nil
}

// attributeError carries upstream's field errors, showing only their details
// since the *Error around it already names the field and the value.
type attributeError struct {
	errs field.ErrorList
}

func (e *attributeError) Error() string {
	details := make([]string, 0, len(e.errs))
	for _, err := range e.errs {
		if d := err.Detail; d != "" && !slices.Contains(details, d) {
			details = append(details, d)
		}
	}
	if len(details) == 0 {
		return "invalid fully qualified name"
	}
	return strings.Join(details, "; ")
}

// Unwrap returns upstream's field errors.
func (e *attributeError) Unwrap() []error {
	errs := make([]error, len(e.errs))
	for i, err := range e.errs {
		errs[i] = err
	}
	return errs
}
