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

package draallocator

import (
	"testing"

	"k8s.io/component-base/metrics/testutil"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

func TestPreFilterReportsWhatTheSelectorCacheHolds(t *testing.T) {
	nodes, objs := oneDeviceCluster("first", "second")
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	// The gauges are set at the next PreFilter with a claim to allocate.
	for _, name := range []string{"first", "second"} {
		if c, st := h.filter(pl, claimPod(name)); st != nil || len(c.feasible) != 1 {
			t.Fatalf("pod %s: PreFilter %v, feasible %v", name, st, c.feasible)
		}
	}
	want := pl.feed.matcher.Stats()
	if want.Expressions == 0 || want.Chains == 0 || want.Bytes == 0 {
		t.Fatalf("the matcher caches nothing after two pods: %+v", want)
	}
	for _, g := range []struct {
		name string
		got  func() (float64, error)
		want float64
	}{
		{"cel_cached_expressions", func() (float64, error) { return testutil.GetGaugeMetricValue(metrics.CELCachedExpressions) }, float64(want.Expressions)},
		{"cel_cached_selector_chains", func() (float64, error) { return testutil.GetGaugeMetricValue(metrics.CELCachedChains) }, float64(want.Chains)},
		{"cel_cache_bytes", func() (float64, error) { return testutil.GetGaugeMetricValue(metrics.CELCacheBytes) }, float64(want.Bytes)},
	} {
		got, err := g.got()
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		if got != g.want {
			t.Errorf("%s = %v, want %v (the matcher's)", g.name, got, g.want)
		}
	}
}
