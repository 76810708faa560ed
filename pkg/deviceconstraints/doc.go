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

// Package deviceconstraints reads, checks and writes the
// dra-scheduler.io/device-constraints annotation, with which a Pod or a
// PodGroup ties DRA devices together across its ResourceClaims (and, for a
// PodGroup, across the claims of its member pods).
//
// The annotation's value is a list of constraints, in JSON or YAML:
//
//	[{"requests": ["gpu/accel", "nic/net"], "matchAttribute": "resource.kubernetes.io/pcieRoot"},
//	 {"requests": ["gpu"], "distinctAttribute": "gpu.example.com/uuid"}]
//
// Each constraint means what upstream's resource.k8s.io/v1 DeviceConstraint
// means inside one claim, but across claims: every device allocated for the
// requests it covers must have the same value of matchAttribute, or pairwise
// different values of distinctAttribute. A request is named
// "<pod claim>/<request>[/<subrequest>]", the pod claim being a
// spec.resourceClaims[].name of the pod. A bare "<pod claim>" covers every
// request of that claim, a request covers its firstAvailable subrequests,
// and an empty list covers every request of every claim.
//
// # Design
//
// Checking happens in two stages, because they need different inputs:
//
//   - Parse (and Of) checks the value on its own: its syntax, the shape of
//     each constraint, the names in it. It needs nothing but the string.
//   - CheckPod checks the references against the pod and the specs of its
//     claims, which a caller only has once it has looked them up. Claims not
//     looked up yet are skipped, so CheckPod can run early and again later.
//
// Decoding is strict: unknown or duplicate fields are errors, field names
// are matched case-sensitively, and JSON null stands for an absent field.
// A value that is valid JSON is decoded as JSON; any other value is
// converted from YAML to JSON first (sigs.k8s.io/yaml).
//
// Attribute names are checked by validate.ResourceFullyQualifiedName of
// k8s.io/apimachinery, the rule the v1.37 API server enforces for
// DeviceConstraint.MatchAttribute, plus one rule of our own: at most one
// "/". Upstream accepts "a/b/c" without checking either part (a known
// TODO in upstream's validation); we refuse it, since no valid attribute
// can be named so and it would let unchecked bytes through.
//
// # Invariants
//
//   - Parse returns either valid constraints and a nil error, or nil and an
//     *Error, whose message starts with "annotation
//     dra-scheduler.io/device-constraints: ", names the constraint by its
//     index and the field by its path, and reports the first fault found.
//   - A valid Constraint has exactly one of MatchAttribute and
//     DistinctAttribute; its Requests are nil (meaning all) or a list of
//     distinct, well-formed RequestRefs. Validate checks exactly this.
//   - Marshal writes only valid constraints, and Parse(Marshal(cs)) gives
//     back constraints equal to cs (reflect.DeepEqual) for any cs Parse
//     returned.
//   - Nothing in the package holds mutable state; every function is safe
//     for concurrent use.
package deviceconstraints
