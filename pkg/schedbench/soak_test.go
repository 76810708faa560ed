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
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	argsscheme "github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config/scheme"
)

func TestGrowthComparesTheLastThirdAfterWarmUpWithTheFirst(t *testing.T) {
	samples := func(values ...float64) []SoakSample {
		out := make([]SoakSample, len(values))
		for i, v := range values {
			out[i] = SoakSample{At: time.Duration(i) * time.Second, LiveHeapBytes: v}
		}
		return out
	}
	live := func(s SoakSample) float64 { return s.LiveHeapBytes }
	for _, tc := range []struct {
		name    string
		samples []SoakSample
		warmUp  time.Duration
		want    float64
	}{
		{"a flat heap has no growth", samples(10, 10, 10, 10, 10, 10), 0, 0},
		{"a heap that doubles grows 100%", samples(10, 10, 15, 15, 20, 20), 0, 1},
		{"samples before warm-up do not count", samples(1, 1, 10, 10, 10, 10, 10, 10), 2 * time.Second, 0},
		{"a shrinking heap has negative growth", samples(20, 20, 10, 10), 0, -0.5},
		{"fewer than three samples after warm-up give no verdict", samples(1, 100), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := growth(tc.samples, tc.warmUp, live); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("growth = %v, want %v", got, tc.want)
			}
		})
	}
}

// draAllocatorArgs decodes a configuration with kube-scheduler's scheme
// and returns its profiles' DRAAllocator args, decoded and defaulted by
// the plugin's own scheme.
func draAllocatorArgs(t *testing.T, data []byte) []*config.DRAAllocatorArgs {
	t.Helper()
	obj, _, err := schedscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("decode:\n%s\n%v", data, err)
	}
	cfg := obj.(*schedconfig.KubeSchedulerConfiguration)
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		t.Fatalf("invalid: %v", err)
	}
	var out []*config.DRAAllocatorArgs
	for _, p := range cfg.Profiles {
		for _, pc := range p.PluginConfig {
			if pc.Name != draallocator.Name {
				continue
			}
			args, err := argsscheme.Decode(pc.Args)
			if err != nil {
				t.Fatalf("profile %s: %v", p.SchedulerName, err)
			}
			out = append(out, args)
		}
	}
	return out
}

func TestWithConsistencyCheckSetsTheIntervalOfEveryProfile(t *testing.T) {
	base, err := SchedulerConfig(ConfigOurs, "/tmp/kubeconfig", 5000, 5000)
	if err != nil {
		t.Fatal(err)
	}
	data, err := withConsistencyCheck(base, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	args := draAllocatorArgs(t, data)
	if len(args) != 1 || args[0].ConsistencyCheckInterval.Duration != 10*time.Second {
		t.Errorf("DRAAllocator args %+v, want one profile's with consistencyCheckInterval 10s", args)
	}

	// Args a profile already has are kept.
	twoProfiles := []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: a
  plugins: {multiPoint: {enabled: [{name: DRAAllocator}], disabled: [{name: DynamicResources}]}}
  pluginConfig:
  - name: DRAAllocator
    args: {scoringStrategy: {type: MostAllocated}, consistencyCheckInterval: 1h}
- schedulerName: b
  plugins: {multiPoint: {enabled: [{name: DRAAllocator}], disabled: [{name: DynamicResources}]}}
`)
	data, err = withConsistencyCheck(twoProfiles, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	args = draAllocatorArgs(t, data)
	if len(args) != 2 {
		t.Fatalf("%d DRAAllocator args, want both profiles'", len(args))
	}
	for i, a := range args {
		if a.ConsistencyCheckInterval.Duration != 3*time.Second {
			t.Errorf("profile %d: consistencyCheckInterval %v, want 3s", i, a.ConsistencyCheckInterval.Duration)
		}
	}
	if args[0].ScoringStrategy.Type != config.MostAllocated {
		t.Errorf("profile a's scoring strategy %q was not kept", args[0].ScoringStrategy.Type)
	}

	if _, err := withConsistencyCheck([]byte("kind: KubeSchedulerConfiguration\n"), time.Second); err == nil {
		t.Error("a configuration without profiles got an interval")
	}
}

func TestDifferencesByKindReadsTheCounterAsScraped(t *testing.T) {
	got := differencesByKind(map[string]float64{
		`dra_scheduler_cache_differences_total{kind="allocation"}`: 2,
		`dra_scheduler_cache_differences_total{kind="slice"}`:      1,
		`dra_scheduler_cache_differences_total{kind="pool"}`:       0,
		"dra_scheduler_consistency_check_differences":              5,
		"dra_scheduler_consistency_check_duration_seconds_count":   9,
	})
	if want := map[string]int{"allocation": 2, "slice": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("differencesByKind = %v, want %v", got, want)
	}
	if total(got) != 3 || describeKinds(got) != "allocation 2, slice 1" {
		t.Errorf("total %d, described %q", total(got), describeKinds(got))
	}
}

func TestConsistencyProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  SoakReport
		want []string
	}{
		{"checks that found nothing pass", SoakReport{ConsistencyChecks: 180}, nil},
		{"no check is a failure", SoakReport{}, []string{"the scheduler ran no consistency check"}},
		{"differences counted during the run fail it, by kind, pointing at the log",
			SoakReport{ConsistencyChecks: 180, CacheDifferences: map[string]int{"allocation": 1}, SchedulerLog: "/logs/scheduler.log"},
			[]string{`the consistency check found 1 difference(s) between the plugin's state and the API (allocation 1); the scheduler's log names them ("DRAAllocator state differs from the API"): /logs/scheduler.log`}},
		{"differences in the last check fail it",
			SoakReport{ConsistencyChecks: 180, CacheDifferences: map[string]int{"slice": 2}, FinalDifferences: 2},
			[]string{`the consistency check found 2 difference(s) between the plugin's state and the API (slice 2); the scheduler's log names them ("DRAAllocator state differs from the API"): `,
				"the consistency check after the churn found 2 difference(s)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := consistencyProblems(&tc.rep); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("consistencyProblems =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestLoggedDifferencesQuotesTheFirstLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scheduler.log")
	var log strings.Builder
	log.WriteString("I1204 unrelated\n")
	for i := range 5 {
		fmt.Fprintf(&log, "E1204 consistency.go:263] \"DRAAllocator state differs from the API\" kind=\"allocation\" difference=\"d%d\"\n", i)
	}
	if err := os.WriteFile(path, []byte(log.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := loggedDifferences(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !strings.HasSuffix(got[0], `difference="d0"`) || !strings.HasSuffix(got[2], `difference="d2"`) {
		t.Errorf("loggedDifferences = %q, want the first 3 differences", got)
	}
	if _, err := loggedDifferences(filepath.Join(t.TempDir(), "missing.log"), 3); err == nil {
		t.Error("a missing log gave no error")
	}
}
