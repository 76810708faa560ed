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

package explain

import (
	"maps"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// The victims of a preemption, for one pod on a node and for a pod group
// in a domain alike: DefaultPreemption's units (eviction.Groups: a pod
// alone, or every pod of a group whose disruptionMode is All), evicted
// all at first and given back one by one, PodDisruptionBudget violators
// first and each part most important first (eviction.MoreImportant), for
// as long as the preemptor still fits.

// groups are the input's PodGroups as eviction looks them up (the input
// has no CompositePodGroups).
func (c *Cluster) groups() eviction.Groups {
	return eviction.Groups{PodGroup: c.podGroup}
}

// lowerUnits returns the units of the pods given whose priority is below
// priority, most important first; a group's unit has its pods on every
// node.
func (c *Cluster) lowerUnits(pods []*v1.Pod, priority int32) []eviction.Unit {
	var lower []eviction.Unit
	for _, u := range c.groups().Units(pods, c.boundIn) {
		if u.Priority < priority {
			lower = append(lower, u)
		}
	}
	sort.SliceStable(lower, func(i, j int) bool { return eviction.MoreImportant(lower[i], lower[j]) })
	return lower
}

// boundIn lists the bound pods of namespace, node by node.
func (c *Cluster) boundIn(namespace string) []*v1.Pod {
	var out []*v1.Pod
	for _, node := range slices.Sorted(maps.Keys(c.snap.BoundPods())) {
		for _, p := range c.snap.BoundPods()[node] {
			if p.Namespace == namespace {
				out = append(out, p)
			}
		}
	}
	return out
}

// victimSet is the units a preemption evicts, most important first.
type victimSet struct {
	units []eviction.Unit
	// violating are their pods whose eviction violates a budget.
	violating map[types.UID]bool
}

// reprieve gives lower (most important first, all in evicted) back one
// unit at a time, violators of a budget first, for as long as fits still
// holds with the rest evicted; it returns the units it could not give
// back.
func (c *Cluster) reprieve(lower []eviction.Unit, evicted map[types.UID]*v1.Pod, fits func() (bool, error)) (victimSet, error) {
	violating, nonViolating := c.splitUnitsByPDB(lower)
	out := victimSet{violating: map[types.UID]bool{}}
	for _, part := range [][]unitViolations{violating, nonViolating} {
		for _, uv := range part {
			for _, p := range uv.unit.Pods {
				delete(evicted, p.UID)
			}
			ok, err := fits()
			if err != nil {
				return victimSet{}, err
			}
			if ok {
				continue
			}
			for _, p := range uv.unit.Pods {
				evicted[p.UID] = p
			}
			out.units = append(out.units, uv.unit)
			for _, uid := range uv.pods {
				out.violating[uid] = true
			}
		}
	}
	sort.SliceStable(out.units, func(i, j int) bool { return eviction.MoreImportant(out.units[i], out.units[j]) })
	return out, nil
}

// cost is what evicting the set costs, each unit a victim.
func (s victimSet) cost() eviction.Cost {
	c := eviction.Cost{PDBViolations: len(s.violating), Victims: make([]eviction.Victim, len(s.units))}
	for i, u := range s.units {
		c.Victims[i] = u.Victim()
	}
	return c
}

// victims lists the set's pods for the report, unit by unit.
func (s victimSet) victims() []Victim {
	var out []Victim
	for _, u := range s.units {
		var group string
		if u.Group.Kind >= eviction.PodGroup {
			group = u.Group.Namespace + "/" + u.Group.Name
		}
		for _, p := range u.Pods {
			out = append(out, Victim{
				Pod: p.Namespace + "/" + p.Name, Priority: u.Priority, Group: group,
				Claims: eviction.ClaimNames(p), ViolatesPDB: s.violating[p.UID],
			})
		}
	}
	return out
}
