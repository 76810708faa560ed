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
	"cmp"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// DeviceLookup returns the spec of an allocated device on the node; nil
// (without an error) for a device it does not know.
type DeviceLookup func(result *resourceapi.DeviceRequestAllocationResult) (*resourceapi.Device, error)

// Claim is one of the pod's claims with the allocation it has or gets.
type Claim struct {
	// Ref names the claim (namespace, name, UID).
	Ref        v1.ObjectReference
	Allocation *resourceapi.AllocationResult
}

// HasMapping reports whether an allocated device of the allocation maps
// to node resources (overhead aside): such a claim cannot be shared
// between pods. Devices the lookup fails on are skipped.
func HasMapping(alloc *resourceapi.AllocationResult, devices DeviceLookup) bool {
	if alloc == nil {
		return false
	}
	for i := range alloc.Devices.Results {
		device, err := devices(&alloc.Devices.Results[i])
		if err != nil || device == nil {
			continue
		}
		for _, r := range device.NodeAllocatableResources {
			if r.Mapping != nil {
				return true
			}
		}
	}
	return false
}

// SharingRefused is the scheduler's reason for not letting a pod use a
// claim with a mapped device that another consumer holds (in-tree's
// words).
func SharingRefused(claim string) string {
	return fmt.Sprintf("node allocatable resource claim %s has a mapped device and cannot be shared across pods", claim)
}

// DeclaresNodeResources reports whether an allocated device of the
// allocation names node resources (a mapping or an overhead): only such
// claims get a status. Devices the lookup fails on are skipped, as
// in-tree.
func DeclaresNodeResources(alloc *resourceapi.AllocationResult, devices DeviceLookup) bool {
	if alloc == nil {
		return false
	}
	for i := range alloc.Devices.Results {
		if device, err := devices(&alloc.Devices.Results[i]); err == nil && device != nil && len(device.NodeAllocatableResources) > 0 {
			return true
		}
	}
	return false
}

// Statuses returns the pod's nodeAllocatableResourceClaimStatuses for the
// claims: one per claim with a device that names node resources, its
// mapped quantities and overheads, and the pod's containers that use it
// (podClaims maps the pod's names for its claims, as containers use them,
// to the claims' UIDs).
func Statuses(pod *v1.Pod, claims []Claim, podClaims map[string]types.UID, devices DeviceLookup) ([]v1.NodeAllocatableResourceClaimStatus, error) {
	byUID := make(map[types.UID]*v1.NodeAllocatableResourceClaimStatus, len(claims))
	for _, c := range claims {
		if c.Allocation == nil {
			continue
		}
		status, err := claimStatus(c, devices)
		if err != nil {
			return nil, err
		}
		if status != nil {
			byUID[c.Ref.UID] = status
		}
	}
	for _, containers := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, container := range containers {
			for _, ref := range container.Resources.Claims {
				if status := byUID[podClaims[ref.Name]]; status != nil {
					status.Containers = append(status.Containers, container.Name)
				}
			}
		}
	}
	out := make([]v1.NodeAllocatableResourceClaimStatus, 0, len(byUID))
	for _, status := range byUID {
		out = append(out, *status)
	}
	slices.SortFunc(out, func(a, b v1.NodeAllocatableResourceClaimStatus) int {
		return cmp.Compare(a.ResourceClaimName, b.ResourceClaimName)
	})
	return out, nil
}

// claimStatus sums one claim's mapped quantities and overheads over its
// devices; nil when none of them names node resources.
func claimStatus(c Claim, devices DeviceLookup) (*v1.NodeAllocatableResourceClaimStatus, error) {
	mapped := map[v1.ResourceName]resource.Quantity{}
	overhead := map[v1.ResourceName]v1.NodeAllocatableOverheadResources{}
	for i := range c.Allocation.Devices.Results {
		result := &c.Allocation.Devices.Results[i]
		device, err := devices(result)
		if err != nil {
			return nil, fmt.Errorf("claim %s/%s, device %s, driver %s: %w", c.Ref.Namespace, c.Ref.Name, result.Device, result.Driver, err)
		}
		if device == nil {
			continue
		}
		for name, r := range device.NodeAllocatableResources {
			if r.Mapping != nil {
				if err := addMapping(mapped, name, r.Mapping, result, c.Ref); err != nil {
					return nil, err
				}
			}
			if r.Overhead != nil {
				addOverhead(overhead, name, r.Overhead)
			}
		}
	}
	if len(mapped) == 0 && len(overhead) == 0 {
		return nil, nil
	}
	status := &v1.NodeAllocatableResourceClaimStatus{
		ResourceClaimName: c.Ref.Name,
		Containers:        []string{},
		Mapping:           make([]v1.NodeAllocatableMappedResources, 0, len(mapped)),
		Overhead:          make([]v1.NodeAllocatableOverheadResources, 0, len(overhead)),
	}
	for name, q := range mapped {
		status.Mapping = append(status.Mapping, v1.NodeAllocatableMappedResources{Name: name, Quantity: &q})
	}
	for _, o := range overhead {
		status.Overhead = append(status.Overhead, o)
	}
	slices.SortFunc(status.Mapping, func(a, b v1.NodeAllocatableMappedResources) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(status.Overhead, func(a, b v1.NodeAllocatableOverheadResources) int { return cmp.Compare(a.Name, b.Name) })
	return status, nil
}

// addMapping adds what one allocated device is of a node resource: the
// consumed capacity named by the mapping times its multiplier, or the
// device multiplier.
func addMapping(totals map[v1.ResourceName]resource.Quantity, name v1.ResourceName, m *resourceapi.NodeAllocatableMapping,
	result *resourceapi.DeviceRequestAllocationResult, ref v1.ObjectReference) error {
	if m.CapacityKey != nil && *m.CapacityKey != "" {
		if result.ConsumedCapacity == nil {
			return fmt.Errorf("claim %s/%s, device %s: ConsumedCapacity is nil, but Capacity key '%s' is set in NodeAllocatableResources for resource %s",
				ref.Namespace, ref.Name, result.Device, *m.CapacityKey, name)
		}
		consumed, ok := result.ConsumedCapacity[*m.CapacityKey]
		if !ok {
			return nil
		}
		q := consumed.DeepCopy()
		if m.CapacityMultiplier != nil && !m.CapacityMultiplier.Equal(resource.MustParse("1")) {
			// AsDec rewrites its receiver: never the slice's own copy,
			// which other goroutines read.
			multiplier := m.CapacityMultiplier.DeepCopy()
			d := q.AsDec()
			d.Mul(d, multiplier.AsDec())
			q = *resource.NewDecimalQuantity(*d, consumed.Format)
		}
		add(totals, name, q)
		return nil
	}
	if m.DeviceMultiplier != nil {
		add(totals, name, m.DeviceMultiplier.DeepCopy())
	}
	return nil
}

func add(totals map[v1.ResourceName]resource.Quantity, name v1.ResourceName, q resource.Quantity) {
	total := totals[name]
	total.Add(q)
	totals[name] = total
}

// addOverhead adds one allocated device's overhead on a node resource.
func addOverhead(totals map[v1.ResourceName]v1.NodeAllocatableOverheadResources, name v1.ResourceName, o *resourceapi.NodeAllocatableOverhead) {
	if o.PerPod == nil && o.PerContainer == nil {
		return
	}
	total, ok := totals[name]
	if !ok {
		total = v1.NodeAllocatableOverheadResources{Name: name}
	}
	total.PerPod = sum(total.PerPod, o.PerPod)
	total.PerContainer = sum(total.PerContainer, o.PerContainer)
	totals[name] = total
}

// sum is a + b for optional quantities (nil when both are).
func sum(a, b *resource.Quantity) *resource.Quantity {
	switch {
	case b == nil:
		return a
	case a == nil:
		q := b.DeepCopy()
		return &q
	}
	q := a.DeepCopy()
	q.Add(*b)
	return &q
}
