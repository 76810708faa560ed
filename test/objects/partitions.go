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

package objects

import (
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
)

// HalvableGPUs returns the two slices of node's pool of driver: gpus GPUs
// of two slices' worth each, announced as one whole device
// "gpu-<g>-whole" or two halves "gpu-<g>-half-<k>" on the shared counter
// "gpu-<g>", with the attribute size ("whole" or "half") — the shape of
// kubernetes/kubernetes#138765. The counters and the devices are in
// separate slices, as the API requires.
func HalvableGPUs(driver, node string, gpus int) []*resourceapi.ResourceSlice {
	counters := MakeSlice(node+"-counters", driver, node).SliceCount(2)
	devices := MakeSlice(node+"-devices", driver, node).SliceCount(2)
	for g := range gpus {
		set := fmt.Sprintf("gpu-%d", g)
		counters.CounterSet(set, map[string]string{"slices": "2"})
		devices.Device(set+"-whole", nil).Attribute("size", "whole").ConsumesCounters(set, map[string]string{"slices": "2"})
		for k := range 2 {
			devices.Device(fmt.Sprintf("%s-half-%d", set, k), nil).Attribute("size", "half").ConsumesCounters(set, map[string]string{"slices": "1"})
		}
	}
	return []*resourceapi.ResourceSlice{counters.Obj(), devices.Obj()}
}

// SizeClass is the DeviceClass name of driver's devices whose attribute
// size is size (HalvableGPUs).
func SizeClass(name, driver, size string) *resourceapi.DeviceClass {
	return DeviceClass(name, driver, fmt.Sprintf("device.attributes[%q].size == %q", driver, size))
}
