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
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
)

// The defaults of a run's options, and complete, which fills zero values
// with them and checks the options; completeOwnPods holds the checks that
// the workloads making their own pods share.

// DefaultOptions returns the defaults of dra-bench scheduler.
func DefaultOptions() Options {
	schedperf, _ := ShapeByName("schedperf")
	return Options{
		Workload:          WorkloadBurst,
		PreemptionTimeout: 60 * time.Second,
		GangSize:          DefaultGangSize,
		GangPlacement:     GangOwnNode,
		GangTimeout:       2 * time.Minute,
		Sizes:             []int{100, 500},
		Configs:           AllConfigs(),
		Shape:             schedperf,
		Claims:            ClaimsTemplate,
		PendingReason:     PendingTooBig,
		QPS:               5000,
		Burst:             5000,
		Writers:           8,
		Timeout:           30 * time.Minute,
		Stall:             3 * time.Minute,
		Namespace:         "dra-bench",
		// Spelled out so that a caller sees (and may change) them.
		ConfigFeatureGates: DefaultConfigFeatureGates(),
	}
}

// complete fills zero values with defaults and checks the options.
func (o *Options) complete() error {
	d := DefaultOptions()
	if o.Workload == "" {
		o.Workload = d.Workload
	}
	if o.PreemptionTimeout <= 0 {
		o.PreemptionTimeout = d.PreemptionTimeout
	}
	if o.GangSize == 0 {
		o.GangSize = d.GangSize
	}
	if o.GangPlacement == "" {
		o.GangPlacement = d.GangPlacement
	}
	if o.GangTimeout <= 0 {
		o.GangTimeout = d.GangTimeout
	}
	if _, err := ParseWorkload(string(o.Workload)); err != nil {
		return err
	}
	if len(o.Sizes) == 0 {
		o.Sizes = d.Sizes
	}
	if len(o.Configs) == 0 {
		o.Configs = d.Configs
	}
	if o.Shape.Cluster == nil {
		o.Shape = d.Shape
	}
	if o.Claims == "" {
		o.Claims = d.Claims
	}
	if o.QPS <= 0 {
		o.QPS = d.QPS
	}
	if o.Burst <= 0 {
		o.Burst = d.Burst
	}
	if o.Writers <= 0 {
		o.Writers = d.Writers
	}
	if o.Timeout <= 0 {
		o.Timeout = d.Timeout
	}
	if o.Stall <= 0 {
		o.Stall = d.Stall
	}
	if o.Namespace == "" {
		o.Namespace = d.Namespace
	}
	if slices.Contains(o.Configs, ConfigFile) {
		if o.ConfigFile == "" {
			return fmt.Errorf("configuration %q needs a KubeSchedulerConfiguration file (--config)", ConfigFile)
		}
		data, err := os.ReadFile(o.ConfigFile)
		if err != nil {
			return fmt.Errorf("scheduler configuration: %w", err)
		}
		if _, err := FileSchedulerConfig(data, "kubeconfig"); err != nil {
			return fmt.Errorf("%s: %w", o.ConfigFile, err)
		}
		o.configData = data
	}
	if o.Claims != ClaimsTemplate && o.Claims != ClaimsPerPod {
		return fmt.Errorf("claims mode %q: want %s or %s", o.Claims, ClaimsTemplate, ClaimsPerPod)
	}
	if o.Pods < 0 || o.Warmup < 0 || o.Pending < 0 {
		return errors.New("pod counts must not be negative")
	}
	if err := o.completePending(); err != nil {
		return err
	}
	switch {
	case o.ClaimWorkers < 0:
		return fmt.Errorf("resourceclaim controller workers %d: want at least 1, or 0 for the default %d", o.ClaimWorkers, controlplane.DefaultResourceClaimWorkers)
	case o.ClaimWorkers > 0 && o.Kubeconfig != "":
		return fmt.Errorf("resourceclaim controller workers %d: they configure the in-process control plane; with a kubeconfig the cluster's kube-controller-manager runs the controller", o.ClaimWorkers)
	}
	for _, f := range o.SchedulerFlags {
		if name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "="); name == "feature-gates" {
			return fmt.Errorf("scheduler flag %q: set feature gates with FeatureGates (dra-bench's --feature-gates), so that the report names them", f)
		}
	}
	if err := o.validateFeatureGates(); err != nil {
		return err
	}
	if slices.Contains(o.Configs, ConfigDevicePlugin) && o.Kubeconfig != "" && !o.CreateInventory {
		return fmt.Errorf("configuration %q needs nodes that advertise %s in their status: with a kubeconfig, only with the created inventory (--create-inventory)", ConfigDevicePlugin, DevicePluginResource)
	}
	if o.LogDir == "" {
		return errors.New("no log directory")
	}
	if len(o.Child) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find this executable to run the scheduler: %w", err)
		}
		o.Child = []string{exe, "scheduler"}
	}
	switch o.Workload {
	case WorkloadPreemption:
		return o.completePreemption()
	case WorkloadGang:
		return o.completeGang()
	case WorkloadGangPreemption:
		return o.completeGangPreemption()
	}
	for _, n := range o.Sizes {
		if n < 1 {
			return fmt.Errorf("cluster size %d: want at least 1 node", n)
		}
		if o.Kubeconfig != "" && !o.CreateInventory {
			continue
		}
		if need, have := o.podsFor(n)+o.Warmup, n*o.Shape.DevicesPerNode; need > have {
			return fmt.Errorf("%d nodes of shape %s have %d devices, fewer than the %d pods (warm-up included) each asking for one", n, o.Shape.Name, have, need)
		}
	}
	return nil
}

// completeOwnPods checks what the workloads that make their own pods on
// the in-process control plane share: no existing cluster (needs says
// why), no configuration without devices (uses says what the workload
// does with them; device-plugin's pods ask for them as an extended
// resource), and no pod counts (instead says what to set).
func (o *Options) completeOwnPods(needs, uses, instead string) error {
	switch {
	case o.Kubeconfig != "":
		return fmt.Errorf("the %s workload runs on the in-process control plane only (%s)", o.Workload, needs)
	case slices.ContainsFunc(o.Configs, func(c Config) bool { return !c.NeedsDevices() }):
		return fmt.Errorf("the %s workload %s: configuration %q has none", o.Workload, uses, ConfigNoClaims)
	case o.Pods != 0 || o.Warmup != 0 || o.Pending != 0:
		return fmt.Errorf("the %s workload sets its own pods: set %s instead of pods, warm-up or pending pods", o.Workload, instead)
	}
	return nil
}
