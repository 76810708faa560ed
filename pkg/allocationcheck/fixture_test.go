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

package allocationcheck

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// The one fixture builder all tests share. A fixture is a tiny cluster: node
// "node-1" (label zone=a), driver "dra.example.com", class "gpu" and a
// node-local pool "node-1" with devices gpu-0..gpu-3. Tests add claims,
// slices and results and mutate whatever they test.

const (
	driver   = "dra.example.com"
	thisNode = "node-1"
)

type fixture struct {
	features  structured.Features
	node      *v1.Node
	slices    []*resourceapi.ResourceSlice
	classes   []*resourceapi.DeviceClass
	claims    []*resourceapi.ResourceClaim
	allocated structured.AllocatedState
	results   []resourceapi.AllocationResult
}

func allFeatures() structured.Features {
	return structured.Features{
		AdminAccess: true, PrioritizedList: true, PartitionableDevices: true,
		DeviceTaints: true, DeviceBindingAndStatus: true, ConsumableCapacity: true,
	}
}

func newFixture() *fixture {
	return &fixture{
		features: allFeatures(),
		node: &v1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: thisNode, Labels: map[string]string{"zone": "a", "kubernetes.io/hostname": thisNode},
		}},
		slices:  []*resourceapi.ResourceSlice{localSlice("node-1-gpus", thisNode, thisNode, gpu(0), gpu(1), gpu(2), gpu(3))},
		classes: []*resourceapi.DeviceClass{class("gpu", `device.driver == "dra.example.com"`)},
		allocated: structured.AllocatedState{
			AllocatedDevices:         sets.New[structured.DeviceID](),
			AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
			AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
		},
	}
}

// oneGPU is the simplest valid allocation: claim-0 gets gpu-0 for req-0.
func oneGPU() *fixture {
	f := newFixture()
	f.claim("claim-0", exact("req-0", "gpu", 1))
	f.result(pinned(thisNode), got("req-0", thisNode, "gpu-0"))
	return f
}

func (f *fixture) input() Input {
	return Input{
		Features: f.features, Node: f.node, Slices: f.slices,
		Classes: classLister(f.classes), Claims: f.claims, Allocated: f.allocated,
	}
}

func (f *fixture) check() []error {
	return Check(context.Background(), f.input(), f.results)
}

// claim adds a claim in namespace "default".
func (f *fixture) claim(name string, requests ...resourceapi.DeviceRequest) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec:       resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: requests}},
	}
	f.claims = append(f.claims, c)
	return c
}

// result adds the allocation result of the next claim.
func (f *fixture) result(sel *v1.NodeSelector, entries ...resourceapi.DeviceRequestAllocationResult) *resourceapi.AllocationResult {
	f.results = append(f.results, resourceapi.AllocationResult{
		Devices: resourceapi.DeviceAllocationResult{Results: entries}, NodeSelector: sel,
	})
	return &f.results[len(f.results)-1]
}

func (f *fixture) addSlice(s *resourceapi.ResourceSlice) *resourceapi.ResourceSlice {
	f.slices = append(f.slices, s)
	return s
}

func (f *fixture) addClass(c *resourceapi.DeviceClass) *resourceapi.DeviceClass {
	f.classes = append(f.classes, c)
	return c
}

// device returns the named device of the named slice for mutation.
func (f *fixture) device(slice, name string) *resourceapi.Device {
	for _, s := range f.slices {
		if s.Name != slice {
			continue
		}
		for i := range s.Spec.Devices {
			if s.Spec.Devices[i].Name == name {
				return &s.Spec.Devices[i]
			}
		}
	}
	panic(fmt.Sprintf("no device %s in slice %s", name, slice))
}

// entry returns result entry j of claim i for mutation.
func (f *fixture) entry(i, j int) *resourceapi.DeviceRequestAllocationResult {
	return &f.results[i].Devices.Results[j]
}

func (f *fixture) markAllocated(pool, device string) {
	f.allocated.AllocatedDevices.Insert(structured.MakeDeviceID(driver, pool, device))
}

// Slices.

func newSlice(name, pool string, devices ...resourceapi.Device) *resourceapi.ResourceSlice {
	return &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:  driver,
			Pool:    resourceapi.ResourcePool{Name: pool, Generation: 1, ResourceSliceCount: 1},
			Devices: devices,
		},
	}
}

func localSlice(name, pool, node string, devices ...resourceapi.Device) *resourceapi.ResourceSlice {
	s := newSlice(name, pool, devices...)
	s.Spec.NodeName = ptr.To(node)
	return s
}

func allNodesSlice(name, pool string, devices ...resourceapi.Device) *resourceapi.ResourceSlice {
	s := newSlice(name, pool, devices...)
	s.Spec.AllNodes = ptr.To(true)
	return s
}

func selectorSlice(name, pool string, sel *v1.NodeSelector, devices ...resourceapi.Device) *resourceapi.ResourceSlice {
	s := newSlice(name, pool, devices...)
	s.Spec.NodeSelector = sel
	return s
}

func perDeviceSlice(name, pool string, devices ...resourceapi.Device) *resourceapi.ResourceSlice {
	s := newSlice(name, pool, devices...)
	s.Spec.PerDeviceNodeSelection = ptr.To(true)
	return s
}

func counterSlice(name, pool string, sets ...resourceapi.CounterSet) *resourceapi.ResourceSlice {
	s := newSlice(name, pool)
	s.Spec.NodeName = ptr.To(thisNode)
	s.Spec.SharedCounters = sets
	return s
}

// Devices.

// gpu returns device gpu-<i> with attributes model=a100 and index=<i>.
func gpu(i int) resourceapi.Device {
	return resourceapi.Device{
		Name: fmt.Sprintf("gpu-%d", i),
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"model": {StringValue: ptr.To("a100")},
			"index": {IntValue: ptr.To(int64(i))},
		},
	}
}

func attr(d resourceapi.Device, name string, value resourceapi.DeviceAttribute) resourceapi.Device {
	d.Attributes[resourceapi.QualifiedName(name)] = value
	return d
}

func str(s string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{StringValue: ptr.To(s)}
}

func counterSet(name string, counters map[string]string) resourceapi.CounterSet {
	return resourceapi.CounterSet{Name: name, Counters: counterMap(counters)}
}

func counterMap(counters map[string]string) map[string]resourceapi.Counter {
	out := map[string]resourceapi.Counter{}
	for k, v := range counters {
		out[k] = resourceapi.Counter{Value: resource.MustParse(v)}
	}
	return out
}

// partition returns a device consuming the given counters of one counter set.
func partition(name, set string, counters map[string]string) resourceapi.Device {
	return resourceapi.Device{
		Name:             name,
		Attributes:       map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": str("a100")},
		ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: set, Counters: counterMap(counters)}},
	}
}

func q(s string) *resource.Quantity { return ptr.To(resource.MustParse(s)) }

// Classes.

func class(name string, selectors ...string) *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       resourceapi.DeviceClassSpec{Selectors: celSelectors(selectors...)},
	}
}

func celSelectors(exprs ...string) []resourceapi.DeviceSelector {
	var out []resourceapi.DeviceSelector
	for _, e := range exprs {
		out = append(out, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: e}})
	}
	return out
}

func opaque(params string) resourceapi.DeviceConfiguration {
	return resourceapi.DeviceConfiguration{Opaque: &resourceapi.OpaqueDeviceConfiguration{
		Driver: driver, Parameters: runtime.RawExtension{Raw: []byte(params)},
	}}
}

type classLister []*resourceapi.DeviceClass

func (l classLister) List() ([]*resourceapi.DeviceClass, error) { return l, nil }

func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) {
	for _, c := range l {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclasses"), name)
}

// Requests.

func exact(name, class string, count int64, selectors ...string) resourceapi.DeviceRequest {
	return resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: class, Selectors: celSelectors(selectors...),
		AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count,
	}}
}

func allOf(name, class string, selectors ...string) resourceapi.DeviceRequest {
	return resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: class, Selectors: celSelectors(selectors...),
		AllocationMode: resourceapi.DeviceAllocationModeAll,
	}}
}

func firstAvailable(name string, subs ...resourceapi.DeviceSubRequest) resourceapi.DeviceRequest {
	return resourceapi.DeviceRequest{Name: name, FirstAvailable: subs}
}

func sub(name, class string, count int64, selectors ...string) resourceapi.DeviceSubRequest {
	return resourceapi.DeviceSubRequest{
		Name: name, DeviceClassName: class, Selectors: celSelectors(selectors...),
		AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count,
	}
}

func withCapacity(r resourceapi.DeviceRequest, requests map[string]string) resourceapi.DeviceRequest {
	c := &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{}}
	for k, v := range requests {
		c.Requests[resourceapi.QualifiedName(k)] = resource.MustParse(v)
	}
	r.Exactly.Capacity = c
	return r
}

// Results.

func got(request, pool, device string) resourceapi.DeviceRequestAllocationResult {
	return resourceapi.DeviceRequestAllocationResult{Request: request, Driver: driver, Pool: pool, Device: device}
}

func share(e resourceapi.DeviceRequestAllocationResult, id string, consumed map[string]string) resourceapi.DeviceRequestAllocationResult {
	e.ShareID = ptr.To(types.UID(id))
	if consumed != nil {
		e.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{}
		for k, v := range consumed {
			e.ConsumedCapacity[resourceapi.QualifiedName(k)] = resource.MustParse(v)
		}
	}
	return e
}

func pinned(node string) *v1.NodeSelector {
	return &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}},
	}}}
}

func labelSelector(key string, values ...string) *v1.NodeSelector {
	return &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}},
	}}}
}

// The shared table runner.

// checkCase is one table row: build a fixture; want is "" for a valid
// allocation (no violation of any rule) or a text that some violation of the
// rule under test must contain.
type checkCase struct {
	name  string
	build func() *fixture
	want  string
}

func runCheckCases(t *testing.T, rule CheckID, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := tc.build().check()
			if tc.want == "" {
				if len(errs) > 0 {
					t.Fatalf("valid allocation rejected:\n%s", joinErrors(errs))
				}
				return
			}
			for _, err := range errs {
				var v *Violation
				if errors.As(err, &v) && v.Check == rule && strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Fatalf("no %s violation containing %q; got:\n%s", rule, tc.want, joinErrors(errs))
		})
	}
}

func joinErrors(errs []error) string {
	if len(errs) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for _, err := range errs {
		b.WriteString("  " + err.Error() + "\n")
	}
	return b.String()
}
