//go:build !windows

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

package draallocator

import (
	"sync/atomic"
	"syscall"
	"testing"
)

func TestSIGUSR2RunsTheConsistencyCheck(t *testing.T) {
	var runs atomic.Int64
	nodes, objs := oneDeviceCluster()
	h := newHarness(t, checkRuns(&runs), []string{"default"}, nodes, objs...)
	// The harness's plugin listens since it was built (newShared): the
	// process handles SIGUSR2 instead of dying of it.
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	h.eventually("a check on SIGUSR2", func() bool { return runs.Load() > 0 })
}
