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
