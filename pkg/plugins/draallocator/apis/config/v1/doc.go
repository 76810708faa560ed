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

// Package v1 holds the versioned (kubescheduler.config.k8s.io/v1) wire types
// of the DRAAllocator plugin args, their defaults and their conversions to
// and from the internal types in package config. Deep copies, conversions
// and the defaulting registration are generated (zz_generated.*.go, by
// hack/update-codegen.sh); defaults.go and conversion.go hold what the
// generators call.
//
// Design and invariants:
//
//   - Every field is an optional pointer, so "not set" is distinguishable
//     from an explicit zero (filterTimeout: 0s disables the limit).
//   - SetDefaults_DRAAllocatorArgs is the only place defaults are applied.
//     defaulter-gen registers it (RegisterDefaults) and it runs via
//     scheme.Default; it only fills nil fields and never overwrites a value.
//   - The timeout defaults match the in-tree DynamicResources plugin
//     (k8s.io/kube-scheduler/config/v1 DynamicResourcesFilterTimeoutDefault and
//     DynamicResourcesBindingTimeoutDefault), but unlike in-tree they do not
//     depend on feature gates.
//   - Conversion v1 -> internal maps nil to the zero value; it is meant to run
//     after defaulting. Conversion internal -> v1 sets every pointer, so
//     internal -> v1 -> internal is the identity.
//   - AddToScheme registers into a caller-provided scheme only; this package
//     has no global scheme. The generated conversions add themselves to the
//     package's scheme builder in an init function (conversion-gen's
//     convention); nothing else happens at init.
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config
// +k8s:defaulter-gen=TypeMeta
package v1
