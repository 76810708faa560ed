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

package schedbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// Setting up a run: the target its objects go to (an in-process control
// plane or an existing cluster), and the scheduler child, started with its
// flags and configuration once the set-up is done.

// target is where a run's objects go.
type target struct {
	client     kubernetes.Interface
	kubeconfig string
	stop       func()
}

// controlPlane is the configuration of the in-process control plane.
func (o *Options) controlPlane() controlplane.Options {
	return controlplane.Options{ClaimWorkers: o.ClaimWorkers, APIServerFlags: o.workloadAPIServerFlags()}
}

// childFlags are the scheduler's command-line flags of configuration c
// after the ones every child gets: its feature gates, then SchedulerFlags.
func (o *Options) childFlags(c Config) []string {
	var flags []string
	if gates := o.SchedulerFeatureGates(c); len(gates) > 0 {
		flags = append(flags, "--feature-gates="+gates.String())
	}
	flags = append(flags, o.workloadSchedulerFlags()...)
	return append(flags, o.SchedulerFlags...)
}

// startTarget starts a control plane, or connects to the existing cluster.
func (o *Options) startTarget(ctx context.Context) (*target, error) {
	var config *restclient.Config
	t := &target{stop: func() {}}
	if o.Kubeconfig != "" {
		path, err := filepath.Abs(o.Kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig %s: %w", o.Kubeconfig, err)
		}
		config, err = clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, fmt.Errorf("load kubeconfig %s: %w", path, err)
		}
		t.kubeconfig = path
	} else {
		// The in-process API server and controllers read this process's
		// gates.
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(o.requiredFeatureGates()); err != nil {
			return nil, fmt.Errorf("feature gates of shape %s and workload %s: %w", o.Shape.Name, o.Workload, err)
		}
		cp, err := controlplane.Start(ctx, o.controlPlane())
		if err != nil {
			return nil, fmt.Errorf("start control plane: %w", err)
		}
		config, t.kubeconfig, t.stop = cp.Config, cp.Kubeconfig, cp.Stop
	}
	config = restclient.CopyConfig(config)
	// The tool's own writes are not rate-limited on the client side.
	config.QPS, config.Burst = -1, 0
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.stop()
		return nil, fmt.Errorf("create client: %w", err)
	}
	t.client = client
	return t, nil
}

// startInProcess starts a fresh in-process control plane with the
// namespace of the pods and the shape's inventory of n nodes, for the
// workloads that run there only; res gets the devices. The caller stops
// the target.
func (o *Options) startInProcess(ctx context.Context, n int, res *Result) (*target, inventorygen.Cluster, error) {
	cluster := o.Shape.Cluster(n)
	if o.racked() {
		cluster = o.withRacks(cluster)
	}
	cluster = o.forConfig(cluster, res.Config)
	tgt, err := o.startTarget(ctx)
	if err != nil {
		return nil, cluster, err
	}
	ns := inProcessNamespace
	if _, err := tgt.client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		tgt.stop()
		return nil, cluster, fmt.Errorf("create namespace %s: %w", ns, err)
	}
	res.Devices = n * o.Shape.DevicesPerNode
	if err := CreateInventory(ctx, tgt.client, cluster, o.Writers); err != nil {
		tgt.stop()
		return nil, cluster, err
	}
	return tgt, cluster, nil
}

// startRun ends a run's set-up: it records the set-up time since
// setupStart in res and says so with detail, then starts the scheduler
// child (startScheduler) and the recorder of ns's pods. The caller stops
// both.
func (o *Options) startRun(ctx context.Context, tgt *target, res *Result, ns, label string, setupStart time.Time, detail string) (*child, *podlatency.Recorder, error) {
	res.SetupNs = int64(time.Since(setupStart))
	o.progress("%s: set up in %v (%s)", label, time.Since(setupStart).Round(time.Millisecond), detail)
	sched, err := o.startScheduler(ctx, tgt, res, label)
	if err != nil {
		return nil, nil, err
	}
	rec, err := podlatency.Start(ctx, tgt.client, ns)
	if err != nil {
		sched.stop()
		return nil, nil, err
	}
	return sched, rec, nil
}

// startScheduler writes the scheduler configuration of res.Config for
// tgt and starts the scheduler child, recording its log and start-up time
// in res. The caller stops it.
func (o *Options) startScheduler(ctx context.Context, tgt *target, res *Result, label string) (*child, error) {
	base := fmt.Sprintf("%s-%d-%s", time.Now().Format("150405"), res.Nodes, res.Config)
	cfg, err := o.schedulerConfig(res.Config, tgt.kubeconfig)
	if err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(o.LogDir, base+"-scheduler.yaml")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		return nil, fmt.Errorf("write scheduler configuration: %w", err)
	}
	res.SchedulerLog = filepath.Join(o.LogDir, base+"-scheduler.log")
	schedStart := time.Now()
	sched, err := startChild(ctx, o.Child, cfgPath, res.SchedulerLog, o.childFlags(res.Config))
	if err != nil {
		return nil, err
	}
	res.SchedulerStartNs = int64(time.Since(schedStart))
	o.progress("%s: scheduler ready in %v (pid %d, log %s)", label, time.Since(schedStart).Round(time.Millisecond), sched.cmd.Process.Pid, res.SchedulerLog)
	return sched, nil
}
