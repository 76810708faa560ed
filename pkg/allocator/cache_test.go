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

package allocator_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// selectorStream is an endless supply of distinct request selectors over
// a cluster's GPUs, as users write them: one GPU pinned by UUID, a
// property many GPUs share, and one that fails at runtime on every
// device. Each is made distinct by a term that is always true.
type selectorStream struct {
	uuids []string
}

func newSelectorStream(c inventorygen.Cluster) selectorStream {
	var s selectorStream
	for _, slice := range c.Slices {
		for _, d := range slice.Spec.Devices {
			if a, ok := d.Attributes["uuid"]; ok && a.StringValue != nil {
				s.uuids = append(s.uuids, *a.StringValue)
			}
		}
	}
	return s
}

func (s selectorStream) selector(i int) string {
	attrs := fmt.Sprintf("device.attributes[%q]", inventorygen.DriverNvidia)
	switch i % 3 {
	case 0:
		return fmt.Sprintf("%s.uuid == %q && %d >= 0", attrs, s.uuids[i%len(s.uuids)], i)
	case 1:
		return fmt.Sprintf("%s.productName.size() > %d && %d >= 0", attrs, i%30, i)
	default:
		return fmt.Sprintf("%s.noSuchAttribute == %q", attrs, fmt.Sprint(i))
	}
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestDistinctSelectorsOverTimeKeepTheCacheWithinItsLimitsAndAnswerAsUpstream(t *testing.T) {
	const (
		// Every compareEvery-th pod is also allocated by upstream's
		// allocator on every node.
		compareEvery = 10
		// heapBound is how much the heap may grow between the end of
		// warm-up and the end of the run: the limits below allow about
		// 10 MiB of cache in all, evicted entries must be freed.
		heapBound = 24 << 20
	)
	selectors, warmUp := 20000, 2000
	if raceEnabled {
		selectors, warmUp = 3000, 1000
	}
	limits := allocator.CacheLimits{MaxExpressions: 256, MaxChains: 256, MaxBytes: 12 << 20}

	ctx := context.Background()
	cluster := inventorygen.NvidiaH100(8)
	inv := inventory.New()
	for _, s := range cluster.Slices {
		inv.Set(s)
	}
	classes := inventorygen.NewClassLister(cluster.Classes...)
	matcher := allocator.NewMatcherWithLimits(cel.NewCache(10, cel.Features{EnableConsumableCapacity: true}), limits)
	upstreamCache := cel.NewCache(10, cel.Features{EnableConsumableCapacity: true})
	stream := newSelectorStream(cluster)
	noneAllocated := structured.AllocatedState{}

	var warmHeap uint64
	var maxStats allocator.MatcherStats
	for i := range selectors {
		if i == warmUp {
			warmHeap = heapInUse()
		}
		claims := []*resourceapi.ResourceClaim{inventorygen.ExactClaim(fmt.Sprintf("pod-%d", i), inventorygen.ClassNvidiaGPU, 1, stream.selector(i))}
		ours := allocator.New(defaultFeatures, allocator.NewState(inv, noneAllocated), classes, inv, matcher, allocator.FirstFit)
		got := make([]outcome, len(cluster.Nodes))
		for n, node := range cluster.Nodes {
			res, err := ours.Allocate(ctx, node, claims)
			got[n] = outcome{results: res, err: err}
			if fits, fitsErr := ours.Fits(ctx, node, claims); errText(fitsErr) != errText(err) || err == nil && fits != (res != nil) {
				t.Fatalf("selector %d on node %s: Fits says %v (error %v) but Allocate %s", i, node.Name, fits, fitsErr, got[n])
			}
		}
		if i%compareEvery == 0 {
			theirs, err := structured.NewAllocator(ctx, defaultFeatures, noneAllocated, classes, cluster.Slices, upstreamCache)
			if err != nil {
				t.Fatal(err)
			}
			for n, node := range cluster.Nodes {
				res, err := theirs.Allocate(ctx, node, claims)
				if want := (outcome{results: res, err: err}); !sameOutcome(want, got[n]) {
					t.Fatalf("selector %d %q on node %s:\nupstream: %s\nours:     %s", i, stream.selector(i), node.Name, want, got[n])
				}
			}
		} else if i%3 == 0 && !fitsExactlyOnOneNode(got) {
			t.Fatalf("selector %d pins one GPU but the allocations are %v", i, got)
		}
		st := matcher.Stats()
		if st.Expressions > limits.MaxExpressions || st.Chains > limits.MaxChains || st.Bytes > limits.MaxBytes {
			t.Fatalf("after %d selectors the cache holds %+v, over the limits %+v", i+1, st, limits)
		}
		maxStats.Expressions = max(maxStats.Expressions, st.Expressions)
		maxStats.Chains = max(maxStats.Chains, st.Chains)
		maxStats.Bytes = max(maxStats.Bytes, st.Bytes)
	}
	endHeap := heapInUse()
	st := matcher.Stats()
	t.Logf("%d distinct selectors: at most %d expressions, %d chains, %.1f MiB estimated; %d evictions; heap %.1f MiB after warm-up, %.1f MiB at the end",
		selectors, maxStats.Expressions, maxStats.Chains, float64(maxStats.Bytes)/(1<<20), st.Evictions,
		float64(warmHeap)/(1<<20), float64(endHeap)/(1<<20))
	if st.Evictions == 0 {
		t.Errorf("no evictions after %d distinct selectors with limits %+v", selectors, limits)
	}
	if endHeap > warmHeap+heapBound {
		t.Errorf("heap grew from %d to %d bytes after warm-up, more than %d", warmHeap, endHeap, heapBound)
	}
}

// sameOutcome reports whether two allocations agree as the differential
// tests compare them.
func sameOutcome(want, got outcome) bool {
	if (want.err == nil) != (got.err == nil) {
		return false
	}
	if want.err != nil {
		return want.err.Error() == got.err.Error()
	}
	return (want.results == nil) == (got.results == nil) && apiequality.Semantic.DeepEqual(withoutShareIDs(want.results), withoutShareIDs(got.results))
}

// fitsExactlyOnOneNode reports whether exactly one node got an allocation
// and no node an error.
func fitsExactlyOnOneNode(outcomes []outcome) bool {
	fits := 0
	for _, o := range outcomes {
		if o.err != nil {
			return false
		}
		if o.results != nil {
			fits++
		}
	}
	return fits == 1
}

func TestRepublishedSlicesReplaceTheirViewsChargeInTheCacheEstimate(t *testing.T) {
	ctx := context.Background()
	cluster := inventorygen.NvidiaH100(4)
	inv := inventory.New()
	for _, s := range cluster.Slices {
		inv.Set(s)
	}
	matcher := allocator.NewMatcher(nil)
	claims := []*resourceapi.ResourceClaim{inventorygen.ExactClaim("one", inventorygen.ClassNvidiaGPU, 1)}
	republish := cluster.SlicesForNode(cluster.Nodes[0].Name)[0].DeepCopy()
	var afterFirst int64
	for round := range 200 {
		republish = republish.DeepCopy()
		republish.Spec.Pool.Generation++
		inv.Set(republish)
		a := allocator.New(defaultFeatures, allocator.NewState(inv, structured.AllocatedState{}), inventorygen.NewClassLister(cluster.Classes...), inv, matcher, allocator.FirstFit)
		for _, node := range cluster.Nodes {
			if fits, err := a.Fits(ctx, node, claims); err != nil || !fits {
				t.Fatalf("round %d, node %s: fits %v, error %v", round, node.Name, fits, err)
			}
		}
		if round == 0 {
			afterFirst = matcher.Stats().Bytes
		}
	}
	if got := matcher.Stats().Bytes; got != afterFirst {
		t.Errorf("after 200 republications of one slice the cache estimate is %d bytes, after the first %d: replaced views must not be charged", got, afterFirst)
	}
}
