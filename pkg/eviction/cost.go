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

package eviction

import (
	"cmp"
	"math"
	"time"
)

// Cost is what evicting a set of victims costs, in the terms
// kube-scheduler's DefaultPreemption ranks its candidates by.
type Cost struct {
	// PDBViolations counts the victims whose eviction violates a
	// PodDisruptionBudget.
	PDBViolations int
	// Victims are the units evicted.
	Victims []Victim
}

// Victim is one unit of eviction: a pod, or the pods of a group evicted
// together.
type Victim struct {
	// Priority is the unit's priority (a group's, for its pods).
	Priority int32
	// Pods counts its pods.
	Pods int
	// Start is when its earliest pod started.
	Start time.Time
}

// CompareCost orders costs as DefaultPreemption orders preemption
// candidates (pickOneNodeForPreemption): fewer PodDisruptionBudget
// violations, then a lower highest priority, then a lower sum of
// priorities, then fewer pods, then a later start of the highest-priority
// victims; no victims at all is the cheapest. Negative when a is cheaper.
func CompareCost(a, b Cost) int {
	if c := cmp.Compare(a.PDBViolations, b.PDBViolations); c != 0 {
		return c
	}
	if len(a.Victims) == 0 || len(b.Victims) == 0 {
		return cmp.Compare(len(a.Victims), len(b.Victims))
	}
	if c := cmp.Compare(a.highest(), b.highest()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.prioritySum(), b.prioritySum()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.pods(), b.pods()); c != 0 {
		return c
	}
	// The later the highest-priority victims started, the cheaper.
	return b.earliestOfHighest().Compare(a.earliestOfHighest())
}

// highest is the highest priority of the victims.
func (c Cost) highest() int32 {
	h := c.Victims[0].Priority
	for _, v := range c.Victims[1:] {
		h = max(h, v.Priority)
	}
	return h
}

// prioritySum adds every victim pod's priority, each shifted to be at
// least zero, so that more pods never sum to less.
func (c Cost) prioritySum() int64 {
	var sum int64
	for _, v := range c.Victims {
		sum += int64(v.Pods) * (int64(v.Priority) + math.MaxInt32 + 1)
	}
	return sum
}

// pods counts the victims' pods.
func (c Cost) pods() int {
	n := 0
	for _, v := range c.Victims {
		n += v.Pods
	}
	return n
}

// earliestOfHighest is the earliest start of the victims of the highest
// priority.
func (c Cost) earliestOfHighest() time.Time {
	top := c.highest()
	var earliest time.Time
	found := false
	for _, v := range c.Victims {
		if v.Priority == top && (!found || v.Start.Before(earliest)) {
			earliest, found = v.Start, true
		}
	}
	return earliest
}
