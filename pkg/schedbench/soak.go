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
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
)

// SoakOptions configure a soak run: dra-scheduler (configuration ours) in
// a child process on an in-process control plane, under churn for
// Duration.
type SoakOptions struct {
	// Duration is how long the churn runs.
	Duration time.Duration
	// WarmUp is the part of Duration after which the scheduler's heap and
	// goroutines must stay flat.
	WarmUp time.Duration
	// Nodes is the number of nodes with 8 H100 GPUs each.
	Nodes int
	// Occupancy is the fraction of the GPUs that live pods ask for.
	Occupancy float64
	// PodLifetime is the mean time from a pod's creation to its deletion,
	// bound or not.
	PodLifetime time.Duration
	// TemplateEvery, SliceEvery and TaintEvery are how often a new
	// ResourceClaimTemplate (with a selector not seen before) replaces the
	// one new pods use, a node's ResourceSlice is republished with the next
	// pool generation, and a DeviceTaintRule is added or removed.
	TemplateEvery, SliceEvery, TaintEvery time.Duration
	// SampleEvery is how often the scheduler's heap and goroutines are read
	// from its /metrics.
	SampleEvery time.Duration
	// ConsistencyEvery is how often the scheduler's consistency check
	// compares the plugin's state with the API's objects (its
	// consistencyCheckInterval); every difference it finds fails the soak.
	ConsistencyEvery time.Duration
	// Growth is how much the heap and the goroutines may grow from the
	// first third of the samples after warm-up to the last third (0.25 is
	// 25%).
	Growth float64
	// Seed makes the churn reproducible.
	Seed uint64
	// LogDir, SchedulerFlags, FeatureGates, Child and Progress are as in
	// Options.
	LogDir         string
	SchedulerFlags []string
	FeatureGates   FeatureGates
	Child          []string
	Progress       io.Writer
}

// DefaultSoakOptions returns the defaults of dra-bench soak (make soak).
func DefaultSoakOptions() SoakOptions {
	return SoakOptions{
		Duration:      10 * time.Minute,
		WarmUp:        3 * time.Minute,
		Nodes:         16,
		Occupancy:     0.75,
		PodLifetime:   20 * time.Second,
		TemplateEvery: 30 * time.Second,
		SliceEvery:    5 * time.Second,
		TaintEvery:    45 * time.Second,
		SampleEvery:   10 * time.Second,
		// The check's cost at 5000 nodes is ~80 ms (docs/benchmarks.md).
		ConsistencyEvery: 10 * time.Second,
		Growth:           0.25,
		Seed:             1,
	}
}

// SoakReport is what a soak run found.
type SoakReport struct {
	Duration time.Duration
	Nodes    int
	GPUs     int
	// Pods counts pods created, bound and deleted; Latency is creation to
	// binding of the bound ones.
	PodsCreated, PodsBound, PodsDeleted int
	Latency                             Latency
	// Templates, SliceUpdates and TaintRuleChanges count the churn's
	// other writes.
	Templates, SliceUpdates, TaintRuleChanges int
	// Checks counts the periodic double-allocation checks; DoubleAllocated
	// the devices any of them found held by two claims (must be 0).
	Checks, DoubleAllocated int
	// OrphanClaims are claims left for pods that no longer exist once the
	// resourceclaim controller and the garbage collector had 2 minutes to
	// clean up (must be 0).
	OrphanClaims int
	// ConsistencyChecks counts the scheduler's consistency checks (every
	// ConsistencyEvery, and one on SIGUSR2 after the cleanup);
	// CacheDifferences are the differences between the plugin's state and
	// the API's objects they found, by kind
	// (dra_scheduler_cache_differences_total; must be none);
	// FinalDifferences what the last one found (must be 0); and
	// DifferencesLogged the first lines of the scheduler's log naming them.
	ConsistencyChecks int
	CacheDifferences  map[string]int `json:",omitempty"`
	FinalDifferences  int
	DifferencesLogged []string `json:",omitempty"`
	// Samples are the scheduler's heap and goroutines over time.
	Samples []SoakSample
	// HeapGrowth and GoroutineGrowth compare the last third of the samples
	// after warm-up with the first third (0.1 is 10% more): the live heap
	// at the last garbage collection and the goroutines.
	HeapGrowth, GoroutineGrowth float64
	// SchedulerCPUSeconds is the scheduler's CPU time over the run.
	SchedulerCPUSeconds float64
	SchedulerLog        string
	// Problems lists every failed check; empty means the soak passed.
	Problems []string
}

// SoakSample is one reading of the scheduler's /metrics.
type SoakSample struct {
	At time.Duration
	// HeapBytes is go_memstats_heap_alloc_bytes (garbage included);
	// LiveHeapBytes the heap marked live by the last garbage collection
	// (half of go_memstats_next_gc_bytes with GOGC=100), which is what
	// grows when something leaks.
	HeapBytes, LiveHeapBytes float64
	Goroutines               float64
	// CELCacheBytes is dra_scheduler_cel_cache_bytes.
	CELCacheBytes float64
	// ConsistencyChecks and Differences are the consistency checks run
	// and the differences they found so far (the sum of
	// dra_scheduler_cache_differences_total).
	ConsistencyChecks, Differences float64
}

// Soak runs the churn and checks what must hold at the end.
func Soak(ctx context.Context, opts SoakOptions) (*SoakReport, error) {
	d := DefaultSoakOptions()
	if opts.Duration <= 0 {
		opts.Duration = d.Duration
	}
	if opts.WarmUp <= 0 || opts.WarmUp >= opts.Duration {
		opts.WarmUp = opts.Duration * 3 / 10
	}
	for _, f := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&opts.PodLifetime, d.PodLifetime}, {&opts.TemplateEvery, d.TemplateEvery}, {&opts.SliceEvery, d.SliceEvery},
		{&opts.TaintEvery, d.TaintEvery}, {&opts.SampleEvery, d.SampleEvery}, {&opts.ConsistencyEvery, d.ConsistencyEvery}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	if opts.Nodes <= 0 {
		opts.Nodes = d.Nodes
	}
	if opts.Occupancy <= 0 || opts.Occupancy > 1 {
		opts.Occupancy = d.Occupancy
	}
	if opts.Growth <= 0 {
		opts.Growth = d.Growth
	}
	if len(opts.Child) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find own executable for the scheduler child: %w", err)
		}
		opts.Child = []string{exe, "scheduler"}
	}
	if opts.LogDir == "" {
		return nil, errors.New("soak: LogDir must be set")
	}

	cp, err := controlplane.Start(ctx, controlplane.Options{GarbageCollector: true})
	if err != nil {
		return nil, fmt.Errorf("start control plane: %w", err)
	}
	defer cp.Stop()
	config := restclient.CopyConfig(cp.Config)
	// The churn's writes are not rate-limited on the client side.
	config.QPS, config.Burst = -1, 0
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("create client: %w", err)
	}
	cluster := inventorygen.NvidiaH100(opts.Nodes)
	rep := &SoakReport{Duration: opts.Duration, Nodes: opts.Nodes, GPUs: opts.Nodes * inventorygen.NvidiaGPUsPerNode}
	if _, err := client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: inProcessNamespace}}, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create namespace %s: %w", inProcessNamespace, err)
	}
	if err := CreateInventory(ctx, client, cluster, 8); err != nil {
		return nil, err
	}

	cfg, err := SchedulerConfig(ConfigOurs, cp.Kubeconfig, 5000, 5000)
	if err != nil {
		return nil, err
	}
	if cfg, err = withConsistencyCheck(cfg, opts.ConsistencyEvery); err != nil {
		return nil, err
	}
	base := time.Now().Format("150405") + "-soak"
	cfgPath := filepath.Join(opts.LogDir, base+"-scheduler.yaml")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		return nil, fmt.Errorf("write scheduler configuration: %w", err)
	}
	rep.SchedulerLog = filepath.Join(opts.LogDir, base+"-scheduler.log")
	gates := MergeFeatureGates(DefaultConfigFeatureGates()[ConfigOurs], opts.FeatureGates)
	flags := []string{"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics"}
	if len(gates) > 0 {
		flags = append(flags, "--feature-gates="+gates.String())
	}
	sched, err := startChild(ctx, opts.Child, cfgPath, rep.SchedulerLog, append(flags, opts.SchedulerFlags...))
	if err != nil {
		return nil, err
	}
	defer sched.stop()
	progress(opts.Progress, "soak: scheduler ready (pid %d, log %s); churn for %v on %d nodes, %d GPUs; consistency check every %v",
		sched.cmd.Process.Pid, rep.SchedulerLog, opts.Duration, opts.Nodes, rep.GPUs, opts.ConsistencyEvery)
	before, err := sched.usage()
	if err != nil {
		return nil, err
	}

	rec, err := podlatency.Start(ctx, client, inProcessNamespace)
	if err != nil {
		return nil, err
	}
	defer rec.Stop()
	ch := &churn{opts: opts, client: client, cluster: cluster, rec: rec, rep: rep, rng: rand.New(rand.NewPCG(opts.Seed, 0x50a6))}
	if _, err := client.ResourceV1().ResourceClaimTemplates(inProcessNamespace).Create(ctx, soakTemplate(0), metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create ResourceClaimTemplate soak-0: %w", err)
	}
	rep.Templates = 1
	runCtx, cancel := context.WithTimeout(ctx, opts.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for _, loop := range []func(context.Context) error{ch.pods, ch.templates, ch.slices, ch.taints} {
		wg.Go(func() {
			if err := loop(runCtx); err != nil && runCtx.Err() == nil {
				errs <- err
				cancel()
			}
		})
	}
	wg.Go(func() { ch.sample(runCtx, sched, start) })
	wg.Go(func() { ch.checkPeriodically(runCtx) })
	wg.Wait()
	close(errs)
	var runErr error
	for err := range errs {
		runErr = errors.Join(runErr, err)
	}
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	if sched.exited() {
		rep.Problems = append(rep.Problems, "the scheduler exited during the soak; log: "+rep.SchedulerLog)
	} else if after, err := sched.usage(); err == nil {
		rep.SchedulerCPUSeconds = (after.cpu - before.cpu).Seconds()
	}
	lat, _, _ := rec.Samples(ch.created)
	rep.PodsBound = len(lat)
	rep.Latency = Summarize(lat)

	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	defer ccancel()
	if err := ch.finalChecks(cctx); err != nil {
		runErr = errors.Join(runErr, err)
	}
	if !sched.exited() {
		if err := finalConsistencyCheck(cctx, sched, rep); err != nil {
			rep.Problems = append(rep.Problems, err.Error())
		}
		rep.Problems = append(rep.Problems, consistencyProblems(rep)...)
		if total(rep.CacheDifferences) > 0 || rep.FinalDifferences > 0 {
			if rep.DifferencesLogged, err = loggedDifferences(rep.SchedulerLog, maxDifferencesLogged); err != nil {
				rep.Problems = append(rep.Problems, "read the scheduler's log: "+err.Error())
			}
		}
	}
	rep.HeapGrowth, rep.GoroutineGrowth = growth(rep.Samples, opts.WarmUp, func(s SoakSample) float64 { return s.LiveHeapBytes }),
		growth(rep.Samples, opts.WarmUp, func(s SoakSample) float64 { return s.Goroutines })
	if rep.HeapGrowth > opts.Growth {
		rep.Problems = append(rep.Problems, fmt.Sprintf("scheduler heap grew %.0f%% after warm-up (limit %.0f%%)", 100*rep.HeapGrowth, 100*opts.Growth))
	}
	if rep.GoroutineGrowth > opts.Growth {
		rep.Problems = append(rep.Problems, fmt.Sprintf("scheduler goroutines grew %.0f%% after warm-up (limit %.0f%%)", 100*rep.GoroutineGrowth, 100*opts.Growth))
	}
	if rep.PodsBound == 0 {
		rep.Problems = append(rep.Problems, "no pod was bound")
	}
	return rep, runErr
}

// growth compares the mean of the last third of the samples taken after
// warmUp with the mean of the first third: 0.1 means 10% more. Fewer than
// three samples after warm-up give 0.
func growth(samples []SoakSample, warmUp time.Duration, value func(SoakSample) float64) float64 {
	var after []float64
	for _, s := range samples {
		if s.At >= warmUp {
			after = append(after, value(s))
		}
	}
	third := len(after) / 3
	if third == 0 {
		return 0
	}
	mean := func(xs []float64) float64 {
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		return sum / float64(len(xs))
	}
	first, last := mean(after[:third]), mean(after[len(after)-third:])
	if first == 0 {
		return 0
	}
	return last/first - 1
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		_, _ = fmt.Fprintf(w, time.Now().Format("15:04:05 ")+format+"\n", args...)
	}
}

// soakTemplate is the claim template of generation k: one H100 whose
// product name is longer than k%10 characters (always true), spelled
// differently each time, so that every generation brings a selector the
// scheduler has not seen.
func soakTemplate(k int) *resourceapi.ResourceClaimTemplate {
	expr := fmt.Sprintf("device.attributes[%q].productName.size() > %d && %d >= 0", inventorygen.DriverNvidia, k%10, k)
	return &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("soak-%d", k), Namespace: inProcessNamespace},
		Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: requestName, Exactly: &resourceapi.ExactDeviceRequest{
				DeviceClassName: inventorygen.ClassNvidiaGPU,
				AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
				Count:           1,
				Selectors:       []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: expr}}},
			}}},
		}}},
	}
}

// soakPod is a pod using the template of generation k.
func soakPod(name string, k int) *v1.Pod {
	pod := makePod(name, inProcessNamespace, ConfigOurs, ClaimsTemplate)
	pod.Spec.ResourceClaims[0].ResourceClaimTemplateName = ptr.To(fmt.Sprintf("soak-%d", k))
	return pod
}
