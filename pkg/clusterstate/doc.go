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

// Package clusterstate gathers the objects a DRA scheduling decision
// reads — Nodes, Pods, ResourceSlices, DeviceClasses, ResourceClaims,
// ResourceClaimTemplates and DeviceTaintRules — either from YAML or JSON
// as `kubectl get ... -o yaml` prints it (Objects.Add, ReadFiles) or from
// an API server (Get), so that tools answer the same way about a live
// cluster and about a dump of one.
//
// Invariants: objects are decoded strictly into the resource.k8s.io/v1 and
// v1 types, with the defaults the API server would have set; unknown
// fields and kinds never fail a read, they become notes naming the file,
// the document and the object; anything the allocator cannot use (another
// apiVersion, a missing name, an object given twice, a claim without
// requests) fails it with the same names. Reading is read-only: Get only
// lists and gets.
package clusterstate
