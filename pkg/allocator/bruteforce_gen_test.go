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

// The small random inventories of the brute-force property test
// (bruteforce_test.go): a model the search and the validity rules read
// directly, and its rendering as API objects for the allocator.

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// bfDevice is one device of a brute-force case, with its allocated state.
type bfDevice struct {
	name string
	pool int
	kind string // "x" or "y", for selectors
	// numa is the compared attribute's values: nil for none, one value
	// for a scalar unless list; str makes the scalar a string.
	numa      []int64
	list, str bool
	multi     bool  // allowMultipleAllocations
	capacity  int64 // of "mem", 0: none
	set       string
	counters  map[string]int64 // consumed from set
	taint     resourceapi.DeviceTaintEffect
	dedicated bool  // in AllocatedDevices
	shareID   bool  // in AllocatedSharedDeviceIDs
	allocated int64 // AggregatedCapacity of "mem", 0: none
}

// persisted reports a device with a persisted share.
func (d *bfDevice) persisted() bool { return d.shareID || d.allocated > 0 }

// bfSpec is an ExactCount or All request (or subrequest).
type bfSpec struct {
	all      bool
	count    int
	kind     string // "" any
	tolerate bool   // tolerates the taint key "t"
	capacity int64  // of "mem" requested, 0: none
}

// bfRequest is a request: spec, or alternatives subs (names s0, s1, ...).
type bfRequest struct {
	spec bfSpec
	subs []bfSpec
}

// alternatives are the request's specs and their subrequest names ("" for
// an exact request).
func (r *bfRequest) alternatives() ([]bfSpec, []string) {
	if r.subs == nil {
		return []bfSpec{r.spec}, []string{""}
	}
	names := make([]string, len(r.subs))
	for i := range names {
		names[i] = "s" + strconv.Itoa(i)
	}
	return r.subs, names
}

// bfConstraint is a matchAttribute or distinctAttribute on numa over
// the requests named (all if none).
type bfConstraint struct {
	distinct bool
	requests []string
}

// bfClaim is a claim of requests r0, r1, ...
type bfClaim struct {
	requests    []bfRequest
	constraints []bfConstraint
}

// bfCase is one brute-force case on node n.
type bfCase struct {
	seed  int64
	lists bool // ListTypeAttributes
	// pools' counter sets: set -> counter -> value.
	pools   []map[string]map[string]int64
	devices []bfDevice
	claims  []bfClaim
	// cross are constraints across the claims
	// (crossclaim_bruteforce_test.go).
	cross []bfCross
	notes sets.Set[string] // what the case exercises
}

// bfOdds are the generator's probabilities (and bounds) for one kind of
// case.
type bfOdds struct {
	counterPool, noAttribute, list, pair, multi, counters, taint, dedicated, persisted float64
	count3, kind, all, capacity, firstAvailable, constraint, distinct                  float64
	// A case has 2 + IntN(spread) + extraDevices devices, attribute
	// values below values.
	spread, extraDevices, values int
	note                         string
}

// bfMixedOdds are those of cases of every input.
func bfMixedOdds() bfOdds {
	return bfOdds{counterPool: 0.6, noAttribute: 0.1, list: 0.5, pair: 0.6, multi: 0.3, counters: 0.6, taint: 0.15, dedicated: 0.15,
		persisted: 0.3, count3: 0.05, kind: 0.5, all: 0.15, capacity: 0.15, firstAvailable: 0.15, constraint: 0.35, distinct: 0.5,
		spread: 5, values: 3}
}

// bfTopologyOdds are those of cases about constraints alone: more
// devices, all with the attribute, mostly lists of few values that
// overlap in part ([0 1], [0], [1]), more devices per request and a
// constraint in every claim, so that the search backtracks through them
// with little else deciding.
func bfTopologyOdds() bfOdds {
	return bfOdds{counterPool: 0.3, list: 0.9, pair: 1, multi: 0.1, counters: 0.3, count3: 0.4, kind: 0.2,
		firstAvailable: 0.1, constraint: 1, distinct: 0.5, spread: 5, extraDevices: 2, values: 2, note: "topology"}
}

// bfGenerate returns the case of seed: two to eight devices in one or two
// pools, counters, list attributes, taints, multi-allocatable devices
// with capacity, allocated state, and one or two claims of up to two
// requests each; one case in four is a topology case (bfTopologyOdds). A
// constraint never covers an All request: where the search meets a
// device that breaks it is an error that depends on the search order,
// which no brute force answers.
func bfGenerate(seed int64) bfCase {
	r := rand.New(rand.NewPCG(uint64(seed), 56))
	chance := func(p float64) bool { return r.Float64() < p }
	c := bfCase{seed: seed, lists: chance(0.5), notes: sets.New[string]()}
	odds := bfMixedOdds()
	if chance(0.25) {
		odds = bfTopologyOdds()
		c.notes.Insert(odds.note)
	}
	for range 1 + r.IntN(2) {
		pool := map[string]map[string]int64{}
		if chance(odds.counterPool) {
			for s := range 1 + r.IntN(2) {
				set := map[string]int64{"a": 1 + r.Int64N(4)}
				if chance(0.5) {
					set["b"] = 1 + r.Int64N(3)
				}
				pool["s"+strconv.Itoa(s)] = set
			}
		}
		c.pools = append(c.pools, pool)
	}
	values := int64(odds.values)
	for i := range 2 + r.IntN(odds.spread) + odds.extraDevices {
		d := bfDevice{name: "d" + strconv.Itoa(i), pool: r.IntN(len(c.pools)), kind: []string{"x", "y"}[r.IntN(2)]}
		switch {
		case chance(odds.noAttribute):
		case c.lists && chance(odds.list):
			d.list, d.numa = true, []int64{r.Int64N(values)}
			if v := r.Int64N(values); chance(odds.pair) && v != d.numa[0] {
				d.numa = append(d.numa, v)
			}
			c.notes.Insert("list attributes")
		default:
			d.numa, d.str = []int64{r.Int64N(values)}, chance(0.05)
		}
		d.multi = chance(odds.multi)
		if (d.multi && chance(0.7)) || (!d.multi && chance(0.15)) {
			d.capacity = 1 + r.Int64N(4)
		}
		if sets := c.pools[d.pool]; len(sets) > 0 && chance(odds.counters) {
			d.set, d.counters = "s"+strconv.Itoa(r.IntN(len(sets))), map[string]int64{}
			for name := range sets[d.set] {
				if chance(0.7) || len(d.counters) == 0 {
					d.counters[name] = 1 + r.Int64N(2)
				}
			}
			c.notes.Insert("counters")
		}
		if chance(odds.taint) {
			d.taint = []resourceapi.DeviceTaintEffect{resourceapi.DeviceTaintEffectNoSchedule,
				resourceapi.DeviceTaintEffectNoExecute, resourceapi.DeviceTaintEffectNone}[r.IntN(3)]
			c.notes.Insert("taints")
		}
		switch {
		case !d.multi && chance(odds.dedicated):
			d.dedicated = true
			c.notes.Insert("allocated devices")
		case d.multi && chance(odds.persisted):
			form := r.IntN(3)
			d.shareID = form < 2 || d.capacity == 0
			if form > 0 && d.capacity > 0 {
				d.allocated = 1 + r.Int64N(d.capacity)
			}
			c.notes.Insert("persisted shares")
		}
		if d.multi {
			c.notes.Insert("multi-allocatable devices")
		}
		c.devices = append(c.devices, d)
	}
	spec := func(allowAll bool) bfSpec {
		s := bfSpec{count: 1 + r.IntN(2), tolerate: chance(0.3)}
		if chance(odds.kind) {
			s.kind = []string{"x", "y"}[r.IntN(2)]
		}
		if chance(odds.count3) {
			s.count = 3
		}
		if allowAll && chance(odds.all) {
			s.all, s.count = true, 0
			c.notes.Insert("allocationMode All")
		}
		if chance(odds.capacity) {
			s.capacity = 1 + r.Int64N(2)
		}
		return s
	}
	for range 1 + r.IntN(2) {
		var cl bfClaim
		var constrainable []string
		for q := range 1 + r.IntN(2) {
			var req bfRequest
			if chance(odds.firstAvailable) {
				req.subs = []bfSpec{spec(false), spec(false)}
				c.notes.Insert("firstAvailable")
			} else {
				req.spec = spec(true)
			}
			cl.requests = append(cl.requests, req)
			if !req.spec.all {
				constrainable = append(constrainable, "r"+strconv.Itoa(q))
			}
		}
		if len(constrainable) > 0 && chance(odds.constraint) {
			con := bfConstraint{distinct: chance(odds.distinct)}
			if len(constrainable) < len(cl.requests) || chance(0.5) {
				con.requests = constrainable
			}
			cl.constraints = append(cl.constraints, con)
			c.notes.Insert("constraints")
		}
		c.claims = append(c.claims, cl)
	}
	return c
}

// bfPoolName names pool p of node n.
func bfPoolName(p int) string { return "n-" + strconv.Itoa(p) }

// bfInput is a case as API objects.
type bfInput struct {
	features structured.Features
	state    structured.AllocatedState
	classes  structured.DeviceClassLister
	slices   []*resourceapi.ResourceSlice
	claims   []*resourceapi.ResourceClaim
	cross    []allocator.CrossClaimConstraint
}

// render returns the case's API objects.
func (c *bfCase) render() bfInput {
	in := bfInput{features: defaultFeatures, classes: inventorygen.NewClassLister(objects.DeviceClass("dev", ubDriver)),
		state: structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID](),
			AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](), AggregatedCapacity: structured.ConsumedCapacityCollection{}}}
	in.features.ListTypeAttributes = c.lists
	for p, pool := range c.pools {
		w := objects.MakeSlice(bfPoolName(p)+"-devices", ubDriver, "n")
		w.Spec.Pool.Name = bfPoolName(p)
		for _, d := range c.devices {
			if d.pool == p {
				c.renderDevice(w, &d, &in.state)
			}
		}
		if len(pool) == 0 {
			in.slices = append(in.slices, w.Obj())
			continue
		}
		counters := objects.MakeSlice(bfPoolName(p)+"-counters", ubDriver, "n").SliceCount(2)
		counters.Spec.Pool.Name = bfPoolName(p)
		for _, name := range slices.Sorted(maps.Keys(pool)) {
			values := map[string]string{}
			for cn, v := range pool[name] {
				values[cn] = strconv.FormatInt(v, 10)
			}
			counters.CounterSet(name, values)
		}
		in.slices = append(in.slices, w.SliceCount(2).Obj(), counters.Obj())
	}
	for ci, cl := range c.claims {
		var reqs []resourceapi.DeviceRequest
		for q, req := range cl.requests {
			name := "r" + strconv.Itoa(q)
			if req.subs == nil {
				reqs = append(reqs, resourceapi.DeviceRequest{Name: name, Exactly: req.spec.render()})
				continue
			}
			specs, names := req.alternatives()
			dr := resourceapi.DeviceRequest{Name: name}
			for i, s := range specs {
				e := s.render()
				dr.FirstAvailable = append(dr.FirstAvailable, resourceapi.DeviceSubRequest{Name: names[i], DeviceClassName: e.DeviceClassName,
					Selectors: e.Selectors, AllocationMode: e.AllocationMode, Count: e.Count, Tolerations: e.Tolerations, Capacity: e.Capacity})
			}
			reqs = append(reqs, dr)
		}
		claim := ubClaim("c"+strconv.Itoa(ci), reqs...)
		for _, con := range cl.constraints {
			dc := resourceapi.DeviceConstraint{Requests: con.requests}
			if con.distinct {
				dc.DistinctAttribute = ubAttr("numa")
			} else {
				dc.MatchAttribute = ubAttr("numa")
			}
			claim.Spec.Devices.Constraints = append(claim.Spec.Devices.Constraints, dc)
		}
		in.claims = append(in.claims, claim)
	}
	in.cross = c.renderCross()
	return in
}

// renderDevice adds d to w and its allocated state to st.
func (c *bfCase) renderDevice(w *objects.SliceWrapper, d *bfDevice, st *structured.AllocatedState) {
	var capacity map[string]string
	if d.capacity > 0 {
		capacity = map[string]string{"mem": strconv.FormatInt(d.capacity, 10)}
	}
	w.Device(d.name, capacity).Attribute("kind", d.kind)
	dev := &w.Spec.Devices[len(w.Spec.Devices)-1]
	switch {
	case d.numa == nil:
	case d.list:
		dev.Attributes["numa"] = resourceapi.DeviceAttribute{IntValues: d.numa}
	case d.str:
		dev.Attributes["numa"] = resourceapi.DeviceAttribute{StringValue: ptr.To(strconv.FormatInt(d.numa[0], 10))}
	default:
		dev.Attributes["numa"] = resourceapi.DeviceAttribute{IntValue: ptr.To(d.numa[0])}
	}
	if d.multi {
		w.AllowMultipleAllocations()
	}
	if d.set != "" {
		counters := map[string]string{}
		for cn, v := range d.counters {
			counters[cn] = strconv.FormatInt(v, 10)
		}
		w.ConsumesCounters(d.set, counters)
	}
	if d.taint != "" {
		w.Taint("t", "v", d.taint)
	}
	id := structured.MakeDeviceID(ubDriver, bfPoolName(d.pool), d.name)
	if d.dedicated {
		st.AllocatedDevices.Insert(id)
	}
	if d.shareID {
		share := types.UID("persisted-" + d.name)
		st.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, &share))
	}
	if d.allocated > 0 {
		st.AggregatedCapacity[id] = structured.ConsumedCapacity{"mem": resource.NewQuantity(d.allocated, resource.DecimalSI)}
	}
}

// render returns the spec as an exact request.
func (s bfSpec) render() *resourceapi.ExactDeviceRequest {
	var selectors []string
	if s.kind != "" {
		selectors = append(selectors, ubKind(s.kind))
	}
	e := ubRequest("x", int64(s.count), selectors...).Exactly
	if s.all {
		e.AllocationMode, e.Count = resourceapi.DeviceAllocationModeAll, 0
	}
	if s.tolerate {
		e.Tolerations = []resourceapi.DeviceToleration{{Key: "t", Operator: resourceapi.DeviceTolerationOpExists}}
	}
	if s.capacity > 0 {
		e.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{
			"mem": *resource.NewQuantity(s.capacity, resource.DecimalSI)}}
	}
	return e
}

// String describes the case for a failure report.
func (c *bfCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, list attributes %v, pools' counter sets %v\n", c.seed, c.lists, c.pools)
	for _, d := range c.devices {
		fmt.Fprintf(&b, "  device %+v\n", d)
	}
	for i, cl := range c.claims {
		fmt.Fprintf(&b, "  claim c%d: requests %+v, constraints %+v\n", i, cl.requests, cl.constraints)
	}
	return b.String()
}
