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

// Package deviceusage accounts for a cluster's DRA devices: per
// DeviceClass and per pool, how many devices there are, how many are
// allocated and how many are free; for partitionable devices, how much of
// each shared counter (a GPU's memory, for its MIG slices) allocations
// consume; for devices that allow multiple allocations, how much of their
// capacity is consumed.
//
// It reads the same objects as the scheduler (pkg/clusterstate) and
// evaluates DeviceClass selectors with the scheduler's CEL path
// (pkg/celmatch). Only the current generation of each pool counts; a pool
// missing some of its slices is marked incomplete, as the allocator would
// skip it. It is accounting, not allocation: a free partition whose
// counters are used up is free here and blocked for the allocator, which
// the counters show.
package deviceusage
