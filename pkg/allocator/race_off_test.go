//go:build !race

package allocator_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
