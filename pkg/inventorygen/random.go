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

package inventorygen

import (
	"fmt"
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
)

// RandomOptions tunes Random. Sizes are upper bounds; probabilities are in
// [0, 1]. The zero value means DefaultRandomOptions(); to change a few knobs,
// start from DefaultRandomOptions() (or LargeRandomOptions()) and modify it,
// otherwise every unset probability is 0.
type RandomOptions struct {
	// Sizes.
	MaxPools            int // pools per case, at least 1
	MaxDevicesPerPool   int // devices of the current generation per pool
	MaxSlicesPerPool    int // device slices per pool (a counter slice comes on top)
	MaxClasses          int // DeviceClasses per case
	MaxClaims           int // claims per case
	MaxRequestsPerClaim int // requests per claim
	MaxOtherNodes       int // nodes besides Case.Node
	// MaxSearchSpace bounds the product over all requests of the number of
	// device combinations upstream's exhaustive search may try (see
	// requestSpace); requests beyond it are not generated. 0: unbounded.
	MaxSearchSpace float64

	// Node selection of a pool's slices; the remaining probability is
	// nodeName. ForeignNode: a nodeName (pool or device) names another node.
	NodeSelectorPool, AllNodesPool, PerDeviceNodeSelection, ForeignNode float64
	// MultiTermDeviceSelector: a per-device node selector has two terms
	// (upstream fails to build the result's node selector for it).
	MultiTermDeviceSelector float64

	// Pool shape. StaleSlice adds a slice of an older generation,
	// NewerGeneration a lone slice of the next generation, IncompletePool
	// makes resourceSliceCount disagree with the slices present,
	// DuplicateDevice repeats a device name in another slice of the pool
	// (an invalid pool).
	StaleSlice, NewerGeneration, IncompletePool, DuplicateDevice float64

	// Devices. MissingAttribute drops a schema attribute from a device,
	// MistypedAttribute gives it another type; Taint and BindingConditions
	// apply per device.
	MissingAttribute, MistypedAttribute, Taint, BindingConditions float64
	// Counters. PartitionablePool gives a pool counter sets in a separate
	// slice; InsufficientCounters makes a device consume more than its set
	// holds; UnknownCounter makes it consume an unknown set or counter (an
	// invalid pool).
	PartitionablePool, InsufficientCounters, UnknownCounter float64
	// Consumable capacity. MultiAllocatablePool gives a pool devices with
	// allowMultipleAllocations and request policies; FractionalRange uses
	// milli quantities in a validRange.
	MultiAllocatablePool, FractionalRange float64

	// Classes: a driver selector, an extra attribute selector, opaque config.
	ClassDriverSelector, ClassExtraSelector, ClassConfig float64

	// Requests. AllMode, AdminAccess (true, sometimes false),
	// FirstAvailable (1–3 subrequests), ZeroCount (ExactCount with count 0,
	// which the API server would default to 1), Toleration,
	// CapacityRequest, RequestSelector (per selector slot, 0–2 slots).
	AllMode, AdminAccess, FirstAvailable, ZeroCount, Toleration, CapacityRequest, RequestSelector float64
	// Broken inputs: a request selector with a CEL runtime error (missing
	// attribute without has()) or a compile error; a request naming a
	// missing DeviceClass.
	RuntimeErrorSelector, CompileErrorSelector, MissingClass float64
	// Claims: matchAttribute/distinctAttribute constraints, claim config.
	Constraint, ClaimConfig float64
	// TwinClaim: a claim after the first has the spec of the claim before
	// it, as the claims of a gang's pods made from one template do. 0 by
	// default, so default cases stay those of earlier releases.
	TwinClaim float64

	// Allocated state. AllocatedDevice per single-allocation device,
	// ExistingShare per multi-allocatable device; OverConsumption (per case)
	// lets existing allocations ignore counter limits.
	AllocatedDevice, ExistingShare, OverConsumption float64

	// Alpha features' inputs. SkipNodeOperations per slice: it lists
	// node operations to skip (DRAOptionalNodeOperations);
	// DeclaredNodeOperations per node: its status declares the
	// DRAOptionalNodeOperations feature; ListAttribute per device
	// attribute: it holds a list of one to three values of its kind,
	// sometimes none (DRAListTypeAttributes); DerivedAttribute per
	// constraint: requests it targets derive the compared attribute by CEL
	// (DRADerivedAttributes); CompatibilityGroup per counter consumption:
	// it names compatibility groups (DRADeviceCompatibilityGroups). All are
	// 0 by default, so default cases stay those of earlier releases.
	SkipNodeOperations, DeclaredNodeOperations, ListAttribute, DerivedAttribute, CompatibilityGroup float64

	// Features overrides DefaultFeatures(); FeatureFlip flips each of its
	// six flags with this probability (all combinations select the stable or
	// incubating allocator).
	Features    *structured.Features
	FeatureFlip float64
}

// DefaultRandomOptions are small cases (1–4 pools, at most 12 devices per
// pool and generation, 1–3 claims with 1–3 requests, a search space of 2e5
// so that upstream's exhaustive search takes at most ~0.2 s) tuned so that
// nearly half of the cases allocate and every error and failure path is hit
// regularly.
func DefaultRandomOptions() RandomOptions {
	return RandomOptions{
		MaxPools: 4, MaxDevicesPerPool: 12, MaxSlicesPerPool: 3, MaxClasses: 4,
		MaxClaims: 3, MaxRequestsPerClaim: 3, MaxOtherNodes: 2, MaxSearchSpace: 2e5,

		NodeSelectorPool: 0.15, AllNodesPool: 0.1, PerDeviceNodeSelection: 0.1, ForeignNode: 0.1,
		MultiTermDeviceSelector: 0.05,

		StaleSlice: 0.1, NewerGeneration: 0.05, IncompletePool: 0.05, DuplicateDevice: 0.03,

		MissingAttribute: 0.08, MistypedAttribute: 0.003, Taint: 0.08, BindingConditions: 0.03,
		PartitionablePool: 0.25, InsufficientCounters: 0.05, UnknownCounter: 0.01,
		MultiAllocatablePool: 0.2, FractionalRange: 0.15,

		ClassDriverSelector: 0.85, ClassExtraSelector: 0.3, ClassConfig: 0.2,

		AllMode: 0.08, AdminAccess: 0.06, FirstAvailable: 0.2, ZeroCount: 0.03, Toleration: 0.2,
		CapacityRequest: 0.3, RequestSelector: 0.25, RuntimeErrorSelector: 0.015,
		CompileErrorSelector: 0.01, Constraint: 0.3, ClaimConfig: 0.2, MissingClass: 0.015,

		AllocatedDevice: 0.1, ExistingShare: 0.3, OverConsumption: 0.05,
	}
}

// AlphaRandomOptions are DefaultRandomOptions with inputs for the alpha
// allocator features of 1.37 that DRAAllocator implements — slices that
// skip node operations, nodes that declare, or do not declare, that they
// honour them, list-typed attributes, derived attributes, compatibility
// groups — and those features (OptionalNodeOperations, ListTypeAttributes,
// DerivedAttributes, CompatibilityGroups) as alpha sets them, the
// others at their defaults. With a feature on only upstream's experimental
// allocator applies; with it off the inputs must be treated as upstream's
// incubating allocator treats them.
func AlphaRandomOptions(alpha structured.Features) RandomOptions {
	o := DefaultRandomOptions()
	f := DefaultFeatures()
	f.OptionalNodeOperations = alpha.OptionalNodeOperations
	f.ListTypeAttributes = alpha.ListTypeAttributes
	f.DerivedAttributes = alpha.DerivedAttributes
	f.CompatibilityGroups = alpha.CompatibilityGroups
	o.Features = &f
	o.SkipNodeOperations, o.DeclaredNodeOperations = 0.3, 0.5
	o.ListAttribute = 0.3
	o.DerivedAttribute = 0.3
	o.CompatibilityGroup = 0.5
	return o
}

// LargeRandomOptions are DefaultRandomOptions with bigger inventories
// (up to 8 pools of 48 devices, 6 classes, 4 claims of 4 requests) and a
// search space of 2e6 (about a second of upstream search at worst).
func LargeRandomOptions() RandomOptions {
	o := DefaultRandomOptions()
	o.MaxPools, o.MaxDevicesPerPool, o.MaxSlicesPerPool = 8, 48, 4
	o.MaxClasses, o.MaxClaims, o.MaxRequestsPerClaim, o.MaxOtherNodes = 6, 4, 4, 3
	o.MaxSearchSpace = 2e6
	return o
}

// DefaultFeatures is the allocator feature set of Kubernetes 1.37 with
// default feature gates (docs/design/upstream-allocator.md §2.1): it selects
// upstream's incubating allocator.
func DefaultFeatures() structured.Features {
	return structured.Features{
		AdminAccess:            true,
		PrioritizedList:        true,
		PartitionableDevices:   true,
		DeviceTaints:           true,
		DeviceBindingAndStatus: true,
		ConsumableCapacity:     true,
	}
}

// Case is one random allocator input.
type Case struct {
	// Seed the case was generated from.
	Seed int64
	// Node is the node to allocate for; it is also Nodes[0].
	Node *v1.Node
	// Nodes are all nodes the slices refer to (other nodes make nodeName
	// and node selectors non-trivial).
	Nodes []*v1.Node
	// Slices in input order (shuffled: input order matters upstream for the
	// first slice of a pool and for generations).
	Slices []*resourceapi.ResourceSlice
	// Classes available through ClassLister; claims may name a missing one.
	Classes []*resourceapi.DeviceClass
	// Claims to allocate together, in order.
	Claims []*resourceapi.ResourceClaim
	// Allocated are the devices already in use (see Allocated.State).
	Allocated Allocated
	// Features to run the allocator with.
	Features structured.Features
	// Notes lists the deliberate anomalies of the case (incomplete pools,
	// CEL errors, missing classes, count 0, ...) for debugging.
	Notes []string
}

// ClassLister returns a lister over the case's classes.
func (c Case) ClassLister() ClassLister { return NewClassLister(c.Classes...) }

// AllocatedState returns a fresh allocator input for c.Allocated.
func (c Case) AllocatedState() structured.AllocatedState { return c.Allocated.State() }

// Cluster returns the case's nodes, slices and classes.
func (c Case) Cluster() Cluster {
	return Cluster{Nodes: c.Nodes, Slices: c.Slices, Classes: c.Classes}
}

// Random generates the case for seed. The same seed and options always
// produce the same case (deeply equal objects).
func Random(seed int64, opts RandomOptions) Case {
	if opts == (RandomOptions{}) {
		opts = DefaultRandomOptions()
	}
	g := &generator{
		r:    rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)),
		o:    opts,
		seed: seed,
	}
	g.c.Seed = seed
	g.makeFeatures()
	g.makeNodes()
	g.makeInventory()
	g.makeClasses()
	g.makeClaims()
	g.makeAllocated()
	return g.c
}

// generator holds the state of one Random call.
type generator struct {
	r    *rand.Rand
	o    RandomOptions
	seed int64
	c    Case

	drivers    []*driverSchema // drivers used by the case
	pools      []*genPool
	genClasses []genClass
}

func (g *generator) chance(p float64) bool { return p > 0 && g.r.Float64() < p }

// upTo returns 1..n, biased towards small values.
func (g *generator) upTo(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 + min(g.r.IntN(n), g.r.IntN(n))
}

func pick[T any](g *generator, items []T) T { return items[g.r.IntN(len(items))] }

func (g *generator) note(format string, args ...any) {
	g.c.Notes = append(g.c.Notes, fmt.Sprintf(format, args...))
}

func (g *generator) makeFeatures() {
	f := DefaultFeatures()
	if g.o.Features != nil {
		f = *g.o.Features
	}
	flip := func(b *bool, name string) {
		if g.chance(g.o.FeatureFlip) {
			*b = !*b
			g.note("feature %s flipped to %v", name, *b)
		}
	}
	flip(&f.AdminAccess, "AdminAccess")
	flip(&f.PrioritizedList, "PrioritizedList")
	flip(&f.PartitionableDevices, "PartitionableDevices")
	flip(&f.DeviceTaints, "DeviceTaints")
	flip(&f.DeviceBindingAndStatus, "DeviceBindingAndStatus")
	flip(&f.ConsumableCapacity, "ConsumableCapacity")
	g.c.Features = f
}
