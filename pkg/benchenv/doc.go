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

// Package benchenv describes what produced a benchmark's numbers, so that
// two reports can be compared knowing whether they came from the same
// build on the same kind of machine: the build (dra-scheduler's version,
// the VCS revision and time the Go toolchain stamped into the binary, the
// Go version) and the machine (platform, CPU model and count, kernel,
// GOMAXPROCS, and the GOGC and GOMEMLIMIT the process and the scheduler
// processes it starts run with).
//
// Capture reads it once, at the start of a run; a field it cannot learn is
// left empty rather than guessed. Every dra-bench report embeds an
// Environment, so its JSON fields sit at the report's top level.
package benchenv
