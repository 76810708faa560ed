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

// Package objects has small builders for the Kubernetes objects dra-scheduler
// tests create: nodes, pods, DeviceClasses, ResourceSlices, claim templates.
// Each builder starts from the fewest fields a valid object needs and adds
// one aspect per method, in the style of kube-scheduler's testing wrappers:
//
//	objects.MakePod("worker", "ns").Scheduler("dra-scheduler").ClaimFromTemplate("gpu", "one-gpu").Obj()
package objects
