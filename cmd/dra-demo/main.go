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
	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/manifests"
	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/kubeapply"
	"github.com/dra-scheduler/dra-scheduler/pkg/version"
)

func main() {
	exit := flag.Bool("exit", false, "exit after the report instead of staying up until interrupted")
	config := flag.String("config", "", "KubeSchedulerConfiguration file (default: the one of manifests/install/configmap.yaml, leader election off; clientConnection.kubeconfig is filled in)")
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
	out := os.Stdout
	fmt.Fprintln(out, version.String("dra-scheduler"))
	start := time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		return err
	}
	defer cp.Stop()
	fmt.Fprintf(out, "control plane ready in %v (etcd, kube-apiserver, resourceclaim controller)\n", time.Since(start).Round(time.Millisecond))

	cfg, err := schedulerConfig(configFile)
	if err != nil {
		return err
	}
	path, err := cp.WriteSchedulerConfig("scheduler.yaml", cfg)
	if err != nil {
		return err
	}
	if _, err := cp.StartScheduler(ctx, path); err != nil {
		return err
	}
	fmt.Fprintln(out, "dra-scheduler running with", path)

	cluster := demoCluster()
	if err := seedCluster(ctx, cp.Client, cluster); err != nil {
		return err
	}
	devices := len(cluster.Devices())
	fmt.Fprintf(out, "seeded %d nodes (16× 8×H100, 8× 8×H200, 16× 8×A100-40GB, 10× 8×H100 Dynamic MIG), %d ResourceSlices, %d devices\n",
		len(cluster.Nodes), len(cluster.Slices), devices)

	applier, err := kubeapply.New(cp.Config)
	if err != nil {
		return err
	}
	examples, err := applyShipped(ctx, applier)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "applied manifests/install/admission.yaml and manifests/examples (%d pods)\n", len(examples))
	wls := workloads()
	for _, w := range wls {
		fmt.Fprintf(out, "  %-14s ×%-3d %s\n", w.prefix, w.pods, w.why)
	}
	sub, err := submit(ctx, cp.Client, wls)
	if err != nil {
		return err
	}
	defer sub.rec.Stop()
	pods, err := settle(ctx, cp.Client, timeout)
	if err != nil {
		return err
	}
	if err := placements(ctx, out, cp.Client, pods); err != nil {
		return err
	}
	if err := latencySummary(out, sub, pods); err != nil {
		return err
	}
	admissionDemo(ctx, out, cp.Client)
	if exit {
		return nil
	}
	fmt.Fprintf(out, "\nThe cluster stays up until Ctrl-C. Explore it with:\n  export KUBECONFIG=%s\n  kubectl get pods,resourceclaims -n %s -o wide\n", cp.Kubeconfig, namespace)
	<-ctx.Done()
	return nil
}

// schedulerConfig returns the configuration file's contents, or the one
// the shipped ConfigMap holds with leader election off (one replica, in
// this process).
func schedulerConfig(file string) ([]byte, error) {
	if file != "" {
		return os.ReadFile(file)
	}
	raw, err := manifests.SchedulerConfig()
	if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("the ConfigMap's scheduler configuration: %w", err)
	}
	cfg["leaderElection"] = map[string]any{"leaderElect": false}
	return yaml.Marshal(cfg)
}
