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
	"strings"

	resourceapi "k8s.io/api/resource/v1"
)

// Dynamic MIG: every possible MIG placement of every GPU is announced as a
// partitionable device consuming shared counters of its parent GPU.
const (
	// MIGCountersPerSet is the number of counters in a GPU's counter set:
	// six engine counters, memory and eight memory slices.
	MIGCountersPerSet = 15
	// MIGH100DevicesPerGPU is the number of devices announced per H100:
	// the full GPU plus 25 (profile, placement) pairs.
	MIGH100DevicesPerGPU = 26
	// MIGA100DevicesPerGPU is the same for an A100-40GB: 1 + 18.
	MIGA100DevicesPerGPU = 19
	// MIGDeviceAttributes is the number of attributes of a MIG device (those
	// of a full GPU without uuid, plus parentUUID and profile).
	MIGDeviceAttributes = 11
	// MIGDeviceCapacities is the number of capacities of a MIG device.
	MIGDeviceCapacities = 7
)

// migProfile is one MIG profile of a GPU model (values per the reference,
// engine counts approx.).
type migProfile struct {
	name                                                                      string // e.g. "1g.10gb", "1g.10gb+me"
	giProfileID                                                               int
	starts                                                                    []int // placement starts (memory slice index)
	size                                                                      int   // memory slices per placement
	memory                                                                    string
	multiprocessors, copyEngines, decoders, encoders, jpegEngines, ofaEngines int64
}

var h100Profiles = []migProfile{
	{name: "1g.10gb", giProfileID: 19, starts: []int{0, 1, 2, 3, 4, 5, 6}, size: 1, memory: "9984Mi", multiprocessors: 16, copyEngines: 1, decoders: 1, jpegEngines: 1},
	{name: "1g.10gb+me", giProfileID: 20, starts: []int{0, 1, 2, 3, 4, 5, 6}, size: 1, memory: "9984Mi", multiprocessors: 16, copyEngines: 1, decoders: 1, jpegEngines: 1, ofaEngines: 1},
	{name: "1g.20gb", giProfileID: 15, starts: []int{0, 2, 4, 6}, size: 2, memory: "20096Mi", multiprocessors: 26, copyEngines: 1, decoders: 1, jpegEngines: 1},
	{name: "2g.20gb", giProfileID: 14, starts: []int{0, 2, 4}, size: 2, memory: "20096Mi", multiprocessors: 32, copyEngines: 2, decoders: 2, jpegEngines: 2},
	{name: "3g.40gb", giProfileID: 9, starts: []int{0, 4}, size: 4, memory: "40448Mi", multiprocessors: 60, copyEngines: 3, decoders: 3, jpegEngines: 3},
	{name: "4g.40gb", giProfileID: 5, starts: []int{0}, size: 4, memory: "40448Mi", multiprocessors: 64, copyEngines: 4, decoders: 4, jpegEngines: 4},
	{name: "7g.80gb", giProfileID: 0, starts: []int{0}, size: 8, memory: "81152Mi", multiprocessors: 132, copyEngines: 8, decoders: 7, jpegEngines: 7, ofaEngines: 1},
}

var a100Profiles = []migProfile{
	{name: "1g.5gb", giProfileID: 19, starts: []int{0, 1, 2, 3, 4, 5, 6}, size: 1, memory: "4864Mi", multiprocessors: 14, copyEngines: 1},
	{name: "1g.10gb", giProfileID: 15, starts: []int{0, 2, 4, 6}, size: 2, memory: "9856Mi", multiprocessors: 14, copyEngines: 1, decoders: 1},
	{name: "2g.10gb", giProfileID: 14, starts: []int{0, 2, 4}, size: 2, memory: "9856Mi", multiprocessors: 28, copyEngines: 2, decoders: 1},
	{name: "3g.20gb", giProfileID: 9, starts: []int{0, 4}, size: 4, memory: "19968Mi", multiprocessors: 42, copyEngines: 3, decoders: 2},
	{name: "4g.20gb", giProfileID: 5, starts: []int{0}, size: 4, memory: "19968Mi", multiprocessors: 56, copyEngines: 4, decoders: 2},
	{name: "7g.40gb", giProfileID: 0, starts: []int{0}, size: 8, memory: "40192Mi", multiprocessors: 98, copyEngines: 7, decoders: 5, jpegEngines: 1, ofaEngines: 1},
}

// DynamicMIG returns nodes "h100-mig-<i>" with gpusPerNode H100 80GB GPUs
// (<= 0: 8) in dynamic MIG mode. Each node's pool (named after the node)
// consists of counter slices holding one counter set
// "gpu-<minor>-counter-set" per GPU (at most 8 per slice) followed by one
// devices slice per GPU (split at 64 devices) with the full GPU "gpu-<minor>"
// and every (profile, placement) as "gpu-<minor>-mig-<profile>-<gi>-<start>",
// where the profile drops dots and turns "+" into "-" (1g.10gb+me becomes
// 1g10gb-me, keeping the name a DNS label). An 8-GPU node has 208 devices,
// 8 counter sets and 9 slices.
func DynamicMIG(nodes, gpusPerNode int) Cluster {
	return dynamicMIG("h100-mig", modelH100, nodes, gpusPerNode)
}

// DynamicMIGA100 is DynamicMIG for A100-SXM4-40GB GPUs (nodes
// "a100-mig-<i>", 19 devices per GPU).
func DynamicMIGA100(nodes, gpusPerNode int) Cluster {
	return dynamicMIG("a100-mig", modelA100, nodes, gpusPerNode)
}

func dynamicMIG(prefix string, model gpuModel, nodes, gpusPerNode int) Cluster {
	if gpusPerNode <= 0 {
		gpusPerNode = NvidiaGPUsPerNode
	}
	var c Cluster
	for i := range nodes {
		node := nvidiaNode(fmt.Sprintf("%s-%d", prefix, i), model)
		c.Nodes = append(c.Nodes, node)
		pool := nodePool{node: node, driver: DriverNvidia}
		for minor := range gpusPerNode {
			pool.counterSets = append(pool.counterSets, migCounterSet(minor, model))
			pool.deviceGroups = append(pool.deviceGroups, migDevices(node.Name, minor, model))
		}
		c.Slices = append(c.Slices, pool.slices()...)
	}
	c.Classes = NvidiaClasses()
	return c
}

// MIGCounterSetName is the counter set of GPU minor.
func MIGCounterSetName(minor int) string { return fmt.Sprintf("gpu-%d-counter-set", minor) }

// MIGDeviceName is the device name of a MIG placement, e.g.
// MIGDeviceName(0, "1g.10gb", 19, 0) == "gpu-0-mig-1g10gb-19-0".
func MIGDeviceName(minor int, profile string, giProfileID, start int) string {
	p := strings.ReplaceAll(strings.ReplaceAll(profile, ".", ""), "+", "-")
	return fmt.Sprintf("gpu-%d-mig-%s-%d-%d", minor, p, giProfileID, start)
}

func memorySliceCounter(k int) string { return fmt.Sprintf("memory-slice-%d", k) }

func migCounterSet(minor int, model gpuModel) resourceapi.CounterSet {
	counters := map[string]resourceapi.Counter{
		"multiprocessors": counterOf(fmt.Sprint(model.multiprocessors)),
		"copy-engines":    counterOf(fmt.Sprint(model.copyEngines)),
		"decoders":        counterOf(fmt.Sprint(model.decoders)),
		"encoders":        counterOf(fmt.Sprint(model.encoders)),
		"jpeg-engines":    counterOf(fmt.Sprint(model.jpegEngines)),
		"ofa-engines":     counterOf(fmt.Sprint(model.ofaEngines)),
		"memory":          counterOf(model.memory),
	}
	for k := range model.memorySlices {
		counters[memorySliceCounter(k)] = counterOf("1")
	}
	return resourceapi.CounterSet{Name: MIGCounterSetName(minor), Counters: counters}
}

// migDevices announces the full GPU (consuming every counter of its set)
// and every MIG placement of GPU minor.
func migDevices(node string, minor int, model gpuModel) []resourceapi.Device {
	parent := gpuUUID(node, minor)
	full := fullGPU(node, minor, model)
	full.ConsumesCounters = []resourceapi.DeviceCounterConsumption{{
		CounterSet: MIGCounterSetName(minor),
		Counters:   nonZeroCounters(migCounterSet(minor, model).Counters),
	}}
	devices := []resourceapi.Device{full}
	for _, p := range model.profiles {
		for _, start := range p.starts {
			attrs := gpuAttributes(minor, model, "mig")
			attrs["parentUUID"] = stringAttr(parent)
			attrs["profile"] = stringAttr(p.name)
			consumed := map[string]resourceapi.Counter{
				"multiprocessors": counterOf(fmt.Sprint(p.multiprocessors)),
				"copy-engines":    counterOf(fmt.Sprint(p.copyEngines)),
				"decoders":        counterOf(fmt.Sprint(p.decoders)),
				"encoders":        counterOf(fmt.Sprint(p.encoders)),
				"jpeg-engines":    counterOf(fmt.Sprint(p.jpegEngines)),
				"ofa-engines":     counterOf(fmt.Sprint(p.ofaEngines)),
				"memory":          counterOf(p.memory),
			}
			for k := start; k < start+p.size; k++ {
				consumed[memorySliceCounter(k)] = counterOf("1")
			}
			devices = append(devices, resourceapi.Device{
				Name:       MIGDeviceName(minor, p.name, p.giProfileID, start),
				Attributes: attrs,
				Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
					"multiprocessors": capacityOf(fmt.Sprint(p.multiprocessors)),
					"copyEngines":     capacityOf(fmt.Sprint(p.copyEngines)),
					"decoders":        capacityOf(fmt.Sprint(p.decoders)),
					"encoders":        capacityOf(fmt.Sprint(p.encoders)),
					"jpegEngines":     capacityOf(fmt.Sprint(p.jpegEngines)),
					"ofaEngines":      capacityOf(fmt.Sprint(p.ofaEngines)),
					"memory":          capacityOf(p.memory),
				},
				ConsumesCounters: []resourceapi.DeviceCounterConsumption{{
					CounterSet: MIGCounterSetName(minor),
					Counters:   nonZeroCounters(consumed),
				}},
			})
		}
	}
	return devices
}

// nonZeroCounters drops zero consumptions (an engine the profile lacks).
func nonZeroCounters(in map[string]resourceapi.Counter) map[string]resourceapi.Counter {
	out := make(map[string]resourceapi.Counter, len(in))
	for name, c := range in {
		if !c.Value.IsZero() {
			out[name] = c
		}
	}
	return out
}
