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

// Package validation checks internal DRAAllocator plugin args.
//
// Design and invariants:
//
//   - Validation runs on internal, already defaulted args; it never
//     defaults or mutates them.
//   - All problems are collected into one field.ErrorList and returned as an
//     aggregate, so a user sees every mistake at once. Field paths use the
//     JSON (v1) names, e.g. "filterTimeout" or "scoringStrategy.type",
//     relative to the path the caller passes in.
//   - A nil error means the plugin can use the args as they are.
package validation
