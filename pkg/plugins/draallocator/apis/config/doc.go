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

// Package config holds the internal (unversioned) configuration types of the
// DRAAllocator scheduler plugin.
//
// Design and invariants:
//
//   - These types are what the plugin works with. They are never read from or
//     written to the wire directly; the versioned types in package v1 are.
//   - Every field is a plain value: an internal DRAAllocatorArgs is complete.
//     Defaults are applied in exactly one place, the v1 defaulter
//     (v1.SetDefaults_DRAAllocatorArgs), before conversion to these types.
//     Nothing in this package fills in missing values.
//   - A zero FilterTimeout means "no limit"; it is a valid, explicit setting,
//     not a marker for "unset".
//   - The kind is registered under the internal version
//     (runtime.APIVersionInternal) of group kubescheduler.config.k8s.io in
//     schemes built by the caller (see AddToScheme); no global scheme is
//     modified.
//   - DeepCopy methods are generated (zz_generated.deepcopy.go, by
//     hack/update-codegen.sh; make verify fails when they are stale).
//
// +k8s:deepcopy-gen=package
package config
