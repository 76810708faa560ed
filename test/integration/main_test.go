package integration

import (
	"flag"
	"fmt"
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(fs)
	var out io.Writer = io.Discard
	if path := os.Getenv("DRA_TEST_LOG"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "DRA_TEST_LOG: %v\n", err)
			os.Exit(2)
		}
		defer f.Close()
		out = f
		_ = fs.Set("v", "3")
	}
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(out)
	os.Exit(m.Run())
}
