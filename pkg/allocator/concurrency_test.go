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
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/cel"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/allocbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventory"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// The scheduler plugin's usage pattern, reproduced on realistic shapes:
//
//   - PreFilter, on one goroutine and with no allocator in use, applies
//     the queued slice changes to the inventory and builds one allocator
//     for the pod from tracker.State(inv);
//   - up to 16 Filter goroutines ask it about different nodes at once
//     (FitsWithin, then ExplainBefore where the pod does not fit), Score
//     and Reserve call Allocate (and Occupancy), Reserve marks the result
//     in flight;
//   - all along, the claim informer and Reserve/Unreserve of other cycles
//     change the tracker: allocations recorded, released, in flight.
//
// Every answer given concurrently must be the answer of a serial run over
// the same devices and the same State snapshot: tracker changes made after
// the allocator was built must not reach it.

// concurrencyWorkers is how many goroutines ask the allocator at once, as
// the scheduler's parallel Filter does.
const concurrencyWorkers = 16

// concurrencyTimeout is FitsWithin's timeout and ExplainBefore's budget:
// exercised, never reached (a reached one fails the test).
const concurrencyTimeout = time.Minute

// concurrencyShape is a cluster shape and the pods scheduled on it, one
// per cycle in turn.
type concurrencyShape struct {
	name    string
	nodes   int
	cluster func(nodes int) inventorygen.Cluster
	pods    [][]*resourceapi.ResourceClaim
}

// concurrencyShapes builds the shapes from allocbench's scenarios and
// inventorygen's claim builders.
func concurrencyShapes(t *testing.T) []concurrencyShape {
	scenarios := map[string]allocbench.Scenario{}
	for _, sc := range allocbench.Scenarios() {
		scenarios[sc.Name] = sc
	}
	scenario := func(name string) allocbench.Scenario {
		sc, ok := scenarios[name]
		if !ok {
			t.Fatalf("allocbench has no scenario %q", name)
		}
		return sc
	}
	claims := func(name string) []*resourceapi.ResourceClaim { return scenario(name).Claims() }
	pod := func(claims ...*resourceapi.ResourceClaim) []*resourceapi.ResourceClaim { return claims }
	return []concurrencyShape{
		{
			name:    "on scheduler_perf nodes with 10 devices each",
			nodes:   32,
			cluster: scenario("schedperf").Cluster,
			pods: [][]*resourceapi.ResourceClaim{
				claims("schedperf"),
				claims("schedperf-cel"),
				// Five devices on one PCI root: a node fits only while
				// one of its two roots is entirely free.
				claims("match-5"),
				pod(inventorygen.SchedulerPerfClaim("two", 2), inventorygen.SchedulerPerfClaim("three", 3)),
			},
		},
		{
			name:    "on nodes with 8 H100 GPUs",
			nodes:   16,
			cluster: scenario("h100").Cluster,
			pods: [][]*resourceapi.ResourceClaim{
				claims("h100"),
				pod(inventorygen.GPUsOnSamePCIeRootClaim("same-root", 2)),
				// An H100 reports less than 80Gi: no device matches.
				pod(inventorygen.GPUsOnSamePCIeRootClaim("same-root", 2), inventorygen.GPUWithMemoryClaim("big", "80Gi")),
				pod(inventorygen.AllDevicesClaim("all", inventorygen.ClassNvidiaGPU)),
				// firstAvailable: one H100, else two A100 (there are none).
				pod(inventorygen.PreferH100ElseTwoA100Claim("prefer"), inventorygen.GPUsOnSamePCIeRootClaim("same-root", 2)),
			},
		},
		{
			name:    "on Dynamic MIG nodes whose partitions share counters",
			nodes:   6,
			cluster: scenario("dynamic-mig").Cluster,
			pods: [][]*resourceapi.ResourceClaim{
				claims("dynamic-mig"),
				pod(inventorygen.MIGProfileClaim("half", "3g.40gb")),
				pod(inventorygen.MIGProfileClaim("small", "1g.10gb"), inventorygen.MIGProfileClaim("medium", "2g.20gb")),
				pod(inventorygen.MIGProfileClaim("whole", "7g.80gb")),
			},
		},
		{
			name:    "on nodes with shared NICs of consumable capacity",
			nodes:   16,
			cluster: scenario("nic-shared").Cluster,
			pods: [][]*resourceapi.ResourceClaim{
				claims("nic-shared"),
				pod(inventorygen.NICShareClaim("wide", "200G")),
				pod(inventorygen.NICShareClaim("one", "10G"), inventorygen.NICShareClaim("other", "100G")),
			},
		},
		{
			name:    "on H100 nodes with shared NICs on the GPUs' PCIe roots",
			nodes:   8,
			cluster: scenario("gpu-nic-pcie").Cluster,
			pods: [][]*resourceapi.ResourceClaim{
				claims("gpu-nic-pcie"),
				append(claims("gpu-nic-pcie"), inventorygen.GPUsOnSamePCIeRootClaim("same-root", 2)),
			},
		},
	}
}

// TestConcurrentCallsAnswerAsASerialRunWhileTheTrackerChanges runs, per
// shape, cycles of the plugin's pattern (see above) and compares every
// concurrent answer with serial runs: one over a mirror inventory and
// matcher fed the same slices and a State translated from the snapshot
// (caches of its own, never shared with the concurrent calls), one with a
// fresh allocator over the same inventory and the same snapshot after the
// concurrent calls. DRA_CONCURRENCY_CYCLES sets the cycles per shape.
func TestConcurrentCallsAnswerAsASerialRunWhileTheTrackerChanges(t *testing.T) {
	cycles := envInt(t, "DRA_CONCURRENCY_CYCLES", 24)
	for i, shape := range concurrencyShapes(t) {
		t.Run(shape.name, func(t *testing.T) {
			runConcurrencyShape(t, shape, cycles, uint64(i))
		})
	}
}

// answer is what the allocator said about one node. Serial runs fill in
// everything; a concurrent caller only what it asked.
type answer struct {
	askedFits, askedAllocate, askedExplain, askedOccupancy bool

	fits     bool
	fitsErr  error
	results  []resourceapi.AllocationResult
	allocErr error
	explain  string
	used     int
	total    int
	// how names the calls, for reports.
	how string
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// differences describes how got differs from want, the serial run's
// answer, in what got asked.
func (got answer) differences(want answer) []string {
	var out []string
	if got.askedFits && (got.fits != want.fits || errText(got.fitsErr) != errText(want.fitsErr)) {
		out = append(out, fmt.Sprintf("fits %v, error %s; serially fits %v, error %s", got.fits, errText(got.fitsErr), want.fits, errText(want.fitsErr)))
	}
	if got.askedAllocate {
		g, w := outcome{results: withoutShareIDs(got.results), err: got.allocErr}, outcome{results: withoutShareIDs(want.results), err: want.allocErr}
		same := errText(g.err) == errText(w.err) && (g.results == nil) == (w.results == nil) && apiequality.Semantic.DeepEqual(g.results, w.results)
		if !same {
			out = append(out, fmt.Sprintf("Allocate:\n%s\nserially:\n%s", g, w))
		}
	}
	if got.askedExplain && got.explain != want.explain {
		out = append(out, fmt.Sprintf("explanation %q; serially %q", got.explain, want.explain))
	}
	if got.askedOccupancy && (got.used != want.used || got.total != want.total) {
		out = append(out, fmt.Sprintf("occupancy %d/%d; serially %d/%d", got.used, got.total, want.used, want.total))
	}
	return out
}

// serialAnswers asks a about every node, one call after the other.
func serialAnswers(t *testing.T, ctx context.Context, a *allocator.Allocator, nodes []*v1.Node, claims []*resourceapi.ResourceClaim) []answer {
	out := make([]answer, len(nodes))
	for i, node := range nodes {
		w := &out[i]
		w.fits, w.fitsErr = a.Fits(ctx, node, claims)
		w.results, w.allocErr = a.Allocate(ctx, node, claims)
		if errText(w.fitsErr) != errText(w.allocErr) || w.fitsErr == nil && w.fits != (w.results != nil) {
			t.Errorf("serially on node %s, Fits says %v (error %v) but Allocate %s", node.Name, w.fits, w.fitsErr, outcome{results: w.results, err: w.allocErr})
		}
		switch {
		case w.results != nil:
			w.used, w.total = a.Occupancy([]*v1.Node{node}, w.results)
		case w.fitsErr == nil:
			w.explain = a.Explain(ctx, node, claims).String()
		}
	}
	return out
}

// asked is one concurrent caller's answer about the node at index node.
type asked struct {
	node int
	answer
}

// askConcurrently asks a about the nodes from concurrencyWorkers
// goroutines, each about its share of the nodes and a little of its
// neighbour's, all of them first about one hot node, with the calls the
// plugin makes. Where Allocate finds devices, some callers reserve them
// for the pod's claims as Reserve does.
func askConcurrently(ctx context.Context, a *allocator.Allocator, nodes []*v1.Node, claims []*resourceapi.ResourceClaim,
	cycle int, ch *churn) []asked {
	n := len(nodes)
	share := (n + concurrencyWorkers - 1) / concurrencyWorkers
	var wg sync.WaitGroup
	perWorker := make([][]asked, concurrencyWorkers)
	for g := range concurrencyWorkers {
		order := []int{cycle % n}
		start := g * n / concurrencyWorkers
		for k := range share + 1 + share/2 {
			order = append(order, (start+k)%n)
		}
		if g%2 == 1 {
			slices.Reverse(order[1:])
		}
		wg.Go(func() {
			for k, i := range order {
				node := nodes[i]
				op := (g + i + cycle) % 4
				if k == 0 {
					op = g % 4 // every kind of call on the hot node at once
				}
				var got answer
				switch op {
				case 0: // Filter
					got.how = "FitsWithin, then ExplainBefore"
					got.askedFits = true
					deadline := time.Now().Add(concurrencyTimeout)
					got.fits, got.fitsErr = a.FitsWithin(ctx, node, claims, concurrencyTimeout)
					if !got.fits && got.fitsErr == nil {
						got.askedExplain = true
						got.explain = a.ExplainBefore(ctx, node, claims, deadline).String()
					}
				case 1: // Filter without the filter timeout
					got.how = "Fits, then Explain"
					got.askedFits = true
					got.fits, got.fitsErr = a.Fits(ctx, node, claims)
					if !got.fits && got.fitsErr == nil {
						got.askedExplain = true
						got.explain = a.Explain(ctx, node, claims).String()
					}
				case 2: // Score and Reserve
					got.how = "Allocate, then Occupancy and Reserve"
					got.askedAllocate = true
					got.results, got.allocErr = a.Allocate(ctx, node, claims)
					if got.results != nil {
						got.askedOccupancy = true
						got.used, got.total = a.Occupancy([]*v1.Node{node}, got.results)
						if (g+i)%3 == 0 {
							ch.reserve(cycle, got.results)
						}
					}
				default: // all of it
					got.how = "FitsWithin, Allocate, Explain and Occupancy"
					got.askedFits, got.askedAllocate = true, true
					got.fits, got.fitsErr = a.FitsWithin(ctx, node, claims, concurrencyTimeout)
					got.results, got.allocErr = a.Allocate(ctx, node, claims)
					switch {
					case got.results != nil:
						got.askedOccupancy = true
						got.used, got.total = a.Occupancy([]*v1.Node{node}, got.results)
					case got.allocErr == nil:
						got.askedExplain = true
						got.explain = a.Explain(ctx, node, claims).String()
					}
				}
				perWorker[g] = append(perWorker[g], asked{node: i, answer: got})
			}
		})
	}
	wg.Wait()
	var out []asked
	for _, w := range perWorker {
		out = append(out, w...)
	}
	return out
}

// runConcurrencyShape runs the cycles on one shape and reports every
// concurrent answer that differs from the serial ones.
func runConcurrencyShape(t *testing.T, shape concurrencyShape, cycles int, seed uint64) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(seed, 16))
	c := shape.cluster(shape.nodes)
	classes := c.ClassLister()
	celCache := func() *cel.Cache { return cel.NewCache(10, cel.Features{EnableConsumableCapacity: true}) }
	inv, mirror := inventory.New(), inventory.New()
	// The matcher under test keeps almost nothing, so that every pod
	// evicts expressions and chains that calls may still be using; the
	// serial reference keeps everything.
	matcher := allocator.NewMatcherWithLimits(celCache(), allocator.CacheLimits{MaxExpressions: 1, MaxChains: 1, MaxBytes: 1})
	mirrorMatcher := allocator.NewMatcher(celCache())
	pub := newPublisher(c, inv, mirror)
	nodes := slices.Clone(c.Nodes)

	tracker := allocator.NewTracker(defaultFeatures)
	ch := newChurn(tracker, c)
	ch.fill(rand.New(rand.NewPCG(seed, 0)))
	stop := make(chan struct{})
	var churners sync.WaitGroup
	for k := range 3 {
		churners.Go(func() { ch.run(stop, rand.New(rand.NewPCG(seed, uint64(k+1)))) })
	}
	defer func() {
		close(stop)
		churners.Wait()
	}()

	var fitting, notFitting, changesDuring, calls int
	explained := map[string]int{}
	failures := 0
	for cycle := range cycles {
		// PreFilter: the queued slice changes, then the pod's allocator.
		changes := pub.change(rng, nodes, cycle)
		claims := make([]*resourceapi.ResourceClaim, 0, 2)
		for _, claim := range shape.pods[cycle%len(shape.pods)] {
			claims = append(claims, claim.DeepCopy())
		}
		policy := allocator.FirstFit
		if cycle%2 == 1 {
			policy = allocator.Packing
		}
		st := tracker.State(inv)
		snapshot := allocator.AllocatedStateOf(inv, st)
		want := serialAnswers(t, ctx, allocator.New(defaultFeatures, allocator.NewState(mirror, snapshot), classes, mirror, mirrorMatcher, policy), nodes, claims)
		a := allocator.New(defaultFeatures, st, classes, inv, matcher, policy)

		before := ch.changes.Load()
		got := askConcurrently(ctx, a, nodes, claims, cycle, ch)
		changesDuring += int(ch.changes.Load() - before)
		calls += len(got)

		// The same inventory and snapshot, a fresh allocator, serially.
		again := serialAnswers(t, ctx, allocator.New(defaultFeatures, st, classes, inv, matcher, policy), nodes, claims)
		if diff := allocator.DiffStates(st, allocator.NewState(inv, snapshot)); diff != "" {
			t.Errorf("cycle %d: the State snapshot changed while the allocator used it: %s", cycle, diff)
		}

		report := func(what, node string, diffs []string) {
			failures++
			if failures <= 10 {
				t.Errorf("cycle %d (slice changes: %s; pod: %s; policy %s), node %s, %s:\n%s",
					cycle, changes, claimNames(claims), policy, node, what, strings.Join(diffs, "\n"))
			}
		}
		for i, w := range want {
			fresh := again[i]
			fresh.askedFits, fresh.askedAllocate, fresh.askedExplain, fresh.askedOccupancy = true, true, true, true
			if diffs := fresh.differences(w); len(diffs) > 0 {
				report("a fresh allocator over the same inventory and State afterwards", nodes[i].Name, diffs)
			}
			if w.results != nil {
				fitting++
			} else if w.allocErr == nil {
				notFitting++
				explained[w.explain]++
			}
		}
		for _, g := range got {
			if errors.Is(g.fitsErr, context.DeadlineExceeded) {
				report(g.how, nodes[g.node].Name, []string{fmt.Sprintf("timed out after %v", concurrencyTimeout)})
				continue
			}
			if diffs := g.differences(want[g.node]); len(diffs) > 0 {
				report(g.how+" concurrently", nodes[g.node].Name, diffs)
			}
		}
		if failures > 0 {
			t.Fatalf("%d answers differ from the serial run over the mirror (first 10 shown)", failures)
		}
	}
	evictions := matcher.Stats().Evictions
	t.Logf("%d cycles, %d concurrent calls, %d tracker changes during them, %d cache evictions; %d fitting and %d not fitting (node, pod) pairs, reasons %v",
		cycles, calls, changesDuring, evictions, fitting, notFitting, explained)
	if evictions == 0 {
		t.Errorf("the matcher evicted nothing: eviction under concurrent calls was not tested")
	}
	if changesDuring == 0 {
		t.Errorf("the tracker did not change while allocators answered: nothing was tested")
	}
	if cycles >= len(shape.pods) && (fitting == 0 || notFitting == 0) {
		t.Errorf("%d fitting and %d not fitting (node, pod) pairs: both must occur", fitting, notFitting)
	}
}

func claimNames(claims []*resourceapi.ResourceClaim) string {
	names := make([]string, len(claims))
	for i, c := range claims {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// publisher plays the drivers: it publishes the cluster's pools and
// changes them — new generations (with a device tainted, untainted or
// given a new attribute value, or unchanged), updates only part of a pool
// has reached yet, pools and slices withdrawn and republished — applying
// every change to each of its inventories alike.
type publisher struct {
	invs  []*inventory.Inventory
	pools []*publishedPool
}

// publishedPool is one pool's slices: cur is the newest content of every
// slice (generation gen), live what the inventories hold under each name
// (nil: withdrawn).
type publishedPool struct {
	id   inventory.PoolID
	node int
	gen  int64
	cur  []*resourceapi.ResourceSlice
	live []*resourceapi.ResourceSlice
}

func newPublisher(c inventorygen.Cluster, invs ...*inventory.Inventory) *publisher {
	p := &publisher{invs: invs}
	nodeIndex := map[string]int{}
	for i, n := range c.Nodes {
		nodeIndex[n.Name] = i
	}
	byID := map[inventory.PoolID]*publishedPool{}
	for _, s := range c.Slices {
		id := inventory.PoolID{Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name}
		pool := byID[id]
		if pool == nil {
			pool = &publishedPool{id: id, gen: s.Spec.Pool.Generation}
			if s.Spec.NodeName != nil {
				pool.node = nodeIndex[*s.Spec.NodeName]
			}
			byID[id] = pool
			p.pools = append(p.pools, pool)
		}
		pool.cur = append(pool.cur, s)
		pool.live = append(pool.live, nil)
	}
	// Every fifth pool's driver has not published yet: its slices are
	// added later, as ones the inventories have never seen.
	for k, pool := range p.pools {
		if k%5 != 4 {
			p.publish(pool, len(pool.cur))
		}
	}
	return p
}

// publish sets the first n slices of the pool's newest content.
func (p *publisher) publish(pool *publishedPool, n int) {
	for i, s := range pool.cur[:n] {
		if pool.live[i] == s {
			continue
		}
		for _, inv := range p.invs {
			inv.Set(s)
		}
		pool.live[i] = s
	}
}

// withdraw removes slice i of the pool.
func (p *publisher) withdraw(pool *publishedPool, i int) {
	if pool.live[i] == nil {
		return
	}
	for _, inv := range p.invs {
		inv.Remove(pool.live[i].Name)
	}
	pool.live[i] = nil
}

// complete reports whether the inventories hold the pool's newest content.
func (pool *publishedPool) complete() bool {
	for i, s := range pool.cur {
		if pool.live[i] != s {
			return false
		}
	}
	return true
}

// taintKey marks devices a driver reports unhealthy.
const taintKey = "dra-scheduler.test/unhealthy"

// nextGeneration makes the pool's content a new generation, with one
// device changed or none.
func (pool *publishedPool) nextGeneration(rng *rand.Rand) string {
	pool.gen++
	next := make([]*resourceapi.ResourceSlice, len(pool.cur))
	for i, s := range pool.cur {
		next[i] = s.DeepCopy()
		next[i].Spec.Pool.Generation = pool.gen
	}
	pool.cur = next
	var withDevices []*resourceapi.ResourceSlice
	for _, s := range next {
		if len(s.Spec.Devices) > 0 {
			withDevices = append(withDevices, s)
		}
	}
	if len(withDevices) == 0 {
		return "unchanged"
	}
	s := withDevices[rng.IntN(len(withDevices))]
	d := &s.Spec.Devices[rng.IntN(len(s.Spec.Devices))]
	switch rng.IntN(3) {
	case 0:
		if len(d.Taints) > 0 {
			d.Taints = nil
			return "device " + d.Name + " untainted"
		}
		d.Taints = []resourceapi.DeviceTaint{{Key: taintKey, Effect: resourceapi.DeviceTaintEffectNoSchedule, TimeAdded: &metav1.Time{Time: time.Unix(1, 0)}}}
		return "device " + d.Name + " tainted"
	case 1:
		if d.Attributes == nil {
			d.Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{}
		}
		d.Attributes["dra-scheduler.test/revision"] = resourceapi.DeviceAttribute{IntValue: &pool.gen}
		return "device " + d.Name + " revised"
	default:
		return "unchanged"
	}
}

// change applies one to three slice changes (and, sometimes, a node
// update: a new object with the same labels, or a relabelled one) and
// describes them.
func (p *publisher) change(rng *rand.Rand, nodes []*v1.Node, cycle int) string {
	var done []string
	// A driver catching up: a pool whose newest content is not all
	// published (or none of it, at first) gets it.
	var behind []*publishedPool
	for _, pool := range p.pools {
		if !pool.complete() {
			behind = append(behind, pool)
		}
	}
	if len(behind) > 0 && rng.IntN(2) == 0 {
		pool := behind[rng.IntN(len(behind))]
		p.publish(pool, len(pool.cur))
		done = append(done, pool.id.String()+" republished")
	}
	for range 1 + rng.IntN(3) {
		pool := p.pools[rng.IntN(len(p.pools))]
		name := pool.id.String()
		switch op := rng.IntN(10); {
		case op < 4:
			what := pool.nextGeneration(rng)
			p.publish(pool, len(pool.cur))
			done = append(done, fmt.Sprintf("%s generation %d (%s)", name, pool.gen, what))
		case op < 6:
			// Only part of the new generation has arrived: the pool is
			// incomplete until the rest does.
			what := pool.nextGeneration(rng)
			n := max(1, len(pool.cur)/2)
			p.publish(pool, n)
			done = append(done, fmt.Sprintf("%s generation %d in %d of %d slices (%s)", name, pool.gen, n, len(pool.cur), what))
		case op == 6:
			for i := range pool.live {
				p.withdraw(pool, i)
			}
			done = append(done, name+" withdrawn")
		case op == 7:
			i := rng.IntN(len(pool.live))
			p.withdraw(pool, i)
			done = append(done, fmt.Sprintf("%s slice %d of %d withdrawn", name, i+1, len(pool.live)))
		case op == 8:
			i := pool.node
			nodes[i] = nodes[i].DeepCopy()
			done = append(done, "node "+nodes[i].Name+" updated")
		default:
			i := pool.node
			node := nodes[i].DeepCopy()
			node.Labels["dra-scheduler.test/revision"] = strconv.Itoa(cycle)
			nodes[i] = node
			done = append(done, "node "+node.Name+" relabelled")
		}
	}
	return strings.Join(done, ", ")
}

// churn plays the claim informer and the other cycles' Reserve and
// Unreserve: it records, replaces and releases allocations and
// allocations in flight in the tracker, of background claims and of the
// pods' claims reserved by askConcurrently.
type churn struct {
	tr *allocator.Tracker
	// allocations are what first-fit schedulers leave on one pool at
	// several occupancies: dedicated devices and shares with their
	// consumed capacity.
	allocations [][]inventorygen.Share
	claims      int
	rv          atomic.Int64
	// changes counts tracker changes.
	changes atomic.Int64

	mu       sync.Mutex
	reserved []reservation
	bound    []types.UID
}

type reservation struct {
	uid   types.UID
	alloc *resourceapi.AllocationResult
}

func newChurn(tr *allocator.Tracker, c inventorygen.Cluster) *churn {
	ch := &churn{tr: tr}
	for _, f := range []float64{0.25, 0.5, 0.75, 1} {
		occ := inventorygen.Occupancy(c, f)
		byPool := map[inventory.PoolID][]inventorygen.Share{}
		var order []inventory.PoolID
		add := func(s inventorygen.Share) {
			id := inventory.PoolID{Driver: s.Device.Driver, Pool: s.Device.Pool}
			if _, ok := byPool[id]; !ok {
				order = append(order, id)
			}
			byPool[id] = append(byPool[id], s)
		}
		for _, d := range occ.Devices {
			add(inventorygen.Share{Device: d})
		}
		for _, s := range occ.Shares {
			add(s)
		}
		for _, id := range order {
			ch.allocations = append(ch.allocations, byPool[id])
		}
	}
	ch.claims = max(4, len(c.Nodes))
	return ch
}

// allocation is most of one pool's devices at some occupancy, as claim
// uid's allocation result.
func (ch *churn) allocation(rng *rand.Rand, uid types.UID) *resourceapi.AllocationResult {
	alloc := &resourceapi.AllocationResult{}
	for k, use := range ch.allocations[rng.IntN(len(ch.allocations))] {
		if rng.IntN(5) == 0 {
			continue
		}
		r := resourceapi.DeviceRequestAllocationResult{Request: "req-0", Driver: use.Device.Driver, Pool: use.Device.Pool, Device: use.Device.Device}
		if use.ShareID != "" {
			share := types.UID(fmt.Sprintf("%s-%d", uid, k))
			r.ShareID = &share
			r.ConsumedCapacity = use.Consumed
		}
		alloc.Devices.Results = append(alloc.Devices.Results, r)
	}
	return alloc
}

func (ch *churn) claim(uid types.UID, rv int64, alloc *resourceapi.AllocationResult) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: inventorygen.ClaimNamespace, Name: string(uid), UID: uid, ResourceVersion: strconv.FormatInt(rv, 10)},
		Status:     resourceapi.ResourceClaimStatus{Allocation: alloc},
	}
}

// fill gives every background claim an allocation.
func (ch *churn) fill(rng *rand.Rand) {
	for k := range ch.claims {
		uid := types.UID(fmt.Sprintf("background-%d", k))
		ch.tr.SetClaim(ch.claim(uid, ch.rv.Add(1), ch.allocation(rng, uid)))
	}
}

// reserve marks results in flight for the claims of the cycle's pod, as
// Reserve does.
func (ch *churn) reserve(cycle int, results []resourceapi.AllocationResult) {
	for i := range results {
		uid := types.UID(fmt.Sprintf("pod-%d-claim-%d", cycle, i))
		ch.tr.SetPending(uid, &results[i])
		ch.changes.Add(1)
		ch.mu.Lock()
		ch.reserved = append(ch.reserved, reservation{uid: uid, alloc: &results[i]})
		ch.mu.Unlock()
	}
}

// run changes the tracker until stop is closed.
func (ch *churn) run(stop <-chan struct{}, rng *rand.Rand) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		ch.step(rng)
		ch.changes.Add(1)
		time.Sleep(50 * time.Microsecond)
	}
}

// step makes one change.
func (ch *churn) step(rng *rand.Rand) {
	uid := types.UID(fmt.Sprintf("background-%d", rng.IntN(ch.claims)))
	switch rng.IntN(10) {
	case 0, 1, 2:
		ch.tr.SetClaim(ch.claim(uid, ch.rv.Add(1), ch.allocation(rng, uid)))
	case 3:
		ch.tr.SetClaim(ch.claim(uid, ch.rv.Add(1), nil)) // deallocated
	case 4:
		ch.tr.DeleteClaim(uid)
	case 5:
		ch.tr.SetPending(uid, ch.allocation(rng, uid))
	case 6:
		ch.tr.ClearPending(uid)
	case 7:
		// A lagging informer's old copy: ignored, unless the claim is
		// unknown.
		ch.tr.SetClaim(ch.claim(uid, 1, ch.allocation(rng, uid)))
	default:
		// A pod's claims: bound (the status write lands, the reservation
		// ends), unreserved, or deleted once bound.
		ch.mu.Lock()
		var r *reservation
		var done types.UID
		switch {
		case len(ch.reserved) > 0 && rng.IntN(3) > 0:
			k := rng.IntN(len(ch.reserved))
			taken := ch.reserved[k]
			r = &taken
			ch.reserved = slices.Delete(ch.reserved, k, k+1)
		case len(ch.bound) > 0:
			done = ch.bound[0]
			ch.bound = ch.bound[1:]
		}
		ch.mu.Unlock()
		switch {
		case r != nil && rng.IntN(2) == 0:
			ch.tr.SetClaim(ch.claim(r.uid, ch.rv.Add(1), r.alloc))
			ch.tr.ClearPending(r.uid)
			ch.mu.Lock()
			ch.bound = append(ch.bound, r.uid)
			ch.mu.Unlock()
		case r != nil:
			ch.tr.ClearPending(r.uid)
		case done != "":
			ch.tr.DeleteClaim(done)
		}
	}
}
