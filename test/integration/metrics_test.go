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

package integration

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/component-base/metrics/legacyregistry"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestMetrics schedules DRA pods with the in-process dra-scheduler and
// reads the plugin's metrics from the process' legacy registry. The
// metrics are process-wide, so counters are compared before and after.
func TestMetrics(t *testing.T) {
	e := startCluster(t, draConfig)
	for _, n := range []string{"node-1", "node-2", "node-3", "node-4"} {
		e.create(objects.MakeNode(n).Obj())
	}
	const driver = "metrics.example.com"
	const selector = `device.attributes["metrics.example.com"].model == "m1"`
	// Two classes with the same selector expression: a claim of the
	// second class asks a new question per node (its own selector chain)
	// made of expressions the matcher has already evaluated.
	e.create(objects.DeviceClass("metrics-a", driver), objects.DeviceClass("metrics-b", driver),
		objects.MakeSlice("metrics-node-1", driver, "node-1").Device("d0", nil).Attribute("model", "m1").Device("d1", nil).Attribute("model", "m1").Obj(),
		objects.MakeSlice("metrics-node-2", driver, "node-2").Device("d0", nil).Attribute("model", "m1").Device("d1", nil).Attribute("model", "m1").Obj(),
		objects.MakeSlice("metrics-node-3", driver, "node-3").Device("d0", nil).Attribute("model", "m1").Obj(),
		objects.ClaimTemplate("a", e.ns, "dev", "metrics-a", 1, selector),
		objects.ClaimTemplate("b", e.ns, "dev", "metrics-b", 1, selector),
		objects.ClaimTemplate("big", e.ns, "dev", "metrics-a", 3),
		// Scored by its devices: the other pods' Score is skipped.
		objects.FirstAvailableTemplate("f", e.ns, "dev", "metrics-b", "metrics-a"))
	const devices, numSlices, pools = 5, 3, 3

	before := gatherDRAMetrics(t)
	scheduled := []string{"m-a-1", "m-a-2", "m-b-1", "m-f-1"}
	for _, name := range scheduled {
		template := name[2:3]
		e.create(objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", template).Obj())
		e.waitScheduled(name)
	}
	e.create(objects.MakePod("m-big", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "big").Obj())
	msg := e.waitUnschedulable("m-big", "0/4 nodes are available")
	t.Logf("m-big: %s", msg)
	after := gatherDRAMetrics(t)
	delta := func(key string) float64 { return after[key] - before[key] }
	t.Logf("metric deltas:\n%s", describeDeltas(before, after))

	const duration = "dra_scheduler_extension_point_duration_seconds"
	for _, ep := range []string{"PreFilter", "Filter", "Score", "Reserve", "PreBind", "PostFilter"} {
		if n := sumDelta(before, after, duration, "extension_point="+ep); n <= 0 {
			t.Errorf("%s{extension_point=%q}: %v new observations, want some", duration, ep, n)
		}
	}
	for _, ep := range []string{"Reserve", "PreBind"} {
		if n := delta(duration + "{extension_point=" + ep + ",status=Success}"); n < float64(len(scheduled)) {
			t.Errorf("%s{extension_point=%q,status=Success}: %v new observations, want at least one per scheduled pod (%d)", duration, ep, n, len(scheduled))
		}
	}
	if n := delta(duration + "{extension_point=Filter,status=UnschedulableAndUnresolvable}"); n <= 0 {
		t.Errorf("no Filter observation with status UnschedulableAndUnresolvable, although m-big fits nowhere")
	}

	if n := delta("dra_scheduler_claims_allocated_total"); n < float64(len(scheduled)) {
		t.Errorf("dra_scheduler_claims_allocated_total grew by %v, want at least %d (one claim per scheduled pod)", n, len(scheduled))
	}

	for kind, want := range map[string]float64{"devices": devices, "slices": numSlices, "pools": pools} {
		if got := after["dra_scheduler_inventory_objects{kind="+kind+",profile=dra-scheduler}"]; got != want {
			t.Errorf("dra_scheduler_inventory_objects{kind=%q,profile=dra-scheduler} = %v, want %v (what this test published)", kind, got, want)
		}
	}

	buildInfo := 0
	for key, v := range after {
		if strings.HasPrefix(key, "dra_scheduler_build_info{") && strings.Contains(key, "kubernetes_version=") && v == 1 {
			buildInfo++
		}
	}
	if buildInfo != 1 {
		t.Errorf("%d dra_scheduler_build_info series with a Kubernetes version and the value 1, want exactly one", buildInfo)
	}
	if after["dra_scheduler_cel_cached_expressions"] <= 0 || after["dra_scheduler_cel_cache_bytes"] <= 0 {
		t.Errorf("dra_scheduler_cel_cached_expressions = %v, dra_scheduler_cel_cache_bytes = %v: want both positive after scheduling pods with selectors",
			after["dra_scheduler_cel_cached_expressions"], after["dra_scheduler_cel_cache_bytes"])
	}

	hits := delta("dra_scheduler_selector_cache_requests_total{result=hit}")
	misses := delta("dra_scheduler_selector_cache_requests_total{result=miss}")
	t.Logf("selector cache: %v hits, %v misses", hits, misses)
	if hits <= 0 {
		t.Errorf("selector cache hits grew by %v, want > 0: class metrics-b shares its expressions with metrics-a", hits)
	}
	// Two expressions (the classes' driver check and the request's model
	// check), each evaluated once per device.
	if misses != 2*devices {
		t.Errorf("selector cache misses grew by %v, want %d: each of 2 expressions evaluated once on each of %d devices", misses, 2*devices, devices)
	}
}

// gatherDRAMetrics reads the dra_scheduler_ metrics from the legacy
// registry, keyed "name{label=value,...}" (labels sorted): counters and
// gauges by value, histograms by sample count.
func gatherDRAMetrics(t *testing.T) map[string]float64 {
	t.Helper()
	return gatherMetrics(t, "dra_scheduler_")
}

// gatherMetrics is gatherDRAMetrics for the metrics whose names start with
// prefix.
func gatherMetrics(t *testing.T, prefix string) map[string]float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatalf("gather metrics: %v", err)
	}
	out := map[string]float64{}
	for _, mf := range families {
		if !strings.HasPrefix(mf.GetName(), prefix) {
			continue
		}
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			key := mf.GetName()
			if len(labels) > 0 {
				key += "{" + strings.Join(labels, ",") + "}"
			}
			switch {
			case m.GetHistogram() != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			}
		}
	}
	return out
}

// sumDelta adds up the growth of every series of name whose labels include
// label ("key=value").
func sumDelta(before, after map[string]float64, name, label string) float64 {
	var sum float64
	for key, v := range after {
		if strings.HasPrefix(key, name+"{") && slices.Contains(strings.Split(strings.Trim(key[len(name):], "{}"), ","), label) {
			sum += v - before[key]
		}
	}
	return sum
}

// growth is how much the metric name, which has no labels, grew.
func growth(before, after map[string]float64, name string) float64 {
	return after[name] - before[name]
}

func describeDeltas(before, after map[string]float64) string {
	var lines []string
	for key, v := range after {
		if d := v - before[key]; d != 0 || strings.HasPrefix(key, "dra_scheduler_inventory_objects") {
			lines = append(lines, fmt.Sprintf("  %s: %v (%+v)", key, v, d))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestExpensiveSelector runs a claim whose CEL selector is as expensive as
// the API server lets it be, against a node with 100 devices, while cheap
// DRA pods for other nodes arrive. The cheap pods must not wait more than
// one Filter timeout of the expensive pod; the expensive pod either fits
// or fails with the plugin's timeout message.
func TestExpensiveSelector(t *testing.T) {
	e := startCluster(t, draConfig)
	for _, n := range []string{"node-1", "node-2", "node-3", "node-4"} {
		e.create(objects.MakeNode(n).Obj())
	}
	const heavy, light = "heavy.example.com", "light.example.com"
	const heavyDevices, plainPods = 100, 6
	// One Filter call of the expensive pod may block the scheduling queue
	// for filterTimeout (10 s by default); allow some slack on top.
	const plainBound = 15 * time.Second

	// The most expensive selector the API server accepts: nested
	// comprehensions over a literal list, grown while the estimated cost
	// stays within resourceapi.CELSelectorExpressionMaxCost.
	expr := func(n int) string {
		elems := make([]string, n)
		for i := range elems {
			elems[i] = fmt.Sprint(i)
		}
		list := "[" + strings.Join(elems, ",") + "]"
		return fmt.Sprintf(`%s.all(i, %s.all(j, i + j + device.attributes["heavy.example.com"].index >= 0))`, list, list)
	}
	compiler := dracel.GetCompiler(dracel.Features{EnableConsumableCapacity: true})
	envType := environment.NewExpressions
	cost := func(n int) uint64 {
		r := compiler.CompileCELExpression(expr(n), dracel.Options{EnvType: &envType})
		if r.Error != nil {
			t.Fatalf("compile selector with %d elements: %v", n, r.Error)
		}
		return r.MaxCost
	}
	lo, hi := 1, 1000 // cost(lo) within the limit, cost(hi) over it
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; cost(mid) <= resourceapi.CELSelectorExpressionMaxCost {
			lo = mid
		} else {
			hi = mid
		}
	}
	t.Logf("selector over %d×%d elements: estimated cost %d (limit %d), %d characters; %d elements: %d",
		lo, lo, cost(lo), resourceapi.CELSelectorExpressionMaxCost, len(expr(lo)), hi, cost(hi))

	tooHeavy := objects.ClaimTemplate("too-heavy", e.ns, "dev", heavy, 1, expr(hi))
	if err := objects.Create(e.ctx, e.client, tooHeavy); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "exceeds cost limit") {
		t.Errorf("creating a claim template with estimated cost %d: got %v, want it rejected for exceeding the cost limit", cost(hi), err)
	}

	slice := objects.MakeSlice("heavy-node-4", heavy, "node-4")
	for i := range heavyDevices {
		slice.Device(fmt.Sprintf("dev-%03d", i), nil).IntAttribute("index", int64(i))
	}
	e.create(objects.DeviceClass(heavy, heavy), slice.Obj(), objects.DeviceClass(light, light),
		objects.ClaimTemplate("heavy", e.ns, "dev", heavy, 1, expr(lo)),
		objects.ClaimTemplate("light", e.ns, "dev", light, 1))
	for _, n := range []string{"node-1", "node-2", "node-3"} {
		e.create(objects.MakeSlice("light-"+n, light, n).Device("d0", nil).Device("d1", nil).Device("d2", nil).Obj())
	}

	heavyStart := time.Now()
	e.create(objects.MakePod("heavy", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "heavy").Obj())
	// Once its claim exists the heavy pod is up for scheduling: the plain
	// pods arrive behind it.
	e.generatedClaim("heavy", "dev")
	plainStart := time.Now()
	var names []string
	for i := range plainPods {
		name := fmt.Sprintf("plain-%d", i)
		e.create(objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "light").Obj())
		names = append(names, name)
	}
	var slowest time.Duration
	for _, name := range names {
		pod := e.waitScheduled(name)
		slowest = time.Since(plainStart)
		if pod.Spec.NodeName == "node-4" {
			t.Errorf("plain pod %s landed on node-4, which has no light devices", name)
		}
	}
	t.Logf("%d plain pods bound within %v of their creation (bound asserted: %v)", plainPods, slowest.Round(time.Millisecond), plainBound)
	if slowest > plainBound {
		t.Errorf("plain pods took %v to bind, want at most %v", slowest.Round(time.Millisecond), plainBound)
	}

	const timedOut = "timed out trying to allocate devices"
	var bound bool
	e.waitFor("the heavy pod to be bound or to fail with a timeout", func() (bool, string) {
		if e.pod("heavy").Spec.NodeName != "" {
			bound = true
			return true, ""
		}
		events := e.schedulerEvents("heavy")
		for _, ev := range events {
			if ev.Reason == "FailedScheduling" && strings.Contains(ev.Note, timedOut) {
				return true, ""
			}
		}
		return false, describeEvents(events)
	})
	if bound {
		pod := e.pod("heavy")
		t.Logf("heavy pod bound to %s %v after creation; events: %s", pod.Spec.NodeName, time.Since(heavyStart).Round(time.Millisecond), describeEvents(e.schedulerEvents("heavy")))
		if got, want := results(e.generatedClaim("heavy", "dev")), "dev=heavy.example.com/node-4/dev-000"; got != want {
			t.Errorf("heavy pod: results %s, want %s", got, want)
		}
		return
	}
	note := e.lastEvent("heavy", "FailedScheduling")
	t.Logf("heavy pod pending %v after creation: %s", time.Since(heavyStart).Round(time.Millisecond), note)
	if !strings.Contains(note, "node-4") {
		t.Errorf("timeout event %q does not name node-4, the node with the devices", note)
	}
}
