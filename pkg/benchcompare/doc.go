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

// Package benchcompare reads dra-bench's JSON reports (allocator and
// scheduler) as named benchmark results with units, so that two runs can
// be compared side by side (Compare: medians, the ratio new/old and, where
// both sides have repeated samples, a Mann-Whitney U test's p-value, as
// benchstat computes it) and so that any report can be written in the Go
// benchmark format that benchstat reads (WriteBenchfmt).
//
// Reports are decoded by their JSON field names (the documented form, see
// cmd/dra-bench/README.md), not by importing the packages that write them:
// comparing needs no control plane linked in, and a report of an older
// schema version reads as long as the fields it uses are there. A
// scheduler report is read by its workload's own metrics: the burst
// workload's throughput and pod latency, the gang workload's gangs placed,
// groups/s, gang latency, cycles and CPU per gang, the preemption
// workload's preemptors bound, excess victims, latency and CPU per
// preemptor. HigherIsBetter gives each unit's direction. Results with an
// error, or with nothing measured, are left out, with a note.
package benchcompare
