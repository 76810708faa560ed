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

// Package inventory keeps the cluster's DRA devices — the contents of all
// ResourceSlices — in a form the allocator can use without redoing work per
// pod or per node.
//
// Devices are interned: every device of every slice gets a dense index
// (reused after the device is gone) and a version that is unique over the
// inventory's lifetime and changes whenever anything a selector could see
// changes (the device itself, its driver or pool). Caches keyed by
// (index, version) therefore never read a stale result.
//
// Slices are updated one event at a time (Set, Remove); a device whose
// content is unchanged keeps its index and version across slice updates, so
// a driver republishing a slice invalidates nothing. Set keeps a slice
// under its name, unique in a cluster; SetWithKey keeps it under any key,
// for lists of slices whose names need not be unique (upstream's
// NewAllocator treats the slices of its list as distinct objects).
//
// Pools reports, for one node, the resource pools the allocator may use,
// with the semantics of upstream's incubating allocator (see
// docs/design/upstream-allocator.md §3): only node-relevant slices of the
// highest node-relevant generation, completeness judged by the first such
// slice's resourceSliceCount, obsolete pools dropped, invalid pools marked,
// pools ordered by (driver, pool) with binding-condition pools last, slices
// by name, devices in slice order. The result is cached per node until a
// slice changes or the node's labels do.
//
// "Input order" — which upstream takes from the slice list it is given —
// is the order in which slices were first added here.
//
// Compare (compare.go, selfcheck.go) checks a long-lived inventory against
// the slices it should hold, as the API has them, and its own indexes
// against its slices, and returns each difference as a drift.Difference
// naming the pool, slice and device: the scheduler's consistency check.
//
// An Inventory is not safe for concurrent mutation; Pools may be called
// concurrently with other Pools calls (it locks its cache) but not with
// Set or Remove; so may Compare. The returned views are immutable.
package inventory
