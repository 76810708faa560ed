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
	"fmt"
	"strings"
)

// Reasons CheckPod reports, for errors.Is. Each is wrapped by the Err of
// an *Error, whose message says what was named and what exists.
var (
	// ErrUnknownClaim means a constraint names a pod claim the pod does not have.
	ErrUnknownClaim = errors.New("unknown pod claim")
	// ErrUnknownRequest means a constraint names a request its claim does not have.
	ErrUnknownRequest = errors.New("unknown request")
	// ErrUnknownSubrequest means a constraint names a subrequest its request does not have.
	ErrUnknownSubrequest = errors.New("unknown subrequest")
)

// NoConstraint is the Constraint index of an *Error about the annotation's
// value as a whole rather than about one of its constraints.
const NoConstraint = -1

// Error is the error Parse, Of, Validate, Marshal and CheckPod return: a
// fault of the annotation's value, located by constraint index and field.
type Error struct {
	// Constraint is the index of the constraint at fault in the list, or
	// NoConstraint when the fault is with the value as a whole.
	Constraint int
	// Field is the path of the field at fault within the constraint, such
	// as "requests[1]" or "matchAttribute"; empty when the fault is with
	// the constraint (or the value) as a whole.
	Field string
	// Value is the offending text of Field, shown quoted; empty when there
	// is none worth showing.
	Value string
	// Err says what is wrong.
	Err error
}

// Error reads, for example:
//
//	annotation dra-scheduler.io/device-constraints: constraint 2: requests[1] "a//b": empty request name
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("annotation " + Annotation + ": ")
	if e.Constraint != NoConstraint {
		fmt.Fprintf(&b, "constraint %d: ", e.Constraint)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		if e.Value != "" {
			fmt.Fprintf(&b, " %q", e.Value)
		}
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// valueError is a fault of the value as a whole.
func valueError(err error) *Error {
	return &Error{Constraint: NoConstraint, Err: err}
}

// reasonError is a message that wraps a reason (one of the Err* sentinels,
// or an error whose text it rephrases) without repeating the reason's text.
type reasonError struct {
	reason  error
	message string
}

func (e *reasonError) Error() string { return e.message }
func (e *reasonError) Unwrap() error { return e.reason }

// because returns an error reading message that errors.Is reason.
func because(reason error, format string, args ...any) error {
	return &reasonError{reason: reason, message: fmt.Sprintf(format, args...)}
}
