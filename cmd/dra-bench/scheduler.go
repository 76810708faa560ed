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

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/klog/v2"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/pkg/version"
)

// exitDoubleAllocation is the exit code when a device was allocated to two
// claims: the scheduler under test is broken, whatever its speed.
const exitDoubleAllocation = 3

func schedulerCommand() command {
	return command{
		name:    "scheduler",
		summary: "end-to-end pods/s and creation→bound latency on a real API server: ours vs in-tree vs no claims",
		run:     runScheduler,
	}
}

// schedulerFlags are the scheduler subcommand's settings.
type schedulerFlags struct {
	workload, gangPlacement       string
	gangSizes                     string
	nodes, configs, shape, claims string
	format, jsonOut, chart        string
	logDir                        string
	featureGates, pendingReason   string
	qps                           float64
	burst, claimWorkers, count    int
	keepLogs, quiet               bool
	verbosity                     int
	opts                          schedbench.Options
}

func (f *schedulerFlags) register(fs *flag.FlagSet) {
	d := schedbench.DefaultOptions()
	fs.StringVar(&f.workload, "workload", string(d.Workload), "what to measure: burst (pods of one device created in a burst on free devices: pods/s and latency), preemption (nodes full of low-priority pods, then high-priority preemptors of 1, 2, 4 and 8 devices: bound, victims against the minimum, latency, scheduler CPU; default --configs ours,in-tree) gang (PodGroups whose pods prefer a whole GPU and fall back to a MIG half, on nodes where a gang fits only as halves: gangs placed, groups/s, pod-group cycles and scheduler CPU per gang; default --shape h100-mig, --configs ours,in-tree) or gang-preemption (racks filled 80-100% with low-priority pods, then high-priority gangs of --gang-sizes pods in one rack each, one after the other: per gang bound, victims against the minimum, placements, scheduler CPU and latency; default --shape h100x4, --configs ours,device-plugin,in-tree)")
	fs.StringVar(&f.gangSizes, "gang-sizes", "", "with --workload gang-preemption: comma-separated gang sizes dealt out in turn to --gangs gangs (default 16,36,72; --gangs default: two of each size)")
	fs.IntVar(&f.opts.GangSize, "gang-size", d.GangSize, "with --workload gang: pods per gang, each PodGroup's gang minCount")
	fs.IntVar(&f.opts.Gangs, "gangs", 0, "with --workload gang or gang-preemption: gangs per run (default: as many as the nodes' device parts hold; one per node with --gang-placement own-node)")
	fs.StringVar(&f.gangPlacement, "gang-placement", string(d.GangPlacement), "with --workload gang: own-node (each gang's pods select a node of their own, where the gang fits only if most pods take a part), any (gangs go anywhere and compete for the devices) or rack (each gang in one rack of --rack-size nodes: a PodGroup topology constraint, TopologyAwareWorkloadScheduling on)")
	fs.IntVar(&f.opts.RackSize, "rack-size", 0, fmt.Sprintf("with --workload gang-preemption, or gang and --gang-placement rack or any: nodes per rack (label %s; default %d with rack); every fourth rack is partly used before the gangs, pods ask for one whole device, gangs default to one per free rack, and TopologyAwareWorkloadScheduling is on, so that any and rack differ only in the constraint", schedbench.RackLabel, schedbench.DefaultRackSize))
	fs.DurationVar(&f.opts.GangTimeout, "gang-timeout", d.GangTimeout, "with --workload gang: how long to wait for the gangs of one run; with gang-preemption: for each gang; those still pending are reported (in-tree's strand their pods, or cannot preempt for them), not an error")
	fs.IntVar(&f.opts.Preemptors, "preemptors", 0, "with --workload preemption: preemptors per run, a quarter each needing 1, 2, 4 and 8 devices (default: one per 4 nodes; at most one per node)")
	fs.DurationVar(&f.opts.PreemptionTimeout, "preemption-timeout", d.PreemptionTimeout, "with --workload preemption: how long to wait for the preemptors of one run; those still pending are reported (in-tree's cannot preempt for devices), not an error")
	fs.StringVar(&f.nodes, "nodes", "100,500", "comma-separated cluster sizes (node counts); ignored with --kubeconfig unless --create-inventory")
	fs.StringVar(&f.configs, "configs", "", "comma-separated configurations to measure at every size, in this order: ours, in-tree, no-claims, device-plugin (the baseline without DRA: nodes advertise their devices as the extended resource "+string(schedbench.DevicePluginResource)+", pods ask for it in their limits), file (--config's) (default ours,in-tree,no-claims; with --config file,in-tree,no-claims; "+gangPreemptionConfigs+" with --workload gang-preemption)")
	fs.StringVar(&f.opts.ConfigFile, "config", "", "a KubeSchedulerConfiguration file to measure as the configuration \"file\", e.g. the shipped one (manifests/install/configmap.yaml's config.yaml); it runs at its own clientConnection qps and burst, with leader election off and its first profile renamed "+schedbench.SchedulerName)
	fs.StringVar(&f.shape, "shape", "", "inventory shape, one of the Shapes above (default "+d.Shape.Name+"; "+gangShape+" with --workload gang, "+gangPreemptionShape+" with gang-preemption)")
	fs.StringVar(&f.claims, "claims", string(d.Claims), "how pods get their claim: template (one ResourceClaimTemplate, claims made by the resourceclaim controller) or claim (one ResourceClaim per pod, created before the scheduler starts)")
	fs.IntVar(&f.opts.Pods, "pods", 0, "measured pods per run (default: one per node)")
	fs.IntVar(&f.opts.Warmup, "warmup", 0, "pods scheduled (and waited for) before the measured ones, not measured")
	fs.IntVar(&f.opts.Pending, "pending", 0, "a backlog: pods that wait (see --pending-reason), created after the warm-up and kept in the scheduler's queue through the measured run")
	fs.StringVar(&f.pendingReason, "pending-reason", string(d.PendingReason), fmt.Sprintf("why the --pending pods wait: %s (a claim for one device more than a node has, for device-plugin one unit more; without claims, a node label no node has) or %s (one device each, on nodes labelled %s=%s whose every device holder pods take before the warm-up; the warm-up and measured pods go to the first ceil((pods+warmup)/devices per node) nodes, labelled %s=%s; not with no-claims)",
		schedbench.PendingTooBig, schedbench.PendingHeld, schedbench.CapacityLabel, schedbench.CapacityHeld, schedbench.CapacityLabel, schedbench.CapacityFree))
	fs.Float64Var(&f.qps, "qps", float64(d.QPS), "the scheduler's clientConnection.qps (high, so that the client rate limiter is not what is measured)")
	fs.IntVar(&f.burst, "burst", int(d.Burst), "the scheduler's clientConnection.burst")
	fs.IntVar(&f.opts.Writers, "writers", d.Writers, "concurrent clients creating nodes, slices, claims and pods")
	fs.DurationVar(&f.opts.Timeout, "timeout", d.Timeout, "how long to wait for the measured pods of one run")
	fs.DurationVar(&f.opts.Stall, "stall", d.Stall, "give a run up when no pod is bound for this long")
	fs.IntVar(&f.claimWorkers, "claim-workers", controlplane.DefaultResourceClaimWorkers, "workers of the in-process resourceclaim controller (kube-controller-manager's --concurrent-resourceclaim-syncs, whose default this is); meaningless with --kubeconfig, where the cluster's kube-controller-manager runs it, so only the default is accepted there")
	fs.StringVar(&f.featureGates, "feature-gates", "", "feature gates of the scheduler under test in every configuration, e.g. SchedulerPreQueueingHints=true,OtherGate=false (kube-scheduler's --feature-gates; not the control plane's); they override the configuration's defaults ("+defaultGatesHelp()+")")
	fs.StringVar(&f.opts.Kubeconfig, "kubeconfig", "", "measure on the cluster of this kubeconfig instead of an in-process control plane (see README: no other scheduler may allocate the same pools)")
	fs.StringVar(&f.opts.Namespace, "namespace", d.Namespace, "with --kubeconfig: prefix of the namespaces created (and deleted) for the pods, one per configuration")
	fs.BoolVar(&f.opts.CreateInventory, "create-inventory", false, "with --kubeconfig: create (and delete) the shape's Nodes, ResourceSlices and DeviceClasses per run")
	fs.IntVar(&f.count, "count", 1, "repeat the whole run this many times, one after the other; every result is reported (dra-bench compare and benchstat take repeats as samples)")
	fs.StringVar(&f.format, "format", "table", "output on stdout: table, json or benchfmt (the Go benchmark format benchstat reads)")
	fs.StringVar(&f.jsonOut, "json-out", "", "also write the JSON report to this file (whatever --format prints)")
	fs.StringVar(&f.chart, "chart", "", "also write an SVG chart of throughput and latency against cluster size to this file")
	fs.StringVar(&f.logDir, "log-dir", "", "directory for the scheduler logs and configurations and the control plane's log (default: a temporary directory, removed after a successful run)")
	fs.BoolVar(&f.keepLogs, "keep-logs", false, "keep the temporary log directory after a successful run")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	fs.IntVar(&f.verbosity, "v", 0, "log verbosity of the in-process control plane (in the log directory)")
	fs.Func("scheduler-flag", "an extra dra-scheduler command-line flag for every run (repeatable), e.g. --scheduler-flag=--authorization-always-allow-paths=/healthz,/readyz,/livez,/debug/pprof/* to take CPU profiles from /debug/pprof on its secure port (feature gates: --feature-gates)", func(v string) error {
		f.opts.SchedulerFlags = append(f.opts.SchedulerFlags, v)
		return nil
	})
}

func runScheduler(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	// The scheduler child of a run (see schedbench.ChildEnv).
	if encoded := os.Getenv(schedbench.ChildEnv); encoded != "" {
		if code := schedulerapp.RunJSONArgs(encoded); code != 0 {
			return exitError{code: code, err: errors.New("dra-scheduler failed")}
		}
		return nil
	}
	f := &schedulerFlags{opts: schedbench.DefaultOptions()}
	fs := flag.NewFlagSet("dra-bench scheduler", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.Usage = func() { schedulerUsage(fs) }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.complete(); err != nil {
		return usageError{err}
	}
	if !f.quiet {
		f.opts.Progress = stderr
	}

	logDir, removeLogs, err := makeLogDir(f.logDir, f.keepLogs)
	if err != nil {
		return err
	}
	f.opts.LogDir = logDir
	logFile, err := os.Create(filepath.Join(logDir, "controlplane.log"))
	if err != nil {
		return fmt.Errorf("create control plane log: %w", err)
	}
	defer logFile.Close()
	ctx = routeKlog(ctx, logFile, f.verbosity)
	if !f.quiet {
		fmt.Fprintf(stderr, "dra-bench: logs in %s\n", logDir)
	}

	report, runErr := schedbench.Run(ctx, f.opts)
	if report == nil {
		return usageError{runErr}
	}
	for i := 1; i < f.count && runErr == nil; i++ {
		var again *schedbench.Report
		if again, runErr = schedbench.Run(ctx, f.opts); again != nil {
			report.Results = append(report.Results, again.Results...)
		}
	}
	report.Version = version.Version()
	if err := f.write(report, stdout, stderr); err != nil {
		return err
	}
	failed, doubled := 0, 0
	for _, r := range report.Results {
		if r.Failed() {
			failed++
		}
		doubled += r.DuplicateDevices
	}
	switch {
	case runErr != nil:
		return fmt.Errorf("stopped early (results above are partial; logs in %s): %w", logDir, runErr)
	case doubled > 0:
		return exitError{code: exitDoubleAllocation, err: fmt.Errorf("%d device(s) allocated to two claims; logs in %s", doubled, logDir)}
	case failed > 0:
		return fmt.Errorf("%d of %d runs failed (see above); logs in %s", failed, len(report.Results), logDir)
	}
	if removeLogs {
		_ = os.RemoveAll(logDir)
	}
	return nil
}

// complete turns the string flags into options.
func (f *schedulerFlags) complete() error {
	var err error
	if f.opts.Sizes, err = parseSizes(f.nodes); err != nil {
		return fmt.Errorf("--nodes: %w", err)
	}
	if f.opts.Workload, err = schedbench.ParseWorkload(f.workload); err != nil {
		return fmt.Errorf("--workload: %w", err)
	}
	if err := f.completeWorkload(); err != nil {
		return err
	}
	if f.count < 1 {
		return fmt.Errorf("--count %d: want at least 1", f.count)
	}
	if f.qps <= 0 || f.burst <= 0 {
		return errors.New("--qps and --burst must be positive")
	}
	f.opts.QPS, f.opts.Burst = float32(f.qps), int32(f.burst)
	if f.opts.Pods < 0 || f.opts.Warmup < 0 || f.opts.Pending < 0 {
		return errors.New("--pods, --warmup and --pending must not be negative")
	}
	if f.opts.PendingReason, err = schedbench.ParsePendingReason(f.pendingReason); err != nil {
		return fmt.Errorf("--pending-reason: %w", err)
	}
	if f.opts.Kubeconfig == "" && f.opts.CreateInventory {
		return errors.New("--create-inventory needs --kubeconfig (the in-process control plane always gets the inventory)")
	}
	switch {
	case f.claimWorkers < 1:
		return fmt.Errorf("--claim-workers %d: want at least 1", f.claimWorkers)
	case f.opts.Kubeconfig == "":
		f.opts.ClaimWorkers = f.claimWorkers
	case f.claimWorkers != controlplane.DefaultResourceClaimWorkers:
		return fmt.Errorf("--claim-workers %d with --kubeconfig: the workers configure the in-process control plane's resourceclaim controller; the cluster's kube-controller-manager runs its own (set its --concurrent-resourceclaim-syncs)", f.claimWorkers)
	}
	if f.opts.FeatureGates, err = schedbench.ParseFeatureGates(f.featureGates); err != nil {
		return fmt.Errorf("--feature-gates: %w", err)
	}
	if f.opts.Kubeconfig != "" && !f.opts.CreateInventory && f.opts.Pods == 0 {
		return errors.New("--kubeconfig without --create-inventory needs --pods (the cluster's free devices are not known)")
	}
	return nil
}

// defaultGatesHelp describes schedbench.DefaultConfigFeatureGates for the
// flag help: "ours: A=true; in-tree, no-claims, device-plugin: none".
func defaultGatesHelp() string {
	defaults := schedbench.DefaultConfigFeatureGates()
	var parts, none []string
	for _, c := range append(schedbench.AllConfigs(), schedbench.ConfigDevicePlugin) {
		if g := defaults[c]; len(g) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", c, g))
		} else {
			none = append(none, string(c))
		}
	}
	if len(none) > 0 {
		parts = append(parts, strings.Join(none, ", ")+": none")
	}
	return strings.Join(parts, "; ")
}

// makeLogDir creates dir (--log-dir), or a temporary directory when dir is
// empty; remove reports a temporary one to delete after a passing run
// unless keep (--keep-logs).
func makeLogDir(dir string, keep bool) (_ string, remove bool, _ error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", false, fmt.Errorf("--log-dir: %w", err)
		}
		abs, err := filepath.Abs(dir)
		return abs, false, err
	}
	tmp, err := os.MkdirTemp("", "dra-bench-scheduler-")
	if err != nil {
		return "", false, fmt.Errorf("create log directory: %w", err)
	}
	return tmp, !keep, nil
}

// routeKlog sends this process' logs (kube-apiserver, etcd's apiserver
// client, the resourceclaim controller) to w instead of stderr, where the
// progress lines and results go.
func routeKlog(ctx context.Context, w io.Writer, verbosity int) context.Context {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	_ = fs.Set("v", fmt.Sprint(verbosity))
	klog.SetOutput(w)
	return withLogger(ctx, w, verbosity)
}

// write prints the report on stdout and writes the JSON file and chart.
func (f *schedulerFlags) write(report *schedbench.Report, stdout, stderr io.Writer) error {
	if err := writeReport(report, f.format, f.jsonOut, stdout); err != nil {
		return err
	}
	if f.chart == "" {
		return nil
	}
	return writeChart(f.chart, report.Figure(), f.quiet, stderr)
}

func schedulerUsage(fs *flag.FlagSet) {
	w := fs.Output()
	var shapes []string
	for _, s := range schedbench.Shapes() {
		shapes = append(shapes, fmt.Sprintf("  %-10s %s", s.Name, s.Description))
	}
	fmt.Fprintf(w, `Usage: dra-bench scheduler [flags]

Measures dra-scheduler end to end: pods bound per second and the latency
from each pod's creation to its binding, on a real kube-apiserver, for
three configurations on the same workload:

  ours       DRAAllocator enabled, DynamicResources disabled
  in-tree    kube-scheduler's default plugins (DynamicResources)
  no-claims  default plugins, the same pods without claims: the floor the
             API writes set

and, with --configs, the baseline every GPU platform runs today:

  device-plugin  default plugins, the same pods without claims asking
                 for their devices in their limits as an extended
                 resource, %s, of which every node
                 advertises as many in its status as the shape has
                 devices; not nvidia.com/gpu, which the shapes'
                 DeviceClass maps: that would make it DRA

For every --nodes size and configuration it starts a fresh in-process
control plane (etcd, kube-apiserver, resourceclaim controller with
--claim-workers workers), creates the nodes, ResourceSlices and
DeviceClasses of --shape and the claims, runs dra-scheduler as a child
process (qps/burst --qps/--burst, leader election off, --feature-gates over
the configuration's default gates) until /readyz, creates the pods in a
burst and watches them bind. The child's peak RSS and CPU time are
reported; afterwards every claim must be allocated and no device held
twice (exit code 3 if one is). The report names every scheduler's feature
gates and the resourceclaim controller's workers.

Shapes:
%s

With --workload preemption it instead fills every node with low-priority
pods of one device each, then creates high-priority preemptors needing 1,
2, 4 and 8 devices and reports how many bound, the low-priority pods
evicted against the fewest possible, creation→bound latency and the
scheduler's CPU per preemptor (ours and in-tree; see README).

With --workload gang it creates gangs (PodGroups, minCount --gang-size)
whose pods prefer a whole GPU and fall back to a MIG half (firstAvailable),
each gang on a node of its own where it fits only as halves, and reports
the gangs placed, groups placed per second, the scheduler's pod-group
cycles and CPU per gang, and creation→bound latency per gang (ours and
in-tree, which chooses pod by pod and strands the gangs; see README).
With --gang-placement rack the nodes are in racks (--rack-size, 18 nodes
of 4 GPUs by default, as an NVL72 rack), every fourth partly used, and
each gang's pods, of one whole GPU each, must share a rack: it reports
the placements kube-scheduler tried per gang besides; --gang-placement
any --rack-size 18 runs the same gangs without the constraint.

With --workload gang-preemption the nodes are in racks (--rack-size, 18
nodes of 4 GPUs by default), each filled with low-priority pods of one
GPU to 100, 95, 90, 85 or 80%% by its index, then high-priority gangs of
--gang-sizes pods (16, 36, 72), each kept to one rack, are created one
after the other; it reports per gang whether it was bound, the victims
against the fewest its rack layout allows, the placements tried, the
scheduler's CPU and creation→bound latency (ours, device-plugin and
in-tree, whose gangs stay pending; see README).

Examples:
  dra-bench scheduler                                   # 100 and 500 nodes, 1 pod per node
  dra-bench scheduler --workload preemption --shape h100 --nodes 20 --configs ours,in-tree
  dra-bench scheduler --workload gang --nodes 50
  dra-bench scheduler --workload gang --gang-placement rack --gang-size 36 --gangs 20 --nodes 5000
  dra-bench scheduler --workload gang-preemption --nodes 1000 --gang-timeout 1m
  dra-bench scheduler --nodes 100,500,1000 --pods 500 --chart out.svg
  dra-bench scheduler --shape h100 --nodes 5000 --pods 5000 --format json > h100-5000.json
  dra-bench scheduler --kubeconfig ~/.kube/config --pods 200 --configs ours,in-tree

Flags:
`, schedbench.DevicePluginResource, strings.Join(shapes, "\n"))
	fs.PrintDefaults()
	fmt.Fprint(w, `
Progress goes to stderr, results to stdout. See cmd/dra-bench/README.md for
the JSON fields and for running against an existing cluster.
`)
}
