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

package perf

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	scheduler_perf "k8s.io/kubernetes/test/integration/scheduler_perf"
	"k8s.io/kubernetes/test/utils/client-go/ktesting"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
)

var (
	variantsFlag = flag.String("dra-perf-variants", strings.Join(variants, ","),
		"comma-separated variants to run: "+strings.Join(variants, ", "))
	runKnownFailuresFlag = flag.Bool("dra-perf-run-known-failures", false,
		"run the draallocator variant of the test cases in knownFailures instead of skipping them")
	thresholdsFlag = flag.Bool("dra-perf-upstream-thresholds", false,
		"keep upstream's per-workload throughput thresholds (pass/fail gates calibrated for upstream's CI machines); by default both variants run without them")
	podsTimeoutFlag = flag.Duration("dra-perf-pods-timeout", 2*time.Minute,
		"TestSchedulerPerf: how long a workload may wait for its pods to be scheduled (the benchmark keeps scheduler_perf's 10m)")
	featureGatesFlag = flag.String("dra-perf-feature-gates", "",
		"feature gates set in every test case of both variants over the workload file's own, e.g. SchedulerPreQueueingHints=true (scheduler_perf has no flag for them)")
)

// registry is the out-of-tree registry of a variant.
func registry(variant string) frameworkruntime.Registry {
	if variant == variantDRAAllocator {
		return frameworkruntime.Registry{draallocator.Name: draallocator.New}
	}
	return nil
}

func selectedVariants(tb testing.TB) []string {
	var out []string
	for _, v := range strings.Split(*variantsFlag, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		if !slices.Contains(variants, v) {
			tb.Fatalf("-dra-perf-variants: unknown variant %q (known: %v)", v, variants)
		}
		out = append(out, v)
	}
	return out
}

// commonOptions skip the workloads of c that cannot run (see skipReason)
// and the known failures of draallocator (of both variants if
// knownFailuresBoth: the smoke test has nothing to compare there), and
// check that the scheduler runs the variant's plugin.
func commonOptions(c *perfConfig, variant string, knownFailuresBoth bool) []scheduler_perf.SchedulerPerfOption {
	return []scheduler_perf.SchedulerPerfOption{
		scheduler_perf.WithPreRunFn(func(tCtx ktesting.TContext, w *scheduler_perf.Workload) (func(), error) {
			// The test name ends in <TestCase>/<workload>.
			parts := strings.Split(tCtx.Name(), "/")
			if len(parts) < 2 {
				return nil, nil
			}
			testCase := parts[len(parts)-2]
			if reason := c.skips[testCase+"/"+w.Name]; reason != "" {
				tCtx.Skipf("skipped: %s", reason)
			}
			if evidence := knownFailures[c.Topic+"/"+testCase]; evidence != "" && (variant == variantDRAAllocator || knownFailuresBoth) && !*runKnownFailuresFlag {
				tCtx.Skipf("skipped, known DRAAllocator failure (-dra-perf-run-known-failures runs it): %s", evidence)
			}
			return nil, nil
		}),
		scheduler_perf.WithNodeUpdateFn(func(_ ktesting.TContext, sched *scheduler.Scheduler, _ *scheduler_perf.Workload, _ *v1.NodeList) error {
			return checkProfiles(sched, variant)
		}),
	}
}

// checkProfiles fails unless every profile filters with exactly the DRA
// plugin of the variant.
func checkProfiles(sched *scheduler.Scheduler, variant string) error {
	want, notWant := inTreePlugin, draallocator.Name
	if variant == variantDRAAllocator {
		want, notWant = notWant, want
	}
	for name, fw := range sched.Profiles {
		filters := fw.ListPlugins().Filter.Enabled
		has := func(plugin string) bool {
			return slices.ContainsFunc(filters, func(p schedconfig.Plugin) bool { return p.Name == plugin })
		}
		if !has(want) || has(notWant) {
			return fmt.Errorf("variant %s: profile %q runs Filter plugins %v, want %s and not %s", variant, name, filters, want, notWant)
		}
	}
	return nil
}

// withOutOfTreeRegistry sets the out-of-tree plugin registry for
// RunIntegrationPerfScheduling, which (unlike RunBenchmarkPerfScheduling)
// takes no registry and has no option for it in v1.37: it writes the
// unexported field that RunBenchmarkPerfScheduling sets. Fails if
// scheduler_perf no longer has that field.
func withOutOfTreeRegistry(registry frameworkruntime.Registry) (scheduler_perf.SchedulerPerfOption, error) {
	const fieldName = "outOfTreePluginRegistry"
	optionType := reflect.TypeFor[scheduler_perf.SchedulerPerfOption]()
	if optionType.NumIn() != 1 || optionType.In(0).Kind() != reflect.Pointer || optionType.In(0).Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("scheduler_perf.SchedulerPerfOption is %s, not func(*struct)", optionType)
	}
	field, ok := optionType.In(0).Elem().FieldByName(fieldName)
	if !ok || field.Type != reflect.TypeFor[frameworkruntime.Registry]() {
		return nil, fmt.Errorf("scheduler_perf's %s has no field %s of type frameworkruntime.Registry: update withOutOfTreeRegistry", optionType.In(0).Elem(), fieldName)
	}
	option := reflect.MakeFunc(optionType, func(args []reflect.Value) []reflect.Value {
		f := args[0].Elem().FieldByIndex(field.Index)
		reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(registry))
		return nil
	})
	return option.Interface().(scheduler_perf.SchedulerPerfOption), nil
}

// TestSchedulerPerf runs upstream's integration-test workloads (flag
// -test-scheduling-label-filter, default "integration-test,-performance")
// through RunIntegrationPerfScheduling in both variants. make test narrows
// it to the "fast" workloads with -run.
func TestSchedulerPerf(t *testing.T) {
	configs, err := loadConfigs()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range configs {
		t.Run(c.Topic, func(t *testing.T) {
			for _, variant := range selectedVariants(t) {
				t.Run(variant, func(t *testing.T) {
					file, err := c.workloadFile(variant, t.TempDir(), *thresholdsFlag)
					if err != nil {
						t.Fatal(err)
					}
					options := append(commonOptions(c, variant, true), scheduler_perf.WithPodsSchedulingTimeout(*podsTimeoutFlag))
					if r := registry(variant); r != nil {
						option, err := withOutOfTreeRegistry(r)
						if err != nil {
							t.Fatal(err)
						}
						options = append(options, option)
					}
					t.Chdir(c.Dir) // template paths are relative to the file's folder
					scheduler_perf.RunIntegrationPerfScheduling(t, file, options...)
				})
			}
		})
	}
}

// BenchmarkPerfScheduling runs upstream's performance workloads (flag
// -perf-scheduling-label-filter, default "performance") through
// RunBenchmarkPerfScheduling in both variants, one topic after the other,
// and prints a side-by-side table at the end. The DataItems JSON files go
// to <-data-items-dir or a temporary directory>/dra-perf-<time>/<topic>/<variant>.
// Run it with -benchtime=1x: every workload runs once per invocation anyway.
func BenchmarkPerfScheduling(b *testing.B) {
	configs, err := loadConfigs()
	if err != nil {
		b.Fatal(err)
	}
	dataFlag := flag.Lookup("data-items-dir")
	if dataFlag == nil {
		b.Fatal("scheduler_perf has no -data-items-dir flag")
	}
	orig := dataFlag.Value.String()
	base := orig
	if base == "" {
		if base, err = os.MkdirTemp("", "dra-perf-"); err != nil {
			b.Fatal(err)
		}
	}
	if base, err = filepath.Abs(base); err != nil {
		b.Fatal(err)
	}
	runDir := filepath.Join(base, "dra-perf-"+time.Now().Format("20060102-150405"))
	b.Cleanup(func() { _ = dataFlag.Value.Set(orig) })

	results := &resultSet{}
	for _, c := range configs {
		b.Run(c.Topic, func(b *testing.B) {
			for _, variant := range selectedVariants(b) {
				b.Run(variant, func(b *testing.B) {
					dir := filepath.Join(runDir, c.Topic, variant)
					if err := os.MkdirAll(dir, 0o755); err != nil {
						b.Fatal(err)
					}
					file, err := c.workloadFile(variant, b.TempDir(), *thresholdsFlag)
					if err != nil {
						b.Fatal(err)
					}
					if err := dataFlag.Value.Set(dir); err != nil {
						b.Fatal(err)
					}
					prefix := b.Name() + "/"
					b.Chdir(c.Dir) // template paths are relative to the file's folder
					scheduler_perf.RunBenchmarkPerfScheduling(b, file, c.Topic+"_"+variant, registry(variant), commonOptions(c, variant, false)...)
					if err := results.read(dir, c.Topic, variant, prefix); err != nil {
						b.Error(err)
					}
				})
			}
		})
	}
	if results.empty() {
		return
	}
	table := results.table()
	fmt.Printf("\nDRA scheduler_perf, in-tree DynamicResources vs DRAAllocator (data: %s)\n%s", runDir, table)
	if err := os.WriteFile(filepath.Join(runDir, "table.txt"), []byte(table), 0o644); err != nil {
		b.Error(err)
	}
}
