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
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// lastDevice is the device added last.
func (w *SliceWrapper) lastDevice() *resourceapi.Device {
	return &w.Spec.Devices[len(w.Spec.Devices)-1]
}

// IntAttribute sets an integer attribute on the device added last.
func (w *SliceWrapper) IntAttribute(name string, value int64) *SliceWrapper {
	d := w.lastDevice()
	if d.Attributes == nil {
		d.Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{}
	}
	d.Attributes[resourceapi.QualifiedName(name)] = resourceapi.DeviceAttribute{IntValue: &value}
	return w
}

// Taint adds a taint to the device added last.
func (w *SliceWrapper) Taint(key, value string, effect resourceapi.DeviceTaintEffect) *SliceWrapper {
	d := w.lastDevice()
	d.Taints = append(d.Taints, resourceapi.DeviceTaint{Key: key, Value: value, Effect: effect})
	return w
}

// AllowMultipleAllocations lets the device added last be shared by several
// allocations, each consuming part of its capacity.
func (w *SliceWrapper) AllowMultipleAllocations() *SliceWrapper {
	allow := true
	w.lastDevice().AllowMultipleAllocations = &allow
	return w
}

// ConsumesCounters makes the device added last consume counters ("memory":
// "8Gi", ...) from the pool's counter set.
func (w *SliceWrapper) ConsumesCounters(counterSet string, counters map[string]string) *SliceWrapper {
	d := w.lastDevice()
	d.ConsumesCounters = append(d.ConsumesCounters, resourceapi.DeviceCounterConsumption{CounterSet: counterSet, Counters: makeCounters(counters)})
	return w
}

// SliceCount sets how many slices the pool has.
func (w *SliceWrapper) SliceCount(n int64) *SliceWrapper {
	w.Spec.Pool.ResourceSliceCount = n
	return w
}

// CounterSet adds a shared counter set. The API allows a slice to carry
// either devices or counter sets, not both.
func (w *SliceWrapper) CounterSet(name string, counters map[string]string) *SliceWrapper {
	w.Spec.SharedCounters = append(w.Spec.SharedCounters, resourceapi.CounterSet{Name: name, Counters: makeCounters(counters)})
	return w
}

func makeCounters(counters map[string]string) map[string]resourceapi.Counter {
	out := make(map[string]resourceapi.Counter, len(counters))
	for k, v := range counters {
		out[k] = resourceapi.Counter{Value: resource.MustParse(v)}
	}
	return out
}

// DeviceTaintRule returns a rule that taints one device of a driver's pool.
func DeviceTaintRule(name, driver, pool, device string, taint resourceapi.DeviceTaint) *resourceapi.DeviceTaintRule {
	return &resourceapi.DeviceTaintRule{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.DeviceTaintRuleSpec{
			DeviceSelector: &resourceapi.DeviceTaintSelector{Driver: &driver, Pool: &pool, Device: &device},
			Taint:          taint,
		},
	}
}

// StringsAttribute sets a list-typed string attribute (DRAListTypeAttributes)
// on the device added last.
func (w *SliceWrapper) StringsAttribute(name string, values ...string) *SliceWrapper {
	d := w.lastDevice()
	if d.Attributes == nil {
		d.Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{}
	}
	d.Attributes[resourceapi.QualifiedName(name)] = resourceapi.DeviceAttribute{StringValues: values}
	return w
}
