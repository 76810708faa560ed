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
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// Amounts are quantities of the node resources DRA devices may take, in
// the scheduler's units: milli-CPU, bytes of memory, of ephemeral storage
// and of each hugepages size.
type Amounts struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	HugePages        map[v1.ResourceName]int64
}

// AmountsOf converts a resource list, ignoring other resources.
func AmountsOf(list v1.ResourceList) Amounts {
	var a Amounts
	for name, q := range list {
		switch {
		case name == v1.ResourceCPU:
			a.MilliCPU = q.MilliValue()
		case name == v1.ResourceMemory:
			a.Memory = q.Value()
		case name == v1.ResourceEphemeralStorage:
			a.EphemeralStorage = q.Value()
		case isHugePages(name):
			if a.HugePages == nil {
				a.HugePages = map[v1.ResourceName]int64{}
			}
			a.HugePages[name] = q.Value()
		}
	}
	return a
}

// Plus returns a + b.
func (a Amounts) Plus(b Amounts) Amounts {
	return a.combine(b, 1)
}

// Minus returns a - b.
func (a Amounts) Minus(b Amounts) Amounts {
	return a.combine(b, -1)
}

func (a Amounts) combine(b Amounts, sign int64) Amounts {
	out := Amounts{
		MilliCPU:         a.MilliCPU + sign*b.MilliCPU,
		Memory:           a.Memory + sign*b.Memory,
		EphemeralStorage: a.EphemeralStorage + sign*b.EphemeralStorage,
	}
	if len(a.HugePages)+len(b.HugePages) > 0 {
		out.HugePages = maps.Clone(a.HugePages)
		if out.HugePages == nil {
			out.HugePages = map[v1.ResourceName]int64{}
		}
		for name, v := range b.HugePages {
			out.HugePages[name] += sign * v
		}
	}
	return out
}

// IsZero reports amounts that are all zero.
func (a Amounts) IsZero() bool {
	if a.MilliCPU != 0 || a.Memory != 0 || a.EphemeralStorage != 0 {
		return false
	}
	for _, v := range a.HugePages {
		if v != 0 {
			return false
		}
	}
	return true
}

// Shortfall compares a pod's demand with what a node has left
// (allocatable minus requested) and returns the scheduler's reasons for
// each resource that does not fit — "Insufficient cpu", "Insufficient
// memory", "Insufficient ephemeral-storage", "Insufficient hugepages-…" —
// in that order (hugepages by name), and whether the demand exceeds the
// node's allocatable itself, so that evicting pods would not help.
func Shortfall(demand, allocatable, requested Amounts) (reasons []string, unresolvable bool) {
	check := func(reason string, want, capacity, used int64) {
		if want > 0 && want > capacity-used {
			reasons = append(reasons, reason)
			unresolvable = unresolvable || want > capacity
		}
	}
	check("Insufficient cpu", demand.MilliCPU, allocatable.MilliCPU, requested.MilliCPU)
	check("Insufficient memory", demand.Memory, allocatable.Memory, requested.Memory)
	check("Insufficient ephemeral-storage", demand.EphemeralStorage, allocatable.EphemeralStorage, requested.EphemeralStorage)
	for _, name := range slices.Sorted(maps.Keys(demand.HugePages)) {
		// Unlike the others, checked even when none is asked for (as
		// in-tree): an overcommitted size rejects a pod that names it.
		want, capacity := demand.HugePages[name], allocatable.HugePages[name]
		if want > capacity-requested.HugePages[name] {
			reasons = append(reasons, "Insufficient "+string(name))
			unresolvable = unresolvable || want > capacity
		}
	}
	return reasons, unresolvable
}
