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
