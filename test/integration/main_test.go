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

package integration

import (
	"flag"
	"fmt"
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
)

// replicaArgsEnv, when set, makes the test binary run dra-scheduler with
// these (JSON-encoded) arguments instead of the tests: tests start extra
// scheduler replicas as real processes that way (see leader_test.go).
const replicaArgsEnv = "DRA_TEST_SCHEDULER_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(replicaArgsEnv); args != "" {
		os.Exit(schedulerapp.RunJSONArgs(args))
	}
	fs := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(fs)
	var out io.Writer = io.Discard
	// DRA_TEST_LOG=file writes every component's log there, at verbosity
	// 3 or DRA_TEST_LOG_V.
	if path := os.Getenv("DRA_TEST_LOG"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "DRA_TEST_LOG: %v\n", err)
			os.Exit(2)
		}
		defer f.Close()
		out = f
		v := "3"
		if env := os.Getenv("DRA_TEST_LOG_V"); env != "" {
			v = env
		}
		_ = fs.Set("v", v)
	}
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(out)
	os.Exit(m.Run())
}
