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
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
)

// realisticShapes are all realistic builders with a few nodes.
func realisticShapes() map[string]Cluster {
	return map[string]Cluster{
		"SchedulerPerf":         SchedulerPerf(3, 0),
		"NvidiaH100":            NvidiaH100(3),
		"NvidiaH100x4":          NvidiaH100x4(2),
		"NvidiaH200":            NvidiaH200(2),
		"NvidiaA100":            NvidiaA100(2),
		"DynamicMIG":            DynamicMIG(2, 8),
		"DynamicMIG 9 GPUs":     DynamicMIG(1, 9),
		"DynamicMIGA100":        DynamicMIGA100(2, 8),
		"ExampleDriver":         ExampleDriver(2, false),
		"ExampleDriver w/ part": ExampleDriver(2, true),
		"SharedNICs":            SharedNICs(2),
		"CPUMapped":             CPUMapped(2),
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkAPILimitsAndPools asserts the per-object API limits, name order of
// devices within each slice, unique device and counter set names per pool and
// a ResourceSliceCount equal to the number of slices of each pool.
func checkAPILimitsAndPools(t *testing.T, c Cluster) {
	t.Helper()
	type poolKey struct{ driver, pool string }
	slicesPerPool := map[poolKey]int{}
	announced := map[poolKey]int64{}
	devicesPerPool := map[poolKey]map[string]bool{}
	setsPerPool := map[poolKey]map[string]bool{}
	for _, s := range c.Slices {
		k := poolKey{s.Spec.Driver, s.Spec.Pool.Name}
		slicesPerPool[k]++
		if n, ok := announced[k]; ok && n != s.Spec.Pool.ResourceSliceCount {
			t.Errorf("pool %v: slices announce %d and %d slices", k, n, s.Spec.Pool.ResourceSliceCount)
		}
		announced[k] = s.Spec.Pool.ResourceSliceCount
		if devicesPerPool[k] == nil {
			devicesPerPool[k], setsPerPool[k] = map[string]bool{}, map[string]bool{}
		}
		if len(s.Spec.Devices) > 0 && len(s.Spec.SharedCounters) > 0 {
			t.Errorf("slice %s has devices and counters", s.Name)
		}
		limit := resourceapi.ResourceSliceMaxDevices
		for _, d := range s.Spec.Devices {
			if len(d.ConsumesCounters) > 0 || len(d.Taints) > 0 {
				limit = resourceapi.ResourceSliceMaxDevicesWithAdvancedFeatures
			}
		}
		if len(s.Spec.Devices) > limit {
			t.Errorf("slice %s: %d devices, limit %d", s.Name, len(s.Spec.Devices), limit)
		}
		if len(s.Spec.SharedCounters) > resourceapi.ResourceSliceMaxCounterSets {
			t.Errorf("slice %s: %d counter sets", s.Name, len(s.Spec.SharedCounters))
		}
		for _, cs := range s.Spec.SharedCounters {
			if len(cs.Counters) > resourceapi.ResourceSliceMaxCountersPerCounterSet {
				t.Errorf("slice %s: counter set %s has %d counters", s.Name, cs.Name, len(cs.Counters))
			}
			if setsPerPool[k][cs.Name] {
				t.Errorf("pool %v: duplicate counter set %s", k, cs.Name)
			}
			setsPerPool[k][cs.Name] = true
		}
		if !slices.IsSortedFunc(s.Spec.Devices, func(a, b resourceapi.Device) int { return strings.Compare(a.Name, b.Name) }) {
			t.Errorf("slice %s: devices not sorted by name", s.Name)
		}
		for _, d := range s.Spec.Devices {
			if n := len(d.Attributes) + len(d.Capacity); n > resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice {
				t.Errorf("device %s: %d attributes and capacities", d.Name, n)
			}
			if len(d.ConsumesCounters) > resourceapi.ResourceSliceMaxDeviceCounterConsumptionsPerDevice {
				t.Errorf("device %s: %d counter consumptions", d.Name, len(d.ConsumesCounters))
			}
			if devicesPerPool[k][d.Name] {
				t.Errorf("pool %v: duplicate device %s", k, d.Name)
			}
			devicesPerPool[k][d.Name] = true
		}
	}
	for k, n := range slicesPerPool {
		if announced[k] != int64(n) {
			t.Errorf("pool %v: %d slices, resourceSliceCount %d", k, n, announced[k])
		}
	}
	// Every consumed counter exists and the full capacity of each set is
	// never exceeded by any single device.
	for _, pool := range poolViews(c.Slices) {
		book := newCounterBook(pool)
		for _, pd := range pool.devices {
			if len(pd.device.ConsumesCounters) > 0 && !book.fits(pd.device) {
				t.Errorf("device %s consumes unknown counters or more than its set holds", pd.ref)
			}
		}
	}
}

func TestEveryRealisticShapeRespectsAPILimitsAndKeepsPoolsConsistent(t *testing.T) {
	shapes := realisticShapes()
	for _, name := range sortedKeys(shapes) {
		t.Run(name, func(t *testing.T) {
			c := shapes[name]
			checkAPILimitsAndPools(t, c)
			for _, s := range c.Slices {
				if s.Spec.NodeName == nil || c.Node(*s.Spec.NodeName) == nil {
					t.Errorf("slice %s is not local to a known node", s.Name)
				}
				// Upstream's template names pools after slices.
				if *s.Spec.NodeName != s.Spec.Pool.Name && name != "SchedulerPerf" && name != "CPUMapped" {
					t.Errorf("slice %s: pool %s is not named after node %s", s.Name, s.Spec.Pool.Name, *s.Spec.NodeName)
				}
			}
		})
	}
}

func TestRealisticShapesAreDeterministic(t *testing.T) {
	a, b := realisticShapes(), realisticShapes()
	for _, name := range sortedKeys(a) {
		if diff := jsonOf(t, a[name]); diff != jsonOf(t, b[name]) {
			t.Errorf("%s differs between two calls", name)
		}
	}
}

// countAttributes asserts the attribute and capacity counts of every device.
func countAttributes(t *testing.T, c Cluster, attrs func(d resourceapi.Device) (int, int)) {
	t.Helper()
	for _, s := range c.Slices {
		for _, d := range s.Spec.Devices {
			wantA, wantC := attrs(d)
			if len(d.Attributes) != wantA || len(d.Capacity) != wantC {
				t.Errorf("device %s: %d attributes, %d capacities; want %d, %d", d.Name, len(d.Attributes), len(d.Capacity), wantA, wantC)
			}
		}
	}
}

func TestSchedulerPerfReproducesTheUpstreamTemplate(t *testing.T) {
	c := SchedulerPerf(3, 0)
	if len(c.Nodes) != 3 || len(c.Slices) != 3 {
		t.Fatalf("%d nodes, %d slices; want 3, 3", len(c.Nodes), len(c.Slices))
	}
	for i, s := range c.Slices {
		if s.Name != fmt.Sprintf("resourceslice-%d", i) || s.Spec.Pool.Name != s.Name || *s.Spec.NodeName != fmt.Sprintf("scheduler-perf-dra-%d", i) {
			t.Errorf("slice %d: name %s, pool %s, node %s", i, s.Name, s.Spec.Pool.Name, *s.Spec.NodeName)
		}
		if s.Spec.Driver != DriverSchedulerPerf || len(s.Spec.Devices) != SchedulerPerfDevicesPerNode {
			t.Errorf("slice %s: driver %s with %d devices", s.Name, s.Spec.Driver, len(s.Spec.Devices))
		}
	}
	countAttributes(t, c, func(resourceapi.Device) (int, int) { return SchedulerPerfAttributes, SchedulerPerfCapacities })
	d := c.Slices[0].Spec.Devices[3]
	if got := *d.Attributes["resource.kubernetes.io/pciRoot"].StringValue; got != "pci0000:01" {
		t.Errorf("basic-device-3 pciRoot %q, want pci0000:01", got)
	}
	if got := d.Capacity["memory"].Value; got.Cmp(resource.MustParse("24480Mi")) != 0 {
		t.Errorf("memory %s", got.String())
	}
	if n := len(SchedulerPerf(1, 2).Slices[0].Spec.Devices); n != 2 {
		t.Errorf("SchedulerPerf(1, 2) has %d devices", n)
	}
	if c.Classes[0].Name != ClassSchedulerPerf || c.Classes[0].Spec.Selectors[0].CEL.Expression != `device.driver == "test-driver.cdi.k8s.io"` {
		t.Errorf("class %+v", c.Classes[0])
	}
}

func TestNvidiaH100x4PublishesFourGPUsPerNodeAsH100sDo(t *testing.T) {
	c, eight := NvidiaH100x4(2), NvidiaH100(1).Slices[0].Spec.Devices
	if len(c.Nodes) != 2 || len(c.Slices) != 2 {
		t.Fatalf("%d nodes, %d slices; want 2 and one per node", len(c.Nodes), len(c.Slices))
	}
	for _, s := range c.Slices {
		if len(s.Spec.Devices) != 4 {
			t.Errorf("slice %s: %d devices, want 4", s.Name, len(s.Spec.Devices))
		}
		for i, d := range s.Spec.Devices {
			if d.Name != eight[i].Name || *d.Attributes["productName"].StringValue != *eight[i].Attributes["productName"].StringValue {
				t.Errorf("slice %s device %d: %s, want the H100 shape's %s", s.Name, i, d.Name, eight[i].Name)
			}
		}
	}
	if !strings.HasPrefix(c.Nodes[1].Name, "h100x4-") {
		t.Errorf("node %s, want h100x4-<i>", c.Nodes[1].Name)
	}
}

func TestNvidiaShapesPublishEightGPUsPerNodeWithPCIeTopology(t *testing.T) {
	for name, c := range map[string]Cluster{"H100": NvidiaH100(2), "H200": NvidiaH200(2), "A100": NvidiaA100(2)} {
		if len(c.Slices) != 2 {
			t.Errorf("%s: %d slices, want one per node", name, len(c.Slices))
		}
		for _, s := range c.Slices {
			if len(s.Spec.Devices) != NvidiaGPUsPerNode || s.OwnerReferences[0].Kind != "Node" {
				t.Errorf("%s slice %s: %d devices, owner %v", name, s.Name, len(s.Spec.Devices), s.OwnerReferences)
			}
			roots := map[string]int{}
			for _, d := range s.Spec.Devices {
				roots[*d.Attributes["resource.kubernetes.io/pcieRoot"].StringValue]++
			}
			if len(roots) != NvidiaGPUsPerNode/gpusPerPCIeRoot {
				t.Errorf("%s: PCIe roots %v", name, roots)
			}
		}
		countAttributes(t, c, func(resourceapi.Device) (int, int) { return NvidiaGPUAttributes, NvidiaGPUCapacities })
		var classes []string
		for _, cl := range c.Classes {
			classes = append(classes, cl.Name)
		}
		if !slices.Equal(classes, []string{ClassNvidiaGPU, ClassNvidiaMIG, ClassNvidiaVFIO}) {
			t.Errorf("%s: classes %v", name, classes)
		}
	}
	d := NvidiaA100(1).Slices[0].Spec.Devices[0]
	if *d.Attributes["cudaComputeCapability"].VersionValue != "8.0.0" || *d.Attributes["productName"].StringValue != "NVIDIA A100-SXM4-40GB" {
		t.Errorf("A100 attributes %v", d.Attributes)
	}
}

func TestDynamicMIGAnnouncesEveryPlacementWithCounterSetsPerGPU(t *testing.T) {
	for _, tc := range []struct {
		name                                string
		c                                   Cluster
		gpus, perGPU, counterSlices, slices int
	}{
		{"H100 x8", DynamicMIG(2, 8), 8, MIGH100DevicesPerGPU, 1, 9},
		{"H100 x9", DynamicMIG(1, 9), 9, MIGH100DevicesPerGPU, 2, 11},
		{"A100 x8", DynamicMIGA100(1, 0), 8, MIGA100DevicesPerGPU, 1, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, node := range tc.c.Nodes {
				ss := tc.c.SlicesForNode(node.Name)
				if len(ss) != tc.slices {
					t.Fatalf("node %s: %d slices, want %d", node.Name, len(ss), tc.slices)
				}
				sets, devices := 0, 0
				for i, s := range ss {
					if s.Spec.Pool.ResourceSliceCount != int64(tc.slices) {
						t.Errorf("slice %s announces %d slices", s.Name, s.Spec.Pool.ResourceSliceCount)
					}
					if (i < tc.counterSlices) != (len(s.Spec.SharedCounters) > 0) {
						t.Errorf("slice %d (%s): counter slices must come first", i, s.Name)
					}
					for _, cs := range s.Spec.SharedCounters {
						if len(cs.Counters) != MIGCountersPerSet {
							t.Errorf("counter set %s has %d counters", cs.Name, len(cs.Counters))
						}
					}
					sets += len(s.Spec.SharedCounters)
					devices += len(s.Spec.Devices)
					if i >= tc.counterSlices && len(s.Spec.Devices) != tc.perGPU {
						t.Errorf("slice %s has %d devices, want %d", s.Name, len(s.Spec.Devices), tc.perGPU)
					}
				}
				if sets != tc.gpus || devices != tc.gpus*tc.perGPU {
					t.Errorf("node %s: %d counter sets and %d devices; want %d and %d", node.Name, sets, devices, tc.gpus, tc.gpus*tc.perGPU)
				}
			}
			countAttributes(t, tc.c, func(d resourceapi.Device) (int, int) {
				if strings.Contains(d.Name, "-mig-") {
					return MIGDeviceAttributes, MIGDeviceCapacities
				}
				return NvidiaGPUAttributes, NvidiaGPUCapacities
			})
		})
	}
	c := DynamicMIG(1, 8)
	if got := c.Slices[1].Spec.Devices[1].Name; got != "gpu-0-mig-1g10gb-19-0" {
		t.Errorf("first MIG device %s, want gpu-0-mig-1g10gb-19-0", got)
	}
	if n := len(c.Devices()); n != 208 {
		t.Errorf("8-GPU H100 node has %d devices, want 208", n)
	}
}

func TestFullGPUConsumesEveryCounterAndMIGDevicesConsumeTheirMemorySlices(t *testing.T) {
	c := DynamicMIG(1, 1)
	set := c.Slices[0].Spec.SharedCounters[0]
	devs := c.Slices[1].Spec.Devices
	full := devs[0].ConsumesCounters[0]
	for name, counter := range set.Counters {
		consumed, ok := full.Counters[name]
		if counter.Value.IsZero() {
			continue
		}
		if !ok || consumed.Value.Cmp(counter.Value) != 0 {
			t.Errorf("full GPU consumes %v of counter %s=%s", consumed.Value, name, counter.Value.String())
		}
	}
	for _, d := range devs[1:] {
		var p migProfile
		var start int
		for _, cand := range h100Profiles {
			for _, s := range cand.starts {
				if MIGDeviceName(0, cand.name, cand.giProfileID, s) == d.Name {
					p, start = cand, s
				}
			}
		}
		slicesUsed := 0
		for name := range d.ConsumesCounters[0].Counters {
			if strings.HasPrefix(name, "memory-slice-") {
				slicesUsed++
				var k int
				fmt.Sscanf(name, "memory-slice-%d", &k)
				if k < start || k >= start+p.size {
					t.Errorf("%s consumes %s outside its placement", d.Name, name)
				}
			}
		}
		if slicesUsed != p.size {
			t.Errorf("%s consumes %d memory slices, want %d", d.Name, slicesUsed, p.size)
		}
	}
}

func TestPoolSlicesSplitDevicesAtTheAPILimit(t *testing.T) {
	node := newNode("n", nil)
	var plain, counted []resourceapi.Device
	for i := range 130 {
		plain = append(plain, resourceapi.Device{Name: fmt.Sprintf("d-%03d", i)})
		counted = append(counted, resourceapi.Device{Name: fmt.Sprintf("d-%03d", i), ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: "s"}}})
	}
	for _, tc := range []struct {
		devices []resourceapi.Device
		sizes   []int
	}{{plain, []int{128, 2}}, {counted, []int{64, 64, 2}}} {
		var sizes []int
		for _, s := range (nodePool{node: node, driver: "d.example.com", deviceGroups: [][]resourceapi.Device{tc.devices}}).slices() {
			sizes = append(sizes, len(s.Spec.Devices))
			if s.Spec.Pool.ResourceSliceCount != int64(len(tc.sizes)) {
				t.Errorf("slice %s announces %d slices", s.Name, s.Spec.Pool.ResourceSliceCount)
			}
		}
		if !slices.Equal(sizes, tc.sizes) {
			t.Errorf("slice sizes %v, want %v", sizes, tc.sizes)
		}
	}
}

func TestExampleDriverPublishesGPUsAndOptionalPartitions(t *testing.T) {
	c := ExampleDriver(1, false)
	if len(c.Slices) != 1 || len(c.Slices[0].Spec.Devices) != ExampleGPUsPerNode {
		t.Fatalf("without partitions: %d slices", len(c.Slices))
	}
	countAttributes(t, c, func(resourceapi.Device) (int, int) { return 4, 2 })
	c = ExampleDriver(1, true)
	if len(c.Slices) != 2 || len(c.Slices[0].Spec.SharedCounters) != ExampleGPUsPerNode ||
		len(c.Slices[1].Spec.Devices) != ExampleGPUsPerNode*ExamplePartitionsPerGPU {
		t.Fatalf("with partitions: %d slices", len(c.Slices))
	}
	countAttributes(t, c, func(resourceapi.Device) (int, int) { return 5, 2 })
}

func TestSharedNICsAllowMultipleAllocationsWithRequestPolicies(t *testing.T) {
	c := SharedNICs(1)
	countAttributes(t, c, func(resourceapi.Device) (int, int) { return NICAttributes, NICCapacities })
	for _, d := range c.Slices[0].Spec.Devices {
		if d.AllowMultipleAllocations == nil || !*d.AllowMultipleAllocations {
			t.Errorf("%s is not multi-allocatable", d.Name)
		}
		if r := d.Capacity["ingressBandwidth"].RequestPolicy.ValidRange; r == nil || r.Step == nil {
			t.Errorf("%s: ingress without stepped range", d.Name)
		}
		if len(d.Capacity["egressBandwidth"].RequestPolicy.ValidValues) == 0 {
			t.Errorf("%s: egress without valid values", d.Name)
		}
	}
}

func TestClusterHelpersMergeListAndLookUpClasses(t *testing.T) {
	c := NvidiaH100(1).Merge(NvidiaA100(1), NvidiaH100(1))
	if len(c.Nodes) != 2 || len(c.Classes) != 3 || len(c.Slices) != 3 {
		t.Errorf("merged: %d nodes, %d classes, %d slices", len(c.Nodes), len(c.Classes), len(c.Slices))
	}
	lister := c.ClassLister()
	if got, err := lister.Get(ClassNvidiaMIG); err != nil || got.Name != ClassNvidiaMIG {
		t.Errorf("Get(%s) = %v, %v", ClassNvidiaMIG, got, err)
	}
	if _, err := lister.Get("no-such-class"); !apierrors.IsNotFound(err) {
		t.Errorf("Get of a missing class: %v, want NotFound", err)
	}
	if all, _ := lister.List(); len(all) != 3 {
		t.Errorf("List returned %d classes", len(all))
	}
	if n := len(c.Devices()); n != 24 {
		t.Errorf("%d devices, want 24", n)
	}
}

func TestCPUMappedDevicesAreNodeCPUOnNodesThatDeclareTheFeature(t *testing.T) {
	c := CPUMapped(2)
	for _, node := range c.Nodes {
		if cpu := node.Status.Allocatable.Cpu(); cpu.Cmp(resource.MustParse("64")) != 0 {
			t.Errorf("node %s has %s cpu allocatable, want 64", node.Name, cpu)
		}
		if !slices.Contains(node.Status.DeclaredFeatures, "DRANodeAllocatableResources") {
			t.Errorf("node %s declares %v, want DRANodeAllocatableResources (the API server refuses its slices otherwise)", node.Name, node.Status.DeclaredFeatures)
		}
	}
	for _, s := range c.Slices {
		for _, d := range s.Spec.Devices {
			m := d.NodeAllocatableResources[v1.ResourceCPU].Mapping
			if m == nil || m.DeviceMultiplier == nil || m.DeviceMultiplier.Cmp(resource.MustParse(CPUMappedPerDevice)) != 0 {
				t.Errorf("device %s/%s maps cpu as %+v, want %s per device", s.Name, d.Name, m, CPUMappedPerDevice)
			}
		}
	}
	if len(SchedulerPerf(1, 0).Slices[0].Spec.Devices[0].NodeAllocatableResources) != 0 {
		t.Error("CPUMapped changed SchedulerPerf's devices")
	}
}
