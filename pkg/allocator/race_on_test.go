//go:build race

package allocator_test

// raceEnabled: the race detector instruments this test binary; its
// instrumentation moves values to the heap, so allocation counts mean
// nothing (make test checks them without it).
const raceEnabled = true
