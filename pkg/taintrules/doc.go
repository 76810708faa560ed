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

// Package taintrules applies DeviceTaintRules to ResourceSlices the way
// kube-scheduler's ResourceSlice tracker
// (k8s.io/dynamic-resource-allocation/resourceslice/tracker) does, so that
// a consumer can watch the scheduler's own slice and rule informers instead
// of running a second tracker with informers of its own.
//
// A rule applies to every device its selector names: a nil selector names
// none, and each of driver, pool and device, when set, must equal the
// device's. The rule's taint is appended to the device's own taints. Rules
// are applied in name order, so the result does not depend on informer
// order (taints are a set to the allocator; the order only shows in logs).
//
// Invariant: inputs are never modified. A slice that no rule touches is
// returned as is, so an unchanged pointer means unchanged content; a
// touched slice is deep-copied once.
package taintrules
