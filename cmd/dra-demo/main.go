// Command dra-demo runs dra-scheduler on a throw-away cluster in this
// process — etcd, kube-apiserver, the resourceclaim controller and
// dra-scheduler — seeds it with GPU nodes, submits sample workloads, reports
// where they landed, and then stays up with a kubeconfig printed so the
// cluster can be explored with kubectl, until interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/version"
)

func main() {
	exit := flag.Bool("exit", false, "exit after the report instead of staying up until interrupted")
	config := flag.String("config", "", "KubeSchedulerConfiguration file (default: a dra-scheduler profile; clientConnection.kubeconfig is filled in)")
	timeout := flag.Duration("timeout", 2*time.Minute, "how long to wait for the sample pods to settle")
	klog.InitFlags(nil)
	flag.Parse()
	// Component logs only with -v; the report is the output.
	if flag.Lookup("v").Value.String() == "0" {
		_ = flag.Set("logtostderr", "false")
		_ = flag.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
	}

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := run(ctx, *config, *timeout, *exit); err != nil {
		fmt.Fprintln(os.Stderr, "dra-demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, configFile string, timeout time.Duration, exit bool) error {
	fmt.Println(version.String("dra-scheduler"))
	start := time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		return err
	}
	defer cp.Stop()
	fmt.Printf("control plane ready in %v (etcd, kube-apiserver, resourceclaim controller)\n", time.Since(start).Round(time.Millisecond))

	cfg := []byte(defaultSchedulerConfig)
	if configFile != "" {
		if cfg, err = os.ReadFile(configFile); err != nil {
			return err
		}
	}
	path, err := cp.WriteSchedulerConfig("scheduler.yaml", cfg)
	if err != nil {
		return err
	}
	if _, err := cp.StartScheduler(ctx, path); err != nil {
		return err
	}
	fmt.Println("dra-scheduler running with", path)

	if err := seed(ctx, cp.Client); err != nil {
		return err
	}
	if err := report(ctx, cp.Client, timeout); err != nil {
		return err
	}
	if exit {
		return nil
	}
	fmt.Printf("\nThe cluster stays up until Ctrl-C. Explore it with:\n  export KUBECONFIG=%s\n  kubectl get pods,resourceclaims -A -o wide\n", cp.Kubeconfig)
	<-ctx.Done()
	return nil
}
