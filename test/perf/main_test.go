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

package perf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	_ "k8s.io/component-base/logs/json/register" // -logging-format=json, as upstream's scheduler_perf packages
	scheduler_perf "k8s.io/kubernetes/test/integration/scheduler_perf"
)

func TestMain(m *testing.M) {
	if err := etcdOnPath(); err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		os.Exit(1)
	}
	// Parses the command line, with scheduler_perf's flags
	// (-perf-scheduling-label-filter, -data-items-dir, ...).
	if err := scheduler_perf.InitTests(); err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// etcdOnPath makes sure that scheduler_perf finds an etcd binary on PATH:
// if there is none, it adds the repository's bin/ when bin/etcd exists
// there (make bin/etcd).
func etcdOnPath() error {
	if _, err := exec.LookPath("etcd"); err == nil {
		return nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("etcd is not on PATH and no go.mod above the working directory")
		}
		dir = parent
	}
	bin := filepath.Join(dir, "bin")
	if _, err := os.Stat(filepath.Join(bin, "etcd")); err != nil {
		return fmt.Errorf("etcd is not on PATH and %s/etcd does not exist: run `make bin/etcd`", bin)
	}
	return os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}
