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

package celmatch

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/interpreter"

	apiservercel "k8s.io/apiserver/pkg/cel"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// Selector is a compiled CEL device selector. It wraps the cel.Program that
// upstream compiled, so the environment, libraries, runtime cost limit and
// interrupt check frequency are upstream's. A Selector is immutable and safe
// for concurrent use.
type Selector struct {
	expression string
	result     dracel.CompilationResult

	// capacity is true if the expression may reach device.capacity, in
	// which case each evaluation gets its own view of the quantities.
	capacity bool
}

// Compile compiles (or looks up) the expression with upstream's cache, the
// same call the DRA allocator makes, and wraps the result.
func Compile(cache *dracel.Cache, expression string) (*Selector, error) {
	return NewSelector(cache.GetOrCompile(expression))
}

// NewSelector wraps an upstream compilation result, for example one from
// dracel.GetCompiler(features).CompileCELExpression with non-default options.
// A result with an error is reported as a *CompileError, like the allocator
// does, even if it has a program (cost estimation can fail after compiling).
func NewSelector(result dracel.CompilationResult) (*Selector, error) {
	if result.Error != nil {
		return nil, &CompileError{Expression: result.Expression, Err: result.Error}
	}
	if result.Program == nil {
		return nil, &CompileError{Expression: result.Expression, Err: &apiservercel.Error{
			Type: apiservercel.ErrorTypeInternal, Detail: "compilation result has no program",
		}}
	}
	return &Selector{
		expression: result.Expression,
		result:     result,
		capacity:   referencesCapacity(result.Environment, result.Expression),
	}, nil
}

// Expression returns the CEL source.
func (s *Selector) Expression() string { return s.expression }

// CompilationResult returns the upstream compilation result.
func (s *Selector) CompilationResult() dracel.CompilationResult { return s.result }

// Matches evaluates the selector for the device. It returns the same
// decision as upstream's CompilationResult.DeviceMatches for the device the
// Activation was built from. Errors are *EvalError.
func (s *Selector) Matches(ctx context.Context, a *Activation) (bool, error) {
	match, _, err := s.MatchesWithDetails(ctx, a)
	return match, err
}

var boolType = reflect.TypeOf(true)

// MatchesWithDetails is Matches plus the evaluation details (for example the
// actual cost), which DeviceMatches also returns. Details are nil when the
// device itself is invalid, as upstream.
func (s *Selector) MatchesWithDetails(ctx context.Context, a *Activation) (bool, *cel.EvalDetails, error) {
	if a.err != nil {
		return false, nil, s.evalError(a.err)
	}
	var input interpreter.Activation = (*sharedInput)(a)
	if s.capacity && len(a.capacity.domains) > 0 {
		input = a.newEvalInput()
	}

	// From here on the result handling and error texts are DeviceMatches'.
	result, details, err := s.result.Program.ContextEval(ctx, input)
	if err != nil {
		// CEL does not wrap the context error. We have to deduce why it failed.
		// See https://github.com/google/cel-go/issues/1195.
		if strings.Contains(err.Error(), "operation interrupted") && ctx.Err() != nil {
			return false, details, s.evalError(fmt.Errorf("%w: %w", err, context.Cause(ctx)))
		}
		return false, details, s.evalError(err)
	}
	resultAny, err := result.ConvertToNative(boolType)
	if err != nil {
		return false, details, s.evalError(fmt.Errorf("CEL result of type %s could not be converted to bool: %w", result.Type().TypeName(), err))
	}
	resultBool, ok := resultAny.(bool)
	if !ok {
		return false, details, s.evalError(fmt.Errorf("CEL native result value should have been a bool, got instead: %T", resultAny))
	}
	return resultBool, details, nil
}

func (s *Selector) evalError(err error) error {
	return &EvalError{Expression: s.expression, Err: err}
}

// CompileError reports an expression that upstream could not compile.
type CompileError struct {
	Expression string
	// Err is upstream's CompilationResult.Error.
	Err *apiservercel.Error
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("CEL selector %q: compile error: %v", e.Expression, e.Err)
}

// Unwrap makes errors.Is(err, apiservercel.ErrInvalid) etc. work.
func (e *CompileError) Unwrap() error { return e.Err }

// EvalError reports that a selector could not be evaluated for a device.
type EvalError struct {
	Expression string
	// Err is the error that DeviceMatches returns for the same expression
	// and device, with the same text.
	Err error
}

// Error names the expression and, like the DRA allocator, adds upstream's
// hint for missing keys (dracel.EnhanceRuntimeError).
func (e *EvalError) Error() string {
	return fmt.Sprintf("CEL selector %q: runtime error: %v", e.Expression, dracel.EnhanceRuntimeError(e.Err))
}

// Unwrap returns the DeviceMatches-equivalent error; context errors stay
// visible to errors.Is.
func (e *EvalError) Unwrap() error { return e.Err }

// IsEvalError reports whether err is (or wraps) an *EvalError.
func IsEvalError(err error) bool {
	var e *EvalError
	return errors.As(err, &e)
}

// referencesCapacity reports whether the expression may reach
// device.capacity. It is conservative: false only if every reference to the
// "device" identifier is directly the operand of a selection of a field
// other than "capacity". Any other use (bind, dyn(), lists, optional
// selection, a comprehension variable called device, ...) counts as a
// reference. Parsing does not depend on the checked types, and macros are
// already expanded in the parsed AST.
func referencesCapacity(env *cel.Env, expression string) bool {
	if env == nil {
		return true
	}
	parsed, issues := env.Parse(expression)
	if issues != nil && issues.Err() != nil {
		return true
	}
	root := celast.NavigateAST(parsed.NativeRep())
	for _, ident := range celast.MatchDescendants(root, celast.KindMatcher(celast.IdentKind)) {
		if strings.TrimPrefix(ident.AsIdent(), ".") != deviceVar {
			continue
		}
		parent, ok := ident.Parent()
		if !ok || parent.Kind() != celast.SelectKind {
			return true
		}
		if parent.AsSelect().FieldName() == capacityVar {
			return true
		}
	}
	return false
}
