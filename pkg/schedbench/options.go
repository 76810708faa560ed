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
	"io"
	"strings"
	"time"

	"k8s.io/kubernetes/pkg/features"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// Config is a scheduler configuration to measure.
type Config string

// The configurations, in the order a run measures them by default.
const (
	// ConfigOurs enables DRAAllocator and disables DynamicResources.
	ConfigOurs Config = "ours"
	// ConfigInTree runs kube-scheduler's default plugins (DynamicResources).
	ConfigInTree Config = "in-tree"
	// ConfigNoClaims runs the default plugins on the same pods without
	// claims: the floor set by the API writes every pod costs.
	ConfigNoClaims Config = "no-claims"
	// ConfigFile runs the KubeSchedulerConfiguration of Options.ConfigFile
	// (FileSchedulerConfig), e.g. the shipped one, at its own client rate.
	ConfigFile Config = "file"
	// ConfigDevicePlugin runs the default plugins on the same pods without
	// claims, each asking for its devices as units of the extended
	// resource DevicePluginResource, which every node advertises
	// Shape.DevicesPerNode of in its status: the device-plugin baseline
	// (deviceplugin.go).
	ConfigDevicePlugin Config = "device-plugin"
)

// AllConfigs lists the configurations in their default order.
func AllConfigs() []Config { return []Config{ConfigOurs, ConfigInTree, ConfigNoClaims} }

// HasClaims reports whether the configuration's pods use ResourceClaims.
func (c Config) HasClaims() bool { return c != ConfigNoClaims && c != ConfigDevicePlugin }

// NeedsDevices reports whether the configuration's pods ask for devices:
// through claims, or as the extended resource of device-plugin.
func (c Config) NeedsDevices() bool { return c != ConfigNoClaims }

// ParseConfigs parses a comma-separated list of configuration names.
func ParseConfigs(list string) ([]Config, error) {
	var out []Config
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		c := Config(f)
		switch c {
		case ConfigOurs, ConfigInTree, ConfigNoClaims, ConfigDevicePlugin, ConfigFile:
		default:
			return nil, fmt.Errorf("unknown configuration %q (want %s, %s, %s, %s or %s)", f, ConfigOurs, ConfigInTree, ConfigNoClaims, ConfigDevicePlugin, ConfigFile)
		}
		for _, seen := range out {
			if seen == c {
				return nil, fmt.Errorf("configuration %q given twice", f)
			}
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no configuration given")
	}
	return out, nil
}

// Shape is an inventory shape: what every node publishes and what every
// pod's claim asks for.
type Shape struct {
	// Name is how --shape selects it.
	Name string
	// Description says what a node has and what a pod asks for.
	Description string
	// DevicesPerNode is the number of devices a node publishes that the
	// claim can use.
	DevicesPerNode int
	// Cluster builds the inventory of n nodes.
	Cluster func(n int) inventorygen.Cluster
	// Class is the DeviceClass the claim requests one device of, and
	// Selectors its CEL selectors.
	Class     string
	Selectors []string
	// FeatureGates are the gates its objects need, on in the in-process
	// control plane and in every configuration's scheduler (under the
	// --feature-gates given).
	FeatureGates FeatureGates
	// Partition, when set, is how a device of Class is also announced
	// in parts on shared counters; the gang workload's pods prefer a
	// whole device and fall back to a part. Shapes without it cannot run
	// the gang workload.
	Partition *Partition
}

// Partition is one part of a shape's device (a MIG profile, a half):
// the devices of Class matching Selectors, PerDevice of which fit on one
// device of the shape's Class.
type Partition struct {
	// Name names the part in reports ("3g.40gb").
	Name      string
	Class     string
	Selectors []string
	PerDevice int
}

// Shapes returns the built-in shapes.
func Shapes() []Shape {
	return []Shape{
		{
			Name:           "schedperf",
			Description:    "upstream scheduler_perf: 10 devices × 13 attributes per node; a pod asks for 1 device of test-class",
			DevicesPerNode: inventorygen.SchedulerPerfDevicesPerNode,
			Cluster:        func(n int) inventorygen.Cluster { return inventorygen.SchedulerPerf(n, 0) },
			Class:          inventorygen.ClassSchedulerPerf,
		},
		{
			Name:           "h100",
			Description:    "NVIDIA 8×H100 80GB per node as NVIDIA's DRA driver publishes them; a pod asks for 1 GPU with memory >= 40Gi",
			DevicesPerNode: inventorygen.NvidiaGPUsPerNode,
			Cluster:        inventorygen.NvidiaH100,
			Class:          inventorygen.ClassNvidiaGPU,
			Selectors:      []string{inventorygen.GPUMemorySelector("40Gi")},
		},
		{
			Name:           "h100x4",
			Description:    "4×H100 80GB per node (an NVL72 rack's compute tray: 18 nodes hold 72 GPUs), as NVIDIA's DRA driver publishes them; a pod asks for 1 GPU with memory >= 40Gi",
			DevicesPerNode: 4,
			Cluster:        inventorygen.NvidiaH100x4,
			Class:          inventorygen.ClassNvidiaGPU,
			Selectors:      []string{inventorygen.GPUMemorySelector("40Gi")},
		},
		{
			Name: "cpu-mapped",
			Description: "schedperf whose devices are node cpu (DRANodeAllocatableResources, alpha: " + inventorygen.CPUMappedPerDevice +
				" cpu each, 256Mi memory overhead per pod; nodes of 64 cpu); a pod asks for 1 device of test-class",
			DevicesPerNode: inventorygen.SchedulerPerfDevicesPerNode,
			Cluster:        inventorygen.CPUMapped,
			Class:          inventorygen.ClassSchedulerPerf,
			FeatureGates:   FeatureGates{string(features.DRANodeAllocatableResources): true},
		},
		{
			Name: "h100-mig",
			Description: fmt.Sprintf("NVIDIA %d×H100 80GB per node in dynamic MIG mode (%d devices per GPU on shared counters); a pod asks for 1 whole GPU, or with --workload gang a whole GPU else a %s MIG device (half a GPU)",
				MIGGPUsPerNode, inventorygen.MIGH100DevicesPerGPU, migHalfProfile),
			DevicesPerNode: MIGGPUsPerNode,
			Cluster:        func(n int) inventorygen.Cluster { return inventorygen.DynamicMIG(n, MIGGPUsPerNode) },
			Class:          inventorygen.ClassNvidiaGPU,
			Partition: &Partition{
				Name:      migHalfProfile,
				Class:     inventorygen.ClassNvidiaMIG,
				Selectors: []string{fmt.Sprintf("device.attributes[%q].profile == %q", inventorygen.DriverNvidia, migHalfProfile)},
				PerDevice: 2,
			},
		},
	}
}

// MIGGPUsPerNode is the GPU count of a node of shape h100-mig: half a gang
// of DefaultGangSize, so that the gang fits on one node only as MIG halves.
const MIGGPUsPerNode = DefaultGangSize / 2

// migHalfProfile is the MIG profile of half an H100: two fit on one GPU
// (memory slices 0-3 and 4-7).
const migHalfProfile = "3g.40gb"

// ShapeByName returns the built-in shape with that name.
func ShapeByName(name string) (Shape, error) {
	var names []string
	for _, s := range Shapes() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Shape{}, fmt.Errorf("unknown shape %q (want one of %s)", name, strings.Join(names, ", "))
}

// Workload is what a run measures at every (size, configuration).
type Workload string

const (
	// WorkloadBurst: pods of one device each created in a burst on free
	// devices; throughput and creation→bound latency (run.go).
	WorkloadBurst Workload = "burst"
	// WorkloadPreemption: nodes full of low-priority pods, then
	// high-priority preemptors that get devices only by evicting them
	// (preemption.go).
	WorkloadPreemption Workload = "preemption"
	// WorkloadGang: gangs (PodGroups with minCount) whose pods prefer a
	// whole device and fall back to a part, on nodes where the gang fits
	// only if its devices are chosen jointly (gang.go).
	WorkloadGang Workload = "gang"
	// WorkloadGangPreemption: racks filled with low-priority pods, then
	// high-priority gangs of one rack each that get devices only by
	// evicting them, one gang after the other (gang_preemption.go).
	WorkloadGangPreemption Workload = "gang-preemption"
)

// ParseWorkload returns the workload of that name.
func ParseWorkload(name string) (Workload, error) {
	switch w := Workload(name); w {
	case WorkloadBurst, WorkloadPreemption, WorkloadGang, WorkloadGangPreemption:
		return w, nil
	}
	return "", fmt.Errorf("unknown workload %q (want %s, %s, %s or %s)", name, WorkloadBurst, WorkloadPreemption, WorkloadGang, WorkloadGangPreemption)
}

// PendingReason says why the backlog's pods (Options.Pending) wait.
type PendingReason string

const (
	// PendingTooBig: each backlog pod asks for one device more than a
	// node has, so no node can ever hold it (pending.go).
	PendingTooBig PendingReason = "too-big"
	// PendingHeld: each backlog pod asks for one device, on nodes whose
	// every device holder pods hold, so it waits for capacity that is
	// taken; the measured pods go to the other nodes (pending_held.go).
	PendingHeld PendingReason = "held"
)

// ParsePendingReason returns the pending reason of that name.
func ParsePendingReason(name string) (PendingReason, error) {
	switch r := PendingReason(name); r {
	case PendingTooBig, PendingHeld:
		return r, nil
	}
	return "", fmt.Errorf("unknown pending reason %q (want %s or %s)", name, PendingTooBig, PendingHeld)
}

// ClaimMode says how pods get their claims.
type ClaimMode string

const (
	// ClaimsTemplate: every pod references one ResourceClaimTemplate; the
	// resourceclaim controller creates its claim after the pod (as in
	// scheduler_perf and in most real workloads).
	ClaimsTemplate ClaimMode = "template"
	// ClaimsPerPod: one ResourceClaim per pod, created before the scheduler
	// starts; pods reference it by name.
	ClaimsPerPod ClaimMode = "claim"
)

// Options configure a run. Zero values of the numeric fields mean the
// defaults of DefaultOptions.
type Options struct {
	// Workload is what every (size, configuration) measures.
	Workload Workload
	// Preemptors is the number of preemptors of WorkloadPreemption per run;
	// 0 means DefaultPreemptors of the size.
	Preemptors int
	// PreemptionTimeout bounds the wait for the preemptors of one run;
	// preemptors not bound by then are reported, not an error (in-tree's
	// cannot preempt for devices).
	PreemptionTimeout time.Duration
	// GangSize is the pods of a gang of WorkloadGang (its minCount), Gangs
	// the gangs per run (0: as many as the cluster holds, see gangsFor),
	// GangPlacement where they may go, and GangTimeout bounds the wait for
	// them; gangs not placed by then are reported, not an error.
	GangSize      int
	Gangs         int
	GangPlacement GangPlacement
	GangTimeout   time.Duration
	// GangSizes are the sizes of WorkloadGangPreemption's gangs, dealt
	// out in turn to Gangs gangs (0: two of each size), and GangTimeout
	// bounds the wait for each gang there; nil means
	// DefaultGangPreemptionSizes.
	GangSizes []int
	// RackSize puts the gang workload's nodes in racks of that many
	// nodes, some partly used, and its pods ask for whole devices
	// (gang_racks.go); 0 means no racks, or DefaultRackSize with
	// GangRack.
	RackSize int
	// Sizes are the cluster sizes (node counts), measured in this order.
	Sizes []int
	// Configs are measured in this order for every size.
	Configs []Config
	// Shape is the inventory.
	Shape Shape
	// Claims says how pods get their claims.
	Claims ClaimMode
	// Pods is the number of measured pods per run; 0 means one per node.
	Pods int
	// Warmup pods are created, and waited for, before the measured ones.
	Warmup int
	// Pending pods, a backlog that waits through the run, are created
	// after the warm-up and before the measured pods, and stay in the
	// scheduler's queue (see createBacklog). PendingReason says why they
	// wait: PendingTooBig (the default, also for ""), pods that can never
	// be scheduled, or PendingHeld, pods waiting for devices that holder
	// pods hold (pending_held.go).
	Pending       int
	PendingReason PendingReason
	// QPS and Burst are the scheduler's clientConnection qps and burst.
	QPS   float32
	Burst int32
	// Writers is the number of concurrent clients creating objects.
	Writers int
	// Timeout bounds the wait for the measured pods of one run; Stall ends
	// it early when no pod is bound for that long.
	Timeout, Stall time.Duration
	// ConfigFile is the KubeSchedulerConfiguration file ConfigFile runs;
	// required when Configs has it.
	ConfigFile string
	// Kubeconfig, when set, targets an existing cluster instead of an
	// in-process control plane; Namespace is the namespace created (and
	// deleted) there for the pods, with the configuration's name appended.
	// The inventory is created there only with CreateInventory.
	Kubeconfig      string
	Namespace       string
	CreateInventory bool
	// LogDir receives one log file per scheduler process and the control
	// plane's log. It must exist.
	LogDir string
	// SchedulerFlags are extra dra-scheduler command-line flags. They must
	// not set --feature-gates: FeatureGates does, so that reports name them.
	SchedulerFlags []string
	// FeatureGates are passed to the scheduler of every configuration
	// (--feature-gates), over the configuration's ConfigFeatureGates. They
	// apply to the scheduler only, not to the in-process kube-apiserver.
	FeatureGates FeatureGates
	// ConfigFeatureGates are each configuration's default scheduler feature
	// gates, under FeatureGates (see SchedulerFeatureGates). nil means
	// DefaultConfigFeatureGates(); an empty map means none.
	ConfigFeatureGates map[Config]FeatureGates
	// ClaimWorkers is the in-process resourceclaim controller's worker count
	// (kube-controller-manager's --concurrent-resourceclaim-syncs); 0 means
	// controlplane.DefaultResourceClaimWorkers. It must be 0 with Kubeconfig,
	// whose cluster runs its own controller.
	ClaimWorkers int
	// Child is the command line that runs the scheduler child: it is started
	// with ChildEnv set and must call RunChild. Empty means this executable
	// with the argument "scheduler".
	Child []string
	// Progress, when set, receives progress lines.
	Progress io.Writer

	// configData is ConfigFile's content, read by complete.
	configData []byte
}

// schedulerConfig is the scheduler configuration of c for the cluster of
// kubeconfig.
func (o *Options) schedulerConfig(c Config, kubeconfig string) ([]byte, error) {
	if c == ConfigFile {
		return FileSchedulerConfig(o.configData, kubeconfig)
	}
	return SchedulerConfig(c, kubeconfig, o.QPS, o.Burst)
}

// podsFor is the number of measured pods at cluster size n.
func (o *Options) podsFor(n int) int {
	if o.Pods > 0 {
		return o.Pods
	}
	return n
}
