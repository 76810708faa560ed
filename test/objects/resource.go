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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DeviceClass returns a DeviceClass selecting every device of driver,
// narrowed by further CEL selectors.
func DeviceClass(name, driver string, selectors ...string) *resourceapi.DeviceClass {
	class := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, expr := range append([]string{`device.driver == "` + driver + `"`}, selectors...) {
		class.Spec.Selectors = append(class.Spec.Selectors, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: expr}})
	}
	return class
}

// SliceWrapper builds a ResourceSlice.
type SliceWrapper struct{ resourceapi.ResourceSlice }

// MakeSlice returns a node-local slice that is the whole pool named after
// the node, as drivers publish them.
func MakeSlice(name, driver, node string) *SliceWrapper {
	return &SliceWrapper{resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:   driver,
			NodeName: &node,
			Pool:     resourceapi.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
		},
	}}
}

// Device adds a device with the given capacities ("memory": "80Gi", ...).
func (w *SliceWrapper) Device(name string, capacity map[string]string) *SliceWrapper {
	d := resourceapi.Device{Name: name}
	if len(capacity) > 0 {
		d.Capacity = map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{}
		for k, v := range capacity {
			d.Capacity[resourceapi.QualifiedName(k)] = resourceapi.DeviceCapacity{Value: resource.MustParse(v)}
		}
	}
	w.Spec.Devices = append(w.Spec.Devices, d)
	return w
}

// Obj returns the slice.
func (w *SliceWrapper) Obj() *resourceapi.ResourceSlice { return &w.ResourceSlice }

// ClaimTemplate returns a ResourceClaimTemplate with one request for count
// devices of class, filtered by CEL selectors.
func ClaimTemplate(name, namespace, request, class string, count int64, selectors ...string) *resourceapi.ResourceClaimTemplate {
	return &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: ClaimSpec(request, class, count, selectors...)},
	}
}

// ClaimSpec returns a claim spec with one ExactCount request.
func ClaimSpec(request, class string, count int64, selectors ...string) resourceapi.ResourceClaimSpec {
	exact := &resourceapi.ExactDeviceRequest{
		DeviceClassName: class,
		AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
		Count:           count,
	}
	for _, expr := range selectors {
		exact.Selectors = append(exact.Selectors, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: expr}})
	}
	return resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
		Requests: []resourceapi.DeviceRequest{{Name: request, Exactly: exact}},
	}}
}

// FirstAvailableTemplate returns a ResourceClaimTemplate whose one request
// prefers the alternatives in order, each one device of its class.
func FirstAvailableTemplate(name, namespace, request string, classes ...string) *resourceapi.ResourceClaimTemplate {
	req := resourceapi.DeviceRequest{Name: request}
	for i, class := range classes {
		req.FirstAvailable = append(req.FirstAvailable, resourceapi.DeviceSubRequest{
			Name:            fmt.Sprintf("alt-%d", i),
			DeviceClassName: class,
			AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
			Count:           1,
		})
	}
	return &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{req},
		}}},
	}
}

// Claim returns a ResourceClaim with spec.
func Claim(name, namespace string, spec resourceapi.ResourceClaimSpec) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Spec: spec}
}

// Attribute sets a string attribute on the device added last.
func (w *SliceWrapper) Attribute(name, value string) *SliceWrapper {
	d := &w.Spec.Devices[len(w.Spec.Devices)-1]
	if d.Attributes == nil {
		d.Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{}
	}
	d.Attributes[resourceapi.QualifiedName(name)] = resourceapi.DeviceAttribute{StringValue: &value}
	return w
}
