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

// Package schedbench measures dra-scheduler end to end: how many pods per
// second a real kube-scheduler binds on a real kube-apiserver, and how long
// each pod waits from creation to binding, for these configurations on
// the same workload:
//
//   - ours: the DRAAllocator plugin enabled, the in-tree DynamicResources
//     plugin disabled (what manifests/install/configmap.yaml ships);
//   - in-tree: kube-scheduler's default plugins, DynamicResources included;
//   - no-claims: the default plugins and the same pods without any
//     ResourceClaim. It is the floor the API writes set: creating and binding
//     a pod costs the same for every configuration, and no DRA plugin can make
//     a pod cheaper than a pod that needs no devices at all;
//   - device-plugin: the default plugins and the same pods without claims,
//     asking for their devices the way every GPU platform does today
//     without DRA: as units of an extended resource in their container's
//     limits and requests, which every node advertises Shape.DevicesPerNode
//     of in its status (deviceplugin.go). It is the baseline DRA is
//     compared with (Result.CPUVsDevicePlugin, P99VsDevicePlugin, and
//     P99FloorVsDevicePlugin: the p99 ratio the control plane's extra
//     work alone leaves, where the two share the cores). Its resource,
//     DevicePluginResource, is dra-bench.example.com/device, not
//     nvidia.com/gpu: the shapes' DeviceClass maps nvidia.com/gpu through
//     extendedResourceName, and kube-scheduler would allocate it through
//     DRA;
//   - file: a given KubeSchedulerConfiguration (Options.ConfigFile).
//
// ours, in-tree and no-claims are the default; device-plugin and file run
// when Options.Configs names them.
//
// # Design
//
// A run is a matrix of cluster sizes × configurations. Each cell (a Result)
// gets, in this order:
//
//  1. a fresh control plane (pkg/controlplane: etcd, kube-apiserver and the
//     resourceclaim controller in this process), or, with Options.Kubeconfig,
//     an existing cluster and a fresh namespace;
//  2. the inventory of the Shape: Nodes, ResourceSlices and DeviceClasses,
//     written as kubelet and the driver would (not in an existing cluster
//     unless Options.CreateInventory), each Node's status with the status
//     subresource;
//  3. for the DRA configurations, the pods' claims: one
//     ResourceClaimTemplate from which the resourceclaim controller creates a
//     claim per pod, as upstream's scheduler_perf does (ClaimsTemplate), or
//     one ResourceClaim per pod created up front (ClaimsPerPod);
//  4. dra-scheduler as a separate child process (the running executable,
//     re-executed with ChildEnv set; RunChild is what the child runs), with a
//     generated KubeSchedulerConfiguration (SchedulerConfig), until its
//     /readyz answers: informers synced, so the inventory is in its caches;
//  5. optionally Options.Warmup pods, waited for and not measured, then
//     Options.Pending backlog pods that wait through the run, for the
//     reason of Options.PendingReason: PendingTooBig pods ask for more
//     than a node has (pending.go); PendingHeld pods wait for devices
//     that holder pods, bound before the warm-up, hold on the nodes the
//     warm-up and measured pods do not select (pending_held.go);
//  6. Options.Pods pods created in a burst by a few concurrent writers,
//     while one watch records the moment each pod is first seen with
//     spec.nodeName set;
//  7. the child's peak RSS (VmHWM) and CPU time read from /proc before it is
//     killed; then every claim is checked (allocated, no device twice).
//
// A separate process is what makes the scheduler's memory and CPU its own,
// and keeps kube-scheduler's os.Exit on shutdown away from the tool. Its log
// goes to a file in Options.LogDir.
//
// # Workloads
//
// Options.Workload says what a cell measures. WorkloadBurst is the above.
// WorkloadPreemption (preemption.go) fills every device with low-priority
// pods, then measures high-priority preemptors that get devices only by
// evicting them (device-plugin's: units of its resource, with stock
// DefaultPreemption); its pods' claims come from templates or, in
// ClaimsPerPod mode, are pre-created, one per pod. WorkloadGang (gang.go)
// creates gangs, PodGroups with GenericWorkload on, whose pods prefer a
// whole device and fall back to a part, on nodes where a gang fits only
// if its devices are chosen jointly, and counts the gangs placed and the
// scheduler's pod-group cycles (read from its /metrics, cycles.go), with
// claims from templates only. Both run on the in-process control plane
// only, ours beside in-tree; what in-tree cannot do (preempt for devices,
// place such a gang) is reported, not failed. no-claims runs neither;
// device-plugin runs the preemption workload, and the gang workload only
// in racks (whole devices: an extended resource has no parts to fall
// back to).
//
// WorkloadGangPreemption (gang_preemption.go, issue 55) puts the nodes
// in racks of Options.RackSize (NVL72-like: 18 nodes of 4 GPUs), fills
// each rack with low-priority pods of one device to an occupancy set by
// its index (RackOccupancyPercent: 100, 95, 90, 85, 80%, so that every
// gang needs victims and racks differ in how many), then creates
// high-priority gangs of Options.GangSizes (16, 36, 72) with a topology
// constraint on RackLabel, one after the other: each is waited for until
// bound or Options.GangTimeout (then deleted), so that its fewest
// victims, computed from the layout read from the API just before it
// (MinGangVictims), is well defined. It reports per gang the victims
// against that minimum, the placements kube-scheduler tried, the
// scheduler's CPU and latency, and the goals met or not; ours runs
// beside device-plugin, whose stock DefaultPreemption preempts for a
// gang's extended resource, and in-tree, whose gangs stay pending.
//
// # Soak
//
// Soak (soak.go, soak_churn.go) runs configuration ours alone for a long
// time under churn — pods from rotating claim templates created and
// deleted, slices republished, a DeviceTaintRule added and removed — on a
// control plane that also runs the garbage collector, and reports what
// must hold at the end: no device held by two claims at any check, no
// claim left once every pod is gone, and the scheduler's live heap and
// goroutines flat after warm-up (read from its /metrics).
//
// # Invariants
//
//   - Every configuration of one size sees identical nodes, slices, classes
//     and pod specs on an identical, freshly started control plane, apart
//     from the claims (none for no-claims and device-plugin) and
//     device-plugin's extended resource: DevicePluginResource in every
//     node's status capacity and allocatable (Shape.DevicesPerNode units,
//     as many as the devices the others' claims can use) and in its pods'
//     limits and requests (as many units as the others' claims ask for
//     devices).
//   - Every scheduler gets the same clientConnection qps/burst (Options.QPS,
//     high by default, as scheduler_perf sets 5000), parallelism and profile
//     name, and leader election off: the client-side rate limiter is not what
//     is measured.
//   - Scheduler feature gates are the one setting that may differ between
//     configurations: Options.FeatureGates for all over each one's
//     ConfigFeatureGates (DefaultConfigFeatureGates: ours gets
//     SchedulerPreQueueingHints). Every Result names the gates its scheduler
//     got (SchedulerFeatureGates) and the resourceclaim controller's workers
//     (ResourceClaimWorkers, kube-controller-manager's default 50 unless
//     Options.ClaimWorkers says otherwise).
//   - Latency is the time from just before a pod's Create call to the first
//     watch event showing it bound; throughput is measured pods bound divided
//     by the span from the first measured Create to the last binding. Both
//     are measured by this process with one monotonic clock.
//   - A Result never hides a failure: pods not bound, claims not allocated,
//     devices held by two claims (for device-plugin: units bound beyond a
//     node's), backlog pods bound, holders no longer bound and a scheduler
//     that died are counted in the Result and make Run's caller fail.
//   - Ratios are absent rather than made of a zero: CPUVsDevicePlugin
//     needs both schedulers' CPU above 0, which /proc counts in 10 ms
//     clock ticks, so a small run may read 0; the control plane's ratios
//     need its CPU, which another cluster's (--kubeconfig) does not give.
//   - The child scheduler is always killed, also on errors and interrupts;
//     the control plane is always stopped.
//   - No package-level mutable state: everything lives in Options and the
//     values Run returns.
package schedbench
