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
