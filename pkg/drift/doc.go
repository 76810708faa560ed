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

// Package drift describes and collects the differences between a
// long-lived cache and what the API's objects say it should hold: the
// language the consistency checks of the packages that own such caches
// (pkg/inventory, pkg/allocator) answer in, and that the scheduler plugin
// logs and counts.
//
// A Difference names the object it is about and says how it differs,
// naming the other objects involved ("pool gpu.example.com/node-7: device
// gpu-3 allocated to default/claim-x in the API, free in the tracker").
// Its Kind says which part of the cache differs; kinds label a metric, so
// there are few. Differences are comparable values: a caller that checks
// repeatedly can tell a new difference from one it has seen, and keep
// only those two checks in a row found (Common), so that a change still
// on its way from the API to the cache is not one.
//
// The package knows nothing of what it describes and imports nothing
// beyond the standard library.
package drift
