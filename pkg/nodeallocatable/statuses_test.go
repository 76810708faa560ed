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

package nodeallocatable

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

const driver = "dra.example.com"

// device builds a device of driver whose node resources are nar.
func device(name string, nar map[v1.ResourceName]resourceapi.NodeAllocatableResource) resourceapi.Device {
	return resourceapi.Device{Name: name, NodeAllocatableResources: nar}
}

func multipliedPerDevice(q string) resourceapi.NodeAllocatableResource {
	return resourceapi.NodeAllocatableResource{Mapping: &resourceapi.NodeAllocatableMapping{DeviceMultiplier: ptr.To(resource.MustParse(q))}}
}

func byCapacity(key, multiplier string) resourceapi.NodeAllocatableResource {
	m := &resourceapi.NodeAllocatableMapping{CapacityKey: ptr.To(resourceapi.QualifiedName(key))}
	if multiplier != "" {
		m.CapacityMultiplier = ptr.To(resource.MustParse(multiplier))
	}
	return resourceapi.NodeAllocatableResource{Mapping: m}
}

// lookup finds devices by name among devs.
func lookup(devs ...resourceapi.Device) DeviceLookup {
	return func(r *resourceapi.DeviceRequestAllocationResult) (*resourceapi.Device, error) {
		for i := range devs {
			if devs[i].Name == r.Device {
				return &devs[i], nil
			}
		}
		return nil, errors.New("device " + r.Device + " not found")
	}
}

// allocated is an allocation of the named devices, each with consumed
// capacity if given.
func allocated(consumed map[resourceapi.QualifiedName]resource.Quantity, devices ...string) *resourceapi.AllocationResult {
	a := &resourceapi.AllocationResult{}
	for _, d := range devices {
		a.Devices.Results = append(a.Devices.Results, resourceapi.DeviceRequestAllocationResult{Request: "req", Driver: driver, Pool: "pool", Device: d, ConsumedCapacity: consumed})
	}
	return a
}

func claim(name string, alloc *resourceapi.AllocationResult) Claim {
	return Claim{Ref: v1.ObjectReference{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}, Allocation: alloc}
}

// podUsing is a pod whose containers use the pod claims named per
// container ("init:" marks an init container).
func podUsing(containers map[string][]string, order ...string) *v1.Pod {
	pod := &v1.Pod{}
	for _, name := range order {
		c := v1.Container{Name: strings.TrimPrefix(name, "init:")}
		for _, ref := range containers[name] {
			c.Resources.Claims = append(c.Resources.Claims, v1.ResourceClaim{Name: ref})
		}
		if strings.HasPrefix(name, "init:") {
			pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
		} else {
			pod.Spec.Containers = append(pod.Spec.Containers, c)
		}
	}
	return pod
}

func mapped(name v1.ResourceName, q string) v1.NodeAllocatableMappedResources {
	return v1.NodeAllocatableMappedResources{Name: name, Quantity: ptr.To(resource.MustParse(q))}
}

func TestStatuses(t *testing.T) {
	cores := resourceapi.QualifiedName(driver + "/cores")
	for _, tc := range []struct {
		name    string
		pod     *v1.Pod
		claims  []Claim
		devices DeviceLookup
		want    []v1.NodeAllocatableResourceClaimStatus
		wantErr string
	}{
		{
			name: "no claims give no statuses",
			pod:  &v1.Pod{}, devices: lookup(),
			want: []v1.NodeAllocatableResourceClaimStatus{},
		},
		{
			name:    "a device multiplier counts once per allocated device",
			pod:     podUsing(map[string][]string{"c1": {"cpus"}}, "c1"),
			claims:  []Claim{claim("cpus", allocated(nil, "cpu-0", "cpu-1"))},
			devices: lookup(device("cpu-0", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: multipliedPerDevice("8")}), device("cpu-1", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: multipliedPerDevice("8")})),
			want:    []v1.NodeAllocatableResourceClaimStatus{{ResourceClaimName: "cpus", Containers: []string{"c1"}, Mapping: []v1.NodeAllocatableMappedResources{mapped(v1.ResourceCPU, "16")}}},
		},
		{
			name:    "a capacity mapping is the consumed capacity times its multiplier",
			pod:     podUsing(map[string][]string{"c1": {"cpus"}}, "c1"),
			claims:  []Claim{claim("cpus", allocated(map[resourceapi.QualifiedName]resource.Quantity{cores: resource.MustParse("4")}, "cpu-0"))},
			devices: lookup(device("cpu-0", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: byCapacity(string(cores), "2"), v1.ResourceMemory: byCapacity(string(cores), "1")})),
			want: []v1.NodeAllocatableResourceClaimStatus{{ResourceClaimName: "cpus", Containers: []string{"c1"},
				Mapping: []v1.NodeAllocatableMappedResources{mapped(v1.ResourceCPU, "8"), mapped(v1.ResourceMemory, "4")}}},
		},
		{
			name:    "a capacity the result did not consume adds nothing, and the claim has no status",
			pod:     podUsing(map[string][]string{"c1": {"cpus"}}, "c1"),
			claims:  []Claim{claim("cpus", allocated(map[resourceapi.QualifiedName]resource.Quantity{"other": resource.MustParse("4")}, "cpu-0"))},
			devices: lookup(device("cpu-0", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: byCapacity(string(cores), "2")})),
			want:    []v1.NodeAllocatableResourceClaimStatus{},
		},
		{
			name:    "a capacity mapping on a result that consumed no capacity is an error naming claim, device and key",
			pod:     &v1.Pod{},
			claims:  []Claim{claim("cpus", allocated(nil, "cpu-0"))},
			devices: lookup(device("cpu-0", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: byCapacity(string(cores), "2")})),
			wantErr: "claim ns/cpus, device cpu-0: ConsumedCapacity is nil, but Capacity key 'dra.example.com/cores' is set in NodeAllocatableResources for resource cpu",
		},
		{
			name:   "overheads are summed over the claim's devices, mapping and overhead on one resource kept apart",
			pod:    podUsing(map[string][]string{"init:setup": {"gpus"}, "c1": {"gpus"}, "c2": {"other"}}, "init:setup", "c1", "c2"),
			claims: []Claim{claim("gpus", allocated(nil, "gpu-0", "gpu-1"))},
			devices: lookup(
				device("gpu-0", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceMemory: {Overhead: &resourceapi.NodeAllocatableOverhead{PerPod: ptr.To(resource.MustParse("1Gi")), PerContainer: ptr.To(resource.MustParse("256Mi"))}}}),
				device("gpu-1", map[v1.ResourceName]resourceapi.NodeAllocatableResource{
					v1.ResourceMemory: {Overhead: &resourceapi.NodeAllocatableOverhead{PerPod: ptr.To(resource.MustParse("1Gi"))}},
					v1.ResourceCPU:    {Mapping: &resourceapi.NodeAllocatableMapping{DeviceMultiplier: ptr.To(resource.MustParse("500m"))}, Overhead: &resourceapi.NodeAllocatableOverhead{PerContainer: ptr.To(resource.MustParse("100m"))}},
				})),
			want: []v1.NodeAllocatableResourceClaimStatus{{
				ResourceClaimName: "gpus",
				Containers:        []string{"setup", "c1"},
				Mapping:           []v1.NodeAllocatableMappedResources{mapped(v1.ResourceCPU, "500m")},
				Overhead: []v1.NodeAllocatableOverheadResources{
					{Name: v1.ResourceCPU, PerContainer: ptr.To(resource.MustParse("100m"))},
					{Name: v1.ResourceMemory, PerPod: ptr.To(resource.MustParse("2Gi")), PerContainer: ptr.To(resource.MustParse("256Mi"))},
				},
			}},
		},
		{
			name: "claims come sorted by name; an unreferenced claim has a status without containers; a claim without node resources has none",
			pod:  podUsing(map[string][]string{"c1": {"b"}}, "c1"),
			claims: []Claim{
				claim("b", allocated(nil, "cpu-0")), claim("a", allocated(nil, "cpu-1")), claim("plain", allocated(nil, "nic-0")), claim("pending", nil),
			},
			devices: lookup(device("cpu-0", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: multipliedPerDevice("1")}),
				device("cpu-1", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: multipliedPerDevice("2")}), device("nic-0", nil)),
			want: []v1.NodeAllocatableResourceClaimStatus{
				{ResourceClaimName: "a", Containers: []string{}, Mapping: []v1.NodeAllocatableMappedResources{mapped(v1.ResourceCPU, "2")}},
				{ResourceClaimName: "b", Containers: []string{"c1"}, Mapping: []v1.NodeAllocatableMappedResources{mapped(v1.ResourceCPU, "1")}},
			},
		},
		{
			name:    "a device the lookup cannot find is an error naming claim, device and driver",
			pod:     &v1.Pod{},
			claims:  []Claim{claim("cpus", allocated(nil, "gone"))},
			devices: lookup(),
			wantErr: "claim ns/cpus, device gone, driver dra.example.com: device gone not found",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			podClaims := map[string]types.UID{}
			for _, c := range tc.claims {
				podClaims[c.Ref.Name] = c.Ref.UID
			}
			got, err := Statuses(tc.pod, tc.claims, podClaims, tc.devices)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHasMappingAndDeclaresNodeResources(t *testing.T) {
	devices := lookup(
		device("mapped", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: multipliedPerDevice("1")}),
		device("overhead-only", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceMemory: {Overhead: &resourceapi.NodeAllocatableOverhead{PerPod: ptr.To(resource.MustParse("1Gi"))}}}),
		device("plain", nil),
	)
	for _, tc := range []struct {
		name                   string
		alloc                  *resourceapi.AllocationResult
		wantMapping, wantNamed bool
	}{
		{"no allocation maps or names nothing", nil, false, false},
		{"a device with a mapping maps", allocated(nil, "overhead-only", "mapped"), true, true},
		{"overhead alone does not map (such a claim may be shared) but names node resources", allocated(nil, "overhead-only"), false, true},
		{"a device without node resources neither maps nor names any", allocated(nil, "plain"), false, false},
		{"a device the lookup cannot find is skipped", allocated(nil, "gone"), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := HasMapping(tc.alloc, devices); got != tc.wantMapping {
				t.Errorf("HasMapping = %v, want %v", got, tc.wantMapping)
			}
			if got := DeclaresNodeResources(tc.alloc, devices); got != tc.wantNamed {
				t.Errorf("DeclaresNodeResources = %v, want %v", got, tc.wantNamed)
			}
		})
	}
}

func TestStatusesLeaveTheDevicesTheyReadUnchanged(t *testing.T) {
	// Filter computes statuses on many goroutines from the informer's
	// copy of a slice: reading must not write to it.
	dev := device("cores", map[v1.ResourceName]resourceapi.NodeAllocatableResource{v1.ResourceCPU: byCapacity("cores", "2")})
	before := dev.DeepCopy()
	consumed := map[resourceapi.QualifiedName]resource.Quantity{"cores": resource.MustParse("3")}
	statuses, err := Statuses(&v1.Pod{}, []Claim{claim("c", allocated(consumed, "cores"))}, nil, lookup(dev))
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses[0].Mapping[0].Quantity; got.Cmp(resource.MustParse("6")) != 0 {
		t.Errorf("mapped %s cpu, want 6 (3 cores × 2)", got)
	}
	if !reflect.DeepEqual(&dev, before) {
		t.Errorf("the device changed while its statuses were computed:\nbefore %#v\nafter  %#v", before.NodeAllocatableResources[v1.ResourceCPU].Mapping.CapacityMultiplier, dev.NodeAllocatableResources[v1.ResourceCPU].Mapping.CapacityMultiplier)
	}
}
