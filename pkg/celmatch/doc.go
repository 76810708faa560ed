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

// Package celmatch evaluates DRA device selectors (CEL expressions from
// DeviceClasses and ResourceClaims) against devices with exactly the
// semantics of k8s.io/dynamic-resource-allocation/cel, but without rebuilding
// the CEL input for every evaluation.
//
// # Problem
//
// Upstream's CompilationResult.DeviceMatches converts the device's attributes
// and capacities into nested maps on every call. That conversion is most of
// the cost of an evaluation and is repeated for every (selector, device)
// pair the allocator tries.
//
// # Design
//
//   - Compilation stays upstream's: Compile uses dracel.Cache.GetOrCompile
//     (the allocator's call), NewSelector accepts any upstream
//     CompilationResult. A Selector evaluates upstream's cel.Program, so the
//     environment, libraries, runtime cost limit
//     (resourceapi.CELSelectorExpressionMaxCost via cel.CostLimit) and
//     interrupt check frequency are upstream's by construction.
//   - cel.Program.ContextEval accepts an interpreter.Activation instead of a
//     map. NewActivation builds, once per device version, the same object
//     graph that DeviceMatches builds per call: a map[string]any for
//     "device" with driver, allowMultipleAllocations, attributes and
//     capacity; attributes and capacity wrapped in a copy of upstream's
//     default-value mapper (an unknown domain reads as an empty map);
//     attribute domains as string-interface maps; capacity domains as
//     reflection-based maps of apiservercel.Quantity. Leaf values are stored
//     already converted to CEL values (types.Int, types.String, Semver,
//     lists). Upstream converts them on each access with NativeToValue, which
//     returns a ref.Val unchanged, so the interpreter sees the same values
//     through the same map implementations and code paths.
//   - The post-processing of DeviceMatches (bool conversion, its error texts,
//     the context-cause wrapping of interrupted evaluations) is copied.
//   - Device-level errors which DeviceMatches reports before evaluating
//     (an attribute without a value, an unparsable version) are detected when
//     the Activation is built and returned by every Matches call, with
//     upstream's text.
//
// # Capacity isolation
//
// resource.Quantity is mutable: (*Quantity).Cmp converts its receiver to
// inf.Dec when the other operand is an inf.Dec (e.g. a quantity with more
// than 18 significant digits), and the CEL quantity library calls Cmp on the
// device's quantity for compareTo/isGreaterThan/isLessThan. Afterwards
// isInteger()/asInteger() of that quantity change. Upstream gives every
// evaluation fresh copies, so the conversion is visible later in the same
// evaluation and nowhere else. celmatch reproduces that: selectors which may
// reach device.capacity (decided conservatively from the parsed expression)
// evaluate with a small per-evaluation view that copies a quantity on first
// access and reuses the copy within that evaluation. Other selectors use the
// shared map directly and allocate nothing beyond what cel-go itself
// allocates. The shared map's capacity entry also copies (on every access),
// so even a wrong static decision cannot leak state between evaluations or
// goroutines.
//
// # Invariants
//
//   - An Activation is immutable after construction and safe for concurrent
//     use by any number of goroutines and selectors. It holds deep copies of
//     the device's attribute slices and capacity quantities (whose lazily
//     cached string form is filled during construction), so it does not
//     alias the caller's Device. Rebuild it when the device changes.
//   - A Selector is immutable and safe for concurrent use.
//   - For every expression and device, Matches returns the same match
//     decision as DeviceMatches; an error exactly when DeviceMatches returns
//     one, and EvalError.Err has the same text; the EvalDetails report the
//     same actual cost. The tests check all three on hand-picked and on
//     seeded random devices and expressions.
//
// # Deliberate differences
//
// Two device shapes make upstream non-deterministic (Go map iteration
// order); celmatch picks one of upstream's possible outcomes, always the
// same: with several invalid attributes it reports the first in a fixed
// order, and when "x" and "<driver>/x" both exist the qualified one wins.
//
// Values are converted with types.DefaultTypeAdapter instead of the
// environment's registry. Both share cel-go's nativeToValue for every kind of
// value a device can contain; the registry only differs for protobuf
// messages.
//
// Errors are wrapped: CompileError and EvalError name the expression;
// EvalError.Error adds upstream's hint for missing keys
// (dracel.EnhanceRuntimeError), as the allocator does. Unwrap returns the
// upstream-equivalent error.
package celmatch
