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

// Package podshape resolves a pod's ResourceClaims as the scheduler does,
// for the tools that ask the scheduler's questions without being the
// scheduler: kubectl dra explain and pkg/simulate share it, so their
// answers cannot drift apart.
//
// # Design
//
// Resolve walks spec.resourceClaims in order. A claim named directly or
// in the pod's status is looked up; one a template has not generated yet
// is made from the template as the resourceclaim controller would make it
// (Virtual); a missing claim, template or DeviceClass, a claim being
// deleted, owned by another pod or reserved by as many consumers as it may
// have, or (with DRANodeAllocatableResources) a claim whose devices are
// node resources and that another consumer holds, is a problem: the
// scheduler would not try any node. NodeCheck is what every node must pass
// before its devices are asked about: the pod's own node constraints and
// where its allocated claims are.
//
// # Invariants
//
//   - Read-only: the pod, the claims and the templates are not modified;
//     a virtual claim is a new object.
//   - A problem's text is the scheduler's reason for the claim, prefixed
//     with the pod claim's name.
package podshape
