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
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// Units of eviction. With GenericWorkload, kube-scheduler's preemption
// evicts, and gives back, the pods of a PodGroup whose disruptionMode is
// All together: one victim of every scheduled pod of the highest group of
// the pod's hierarchy (its PodGroup, or a CompositePodGroup above it)
// whose mode is All, wherever those pods run. Every other pod is a victim
// alone. Either way the priority is its hierarchy's root's: the
// CompositePodGroup's or PodGroup's priority, the pod's own without a
// group.

// GroupKind is what kind of group a Unit is, or that it is a pod alone.
type GroupKind int

// The kinds of units.
const (
	// Pod is a pod without a group.
	Pod GroupKind = iota
	// PodGroupMember is a pod of a group whose pods go one by one.
	PodGroupMember
	// PodGroup is the pods of a PodGroup whose disruptionMode is All.
	PodGroup
	// CompositePodGroup is the pods of a CompositePodGroup whose
	// disruptionMode is All.
	CompositePodGroup
)

// GroupKey names a group of one namespace.
type GroupKey struct {
	Kind            GroupKind
	Namespace, Name string
}

// Groups looks pod groups up by namespace and name; each lookup returns
// nil for a group it does not know. CompositePodGroup nil means the
// CompositePodGroup feature is off: a PodGroup's parent is then ignored.
type Groups struct {
	PodGroup          func(namespace, name string) *schedulingv1beta1.PodGroup
	CompositePodGroup func(namespace, name string) *schedulingv1alpha3.CompositePodGroup
}

// Unit is pods evicted and given back as one.
type Unit struct {
	// Group is the group whose pods these are, when they go together;
	// Kind Pod or PodGroupMember for a pod alone.
	Group    GroupKey
	Priority int32
	Pods     []*v1.Pod
}

// maxDepth bounds a walk up a group hierarchy (the API's limit is 4).
const maxDepth = 8

// UnitOf returns the group pod is evicted with, Kind Pod or PodGroupMember
// when it goes alone, and the priority it is evicted at.
func (g Groups) UnitOf(pod *v1.Pod) (GroupKey, int32) {
	alone := GroupKey{Kind: Pod}
	if pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil || g.PodGroup == nil {
		return alone, corev1helpers.PodPriority(pod)
	}
	alone.Kind = PodGroupMember
	ns := pod.Namespace
	pg := g.PodGroup(ns, *pod.Spec.SchedulingGroup.PodGroupName)
	if pg == nil {
		return alone, corev1helpers.PodPriority(pod)
	}
	unit, priority := alone, priorityOr(pg.Spec.Priority)
	if pg.Spec.DisruptionMode != nil && pg.Spec.DisruptionMode.All != nil {
		unit = GroupKey{Kind: PodGroup, Namespace: ns, Name: pg.Name}
	}
	if g.CompositePodGroup == nil {
		return unit, priority
	}
	seen := map[string]bool{}
	for parent := pg.Spec.ParentCompositePodGroupName; parent != nil && !seen[*parent] && len(seen) < maxDepth; {
		seen[*parent] = true
		cpg := g.CompositePodGroup(ns, *parent)
		if cpg == nil {
			break
		}
		priority = priorityOr(cpg.Spec.Priority)
		if cpg.Spec.DisruptionMode != nil && cpg.Spec.DisruptionMode.All != nil {
			unit = GroupKey{Kind: CompositePodGroup, Namespace: ns, Name: cpg.Name}
		}
		parent = cpg.Spec.ParentCompositePodGroupName
	}
	return unit, priority
}

// priorityOr is a group's priority, 0 when the API left it unset (no
// priority class and no global default when the group was created).
func priorityOr(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// Units groups pods into units, in the order of each unit's first pod.
// A group's unit also takes the pods scheduledIn(namespace) lists that
// belong to it and are not among pods: evicting the group evicts them
// too, wherever they run.
func (g Groups) Units(pods []*v1.Pod, scheduledIn func(namespace string) []*v1.Pod) []Unit {
	var units []Unit
	at := map[GroupKey]int{}
	given := make(map[types.UID]bool, len(pods))
	for _, pod := range pods {
		given[pod.UID] = true
	}
	for _, pod := range pods {
		key, priority := g.UnitOf(pod)
		if key.Kind < PodGroup {
			units = append(units, Unit{Group: key, Priority: priority, Pods: []*v1.Pod{pod}})
			continue
		}
		if i, ok := at[key]; ok {
			units[i].Pods = append(units[i].Pods, pod)
			continue
		}
		at[key] = len(units)
		units = append(units, Unit{Group: key, Priority: priority, Pods: []*v1.Pod{pod}})
	}
	if scheduledIn == nil {
		return units
	}
	listed := map[string][]*v1.Pod{}
	for key, i := range at {
		others, ok := listed[key.Namespace]
		if !ok {
			others = scheduledIn(key.Namespace)
			listed[key.Namespace] = others
		}
		for _, pod := range others {
			if given[pod.UID] {
				continue
			}
			if k, _ := g.UnitOf(pod); k == key {
				units[i].Pods = append(units[i].Pods, pod)
			}
		}
	}
	return units
}

// Start is when the unit's earliest pod started. A pod that has not
// started yet counts as starting now, as DefaultPreemption counts it:
// after every pod that has; a unit of such pods only has notStarted.
func (u Unit) Start() time.Time {
	earliest := notStarted
	for _, pod := range u.Pods {
		if t := pod.Status.StartTime; t != nil && t.Time.Before(earliest) {
			earliest = t.Time
		}
	}
	return earliest
}

// notStarted is the start of pods that have not started, later than any
// start a pod's status can hold.
var notStarted = time.Date(9999, time.December, 31, 0, 0, 0, 0, time.UTC)

// Victim is the unit's entry in a Cost.
func (u Unit) Victim() Victim {
	return Victim{Priority: u.Priority, Pods: len(u.Pods), Start: u.Start()}
}

// MoreImportant orders units as DefaultPreemption orders victims
// (MoreImportantVictim): a higher priority, then a CompositePodGroup
// before a PodGroup or a group's pod alone (which rank the same) before a
// pod without a group, then more pods, then an earlier start.
func MoreImportant(a, b Unit) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if ra, rb := a.Group.Kind.rank(), b.Group.Kind.rank(); ra != rb {
		return ra > rb
	}
	if len(a.Pods) != len(b.Pods) {
		return len(a.Pods) > len(b.Pods)
	}
	return a.Start().Before(b.Start())
}

// rank is the kind's importance among victims of equal priority.
func (k GroupKind) rank() int {
	switch k {
	case CompositePodGroup:
		return 3
	case PodGroup, PodGroupMember:
		return 2
	}
	return 1
}
