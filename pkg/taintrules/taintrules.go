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

package taintrules

import (
	"cmp"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
)

// MayApply reports whether rule can taint a device of the given driver and
// pool, judged by the rule's driver and pool alone. A nil rule never does.
func MayApply(rule *resourceapi.DeviceTaintRule, driver, pool string) bool {
	if rule == nil || rule.Spec.DeviceSelector == nil {
		return false
	}
	sel := rule.Spec.DeviceSelector
	return (sel.Driver == nil || *sel.Driver == driver) && (sel.Pool == nil || *sel.Pool == pool)
}

// Apply returns slice with the taints of rules added to the devices they
// select. rules may be in any order; neither slice nor rules is modified.
func Apply(slice *resourceapi.ResourceSlice, rules []*resourceapi.DeviceTaintRule) *resourceapi.ResourceSlice {
	var applicable []*resourceapi.DeviceTaintRule
	for _, rule := range rules {
		if MayApply(rule, slice.Spec.Driver, slice.Spec.Pool.Name) {
			applicable = append(applicable, rule)
		}
	}
	if len(applicable) == 0 {
		return slice
	}
	if len(applicable) > 1 {
		slices.SortFunc(applicable, func(a, b *resourceapi.DeviceTaintRule) int { return cmp.Compare(a.Name, b.Name) })
	}
	patched := slice
	for _, rule := range applicable {
		device := rule.Spec.DeviceSelector.Device
		for i := range slice.Spec.Devices {
			if device != nil && *device != slice.Spec.Devices[i].Name {
				continue
			}
			if patched == slice {
				patched = slice.DeepCopy()
			}
			patched.Spec.Devices[i].Taints = append(patched.Spec.Devices[i].Taints, rule.Spec.Taint)
		}
	}
	return patched
}
