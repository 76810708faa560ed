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
	"slices"

	"k8s.io/component-helpers/nodedeclaredfeatures/features/draoptionalnodeoperations"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Random inventories: nodes, pools and slices; their devices are in
// random_devices.go.

type nodeMode int

const (
	modeNodeName nodeMode = iota
	modeSelector
	modeAllNodes
	modePerDevice
)

// genPool is a pool under construction.
type genPool struct {
	schema        *driverSchema
	name          string
	generation    int64
	mode          nodeMode
	nodeName      string // modeNodeName
	selector      *v1.NodeSelector
	multi         bool
	partitionable bool
	counterSets   []resourceapi.CounterSet
	// deviceSlices holds the devices of each current-generation device slice.
	deviceSlices [][]resourceapi.Device
}

var (
	taintKeys = []string{"example.com/unhealthy", "example.com/maintenance"}
	// compatibilityGroups are the group lists a consumption may name (at
	// most two, as the API allows).
	compatibilityGroups = [][]string{{"mig"}, {"vgpu"}, {"mig", "vgpu"}, {"mps"}}
	// skipNodeOperations are the lists a slice may give (the API server
	// refuses NodePrepareResources without NodeUnprepareResources).
	skipNodeOperations = [][]resourceapi.SkipNodeOperation{
		{resourceapi.SkipNodeOperationAll},
		{resourceapi.SkipNodeOperationNodePrepareResources, resourceapi.SkipNodeOperationNodeUnprepareResources},
		{resourceapi.SkipNodeOperationNodeUnprepareResources},
	}
	taintEffects = []resourceapi.DeviceTaintEffect{resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute, resourceapi.DeviceTaintEffectNone}
)

// makeNodes creates Case.Node ("node-1") and up to MaxOtherNodes others with
// zone/rack labels and sometimes example.com/dra=true.
func (g *generator) makeNodes() {
	n := 1 + g.r.IntN(max(g.o.MaxOtherNodes, 0)+1)
	for i := range n {
		labels := map[string]string{
			"zone": pick(g, []string{"z1", "z2"}),
			"rack": pick(g, []string{"r1", "r2", "r3"}),
		}
		if g.chance(0.6) {
			labels["example.com/dra"] = "true"
		}
		node := newNode(fmt.Sprintf("node-%d", i+1), labels)
		if g.chance(g.o.DeclaredNodeOperations) {
			node.Status.DeclaredFeatures = []string{draoptionalnodeoperations.DRAOptionalNodeOperationsFeatureGate}
			g.note("node %s declares DRAOptionalNodeOperations", node.Name)
		}
		g.c.Nodes = append(g.c.Nodes, node)
	}
	g.c.Node = g.c.Nodes[0]
}

// otherNode returns a node other than Case.Node, or a node that does not
// exist when there is none.
func (g *generator) otherNode() string {
	if len(g.c.Nodes) > 1 {
		return pick(g, g.c.Nodes[1:]).Name
	}
	return "node-gone"
}

func (g *generator) nodeNameChoice() string {
	if g.chance(g.o.ForeignNode) {
		return g.otherNode()
	}
	return g.c.Node.Name
}

// nodeSelector returns a selector with the given number of terms, each
// with one or two requirements that may or may not match Case.Node.
func (g *generator) nodeSelector(terms int) *v1.NodeSelector {
	sel := &v1.NodeSelector{}
	for range terms {
		var term v1.NodeSelectorTerm
		for range 1 + g.r.IntN(2) {
			switch g.r.IntN(6) {
			case 0:
				term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{pick(g, []string{"z1", "z2"})}})
			case 1:
				term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"z1", "z2"}})
			case 2:
				term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{Key: "rack", Operator: v1.NodeSelectorOpNotIn, Values: []string{pick(g, []string{"r1", "r2", "r3"})}})
			case 3:
				term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{Key: "example.com/dra", Operator: v1.NodeSelectorOpExists})
			case 4:
				term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{Key: "example.com/gone", Operator: v1.NodeSelectorOpDoesNotExist})
			default:
				term.MatchFields = append(term.MatchFields, v1.NodeSelectorRequirement{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{g.nodeNameChoice()}})
			}
		}
		sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, term)
	}
	return sel
}

// makeInventory creates 1..MaxPools pools and shuffles all slices.
func (g *generator) makeInventory() {
	order := g.r.Perm(len(randomDrivers))
	for _, i := range order[:g.upTo(len(randomDrivers))] {
		g.drivers = append(g.drivers, randomDrivers[i])
	}
	for range 1 + g.r.IntN(max(g.o.MaxPools, 1)) {
		g.pool()
	}
	// Classes and claims target the drivers that have pools.
	g.drivers = slices.DeleteFunc(g.drivers, func(d *driverSchema) bool {
		return !slices.ContainsFunc(g.pools, func(p *genPool) bool { return p.schema == d })
	})
	g.r.Shuffle(len(g.c.Slices), func(i, j int) { g.c.Slices[i], g.c.Slices[j] = g.c.Slices[j], g.c.Slices[i] })
}

func (g *generator) poolNameTaken(driver, name string) bool {
	return slices.ContainsFunc(g.pools, func(p *genPool) bool { return p.schema.name == driver && p.name == name })
}

// pool creates one pool with its slices.
func (g *generator) pool() {
	p := &genPool{schema: pick(g, g.drivers), generation: 1 + int64(g.r.IntN(3))}
	switch x := g.r.Float64(); {
	case x < g.o.NodeSelectorPool:
		p.mode, p.selector = modeSelector, g.nodeSelector(1)
	case x < g.o.NodeSelectorPool+g.o.AllNodesPool:
		p.mode = modeAllNodes
	case x < g.o.NodeSelectorPool+g.o.AllNodesPool+g.o.PerDeviceNodeSelection:
		p.mode = modePerDevice
	default:
		p.mode, p.nodeName = modeNodeName, g.nodeNameChoice()
	}
	for {
		p.name = fmt.Sprintf("pool-%d", g.r.IntN(12))
		if p.mode == modeNodeName && g.chance(0.5) {
			p.name = p.nodeName
		}
		if !g.poolNameTaken(p.schema.name, p.name) {
			break
		}
	}
	g.pools = append(g.pools, p)
	p.multi = g.chance(g.o.MultiAllocatablePool)
	if g.chance(g.o.PartitionablePool) {
		p.partitionable = true
		for k := range 1 + g.r.IntN(2) {
			p.counterSets = append(p.counterSets, resourceapi.CounterSet{
				Name: fmt.Sprintf("set-%d", k),
				Counters: map[string]resourceapi.Counter{
					"mem":   {Value: *resource.NewQuantity(int64(4+4*g.r.IntN(3))<<30, resource.BinarySI)},
					"slots": {Value: *resource.NewQuantity(int64(2+g.r.IntN(3)), resource.DecimalSI)},
				},
			})
		}
	}

	maxDevices := max(g.o.MaxDevicesPerPool, 1)
	numSlices := 1 + g.r.IntN(min(max(g.o.MaxSlicesPerPool, 1), maxDevices))
	perSlice := min(maxDevices/numSlices, resourceapi.ResourceSliceMaxDevicesWithAdvancedFeatures)
	next := 0
	for range numSlices {
		var devices []resourceapi.Device
		for range 1 + g.r.IntN(perSlice) {
			devices = append(devices, g.device(p, fmt.Sprintf("%s-%d", p.schema.short, next)))
			next++
		}
		p.deviceSlices = append(p.deviceSlices, devices)
	}
	if numSlices > 1 && g.chance(g.o.DuplicateDevice) {
		from, to := g.r.IntN(numSlices), g.r.IntN(numSlices-1)
		if to >= from {
			to++
		}
		// Rename a device of another slice, keeping the device count.
		dup := pick(g, p.deviceSlices[from]).Name
		p.deviceSlices[to][g.r.IntN(len(p.deviceSlices[to]))].Name = dup
		g.note("pool %s/%s: duplicate device %s (invalid pool)", p.schema.name, p.name, dup)
	}
	g.poolSlices(p)
}

// poolSlices publishes the pool: an optional counter slice, the device
// slices, then stale and next-generation extras. Slice names get shuffled
// suffixes so that name order differs from creation order.
func (g *generator) poolSlices(p *genPool) {
	total := len(p.deviceSlices)
	if p.partitionable {
		total++
	}
	count := int64(total)
	if g.chance(g.o.IncompletePool) {
		if total > 1 && g.chance(0.5) {
			count--
		} else {
			count++
		}
		g.note("pool %s/%s: resourceSliceCount %d with %d slices", p.schema.name, p.name, count, total)
	}
	suffixes := g.r.Perm(total + 2)
	name := func(i int) string { return fmt.Sprintf("%s-%s-%c", p.schema.short, p.name, 'a'+suffixes[i]) }
	mk := func(i int, generation int64) *resourceapi.ResourceSlice {
		s := newSlice(name(i), p.schema.name, p.name, count)
		s.Spec.Pool.Generation = generation
		g.sliceNodeSelection(p, s)
		if g.chance(g.o.SkipNodeOperations) {
			s.Spec.SkipNodeOperations = pick(g, skipNodeOperations)
			g.note("slice %s skips node operations %v", s.Name, s.Spec.SkipNodeOperations)
		}
		return s
	}
	i := 0
	if p.partitionable {
		s := mk(i, p.generation)
		s.Spec.SharedCounters = p.counterSets
		if p.mode == modePerDevice && g.chance(0.5) {
			// A per-device slice without devices is relevant for no node.
			s.Spec.PerDeviceNodeSelection = nil
			s.Spec.AllNodes = ptr(true)
		}
		g.c.Slices = append(g.c.Slices, s)
		i++
	}
	for _, devices := range p.deviceSlices {
		s := mk(i, p.generation)
		sortDevices(devices)
		s.Spec.Devices = devices
		g.c.Slices = append(g.c.Slices, s)
		i++
	}
	if p.generation > 1 && g.chance(g.o.StaleSlice) {
		s := mk(total, p.generation-1)
		for k := range 1 + g.r.IntN(3) {
			s.Spec.Devices = append(s.Spec.Devices, g.device(p, fmt.Sprintf("%s-old-%d", p.schema.short, k)))
		}
		g.c.Slices = append(g.c.Slices, s)
		g.note("pool %s/%s: stale slice %s of generation %d", p.schema.name, p.name, s.Name, p.generation-1)
	}
	if g.chance(g.o.NewerGeneration) {
		s := mk(total+1, p.generation+1)
		if p.mode == modeNodeName && g.chance(0.5) {
			s.Spec.NodeName = ptr(g.otherNode())
		}
		s.Spec.Devices = []resourceapi.Device{g.device(p, fmt.Sprintf("%s-next-0", p.schema.short))}
		g.c.Slices = append(g.c.Slices, s)
		g.note("pool %s/%s: lone slice %s of generation %d", p.schema.name, p.name, s.Name, p.generation+1)
	}
}

func (g *generator) sliceNodeSelection(p *genPool, s *resourceapi.ResourceSlice) {
	switch p.mode {
	case modeNodeName:
		s.Spec.NodeName = ptr(p.nodeName)
	case modeSelector:
		s.Spec.NodeSelector = p.selector.DeepCopy()
	case modeAllNodes:
		s.Spec.AllNodes = ptr(true)
	case modePerDevice:
		s.Spec.PerDeviceNodeSelection = ptr(true)
	}
}
