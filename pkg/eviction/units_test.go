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
	"fmt"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// groupsOf are Groups over the given groups of namespace "ns"; composite
// groups given turn CompositePodGroup on.
func groupsOf(pgs []*schedulingv1beta1.PodGroup, cpgs ...*schedulingv1alpha3.CompositePodGroup) Groups {
	g := Groups{PodGroup: func(ns, name string) *schedulingv1beta1.PodGroup {
		for _, pg := range pgs {
			if pg.Namespace == ns && pg.Name == name {
				return pg
			}
		}
		return nil
	}}
	if len(cpgs) > 0 {
		g.CompositePodGroup = func(ns, name string) *schedulingv1alpha3.CompositePodGroup {
			for _, cpg := range cpgs {
				if cpg.Namespace == ns && cpg.Name == name {
					return cpg
				}
			}
			return nil
		}
	}
	return g
}

// podGroup is PodGroup name of priority, its pods evicted together when
// all, under the CompositePodGroup parent if not empty.
func podGroup(name string, priority int32, all bool, parent string) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	pg.Spec.Priority = &priority
	if all {
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	} else {
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	}
	if parent != "" {
		pg.Spec.ParentCompositePodGroupName = &parent
	}
	return pg
}

// compositeGroup is podGroup's CompositePodGroup.
func compositeGroup(name string, priority int32, all bool, parent string) *schedulingv1alpha3.CompositePodGroup {
	cpg := &schedulingv1alpha3.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	cpg.Spec.Priority = &priority
	if all {
		cpg.Spec.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{All: &schedulingv1alpha3.AllCompositeDisruptionMode{}}
	}
	if parent != "" {
		cpg.Spec.ParentCompositePodGroupName = &parent
	}
	return cpg
}

// member is pod name on node, of PodGroup group, with its own priority 1.
func member(name, node, group string) *v1.Pod {
	p := pod(name, node)
	p.Spec.Priority = ptr.To[int32](1)
	if group != "" {
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	}
	return p
}

// unitNames prints units as "kind:group[pods]@priority".
func unitNames(units []Unit) []string {
	var out []string
	for _, u := range units {
		var names []string
		for _, p := range u.Pods {
			names = append(names, p.Name)
		}
		out = append(out, fmt.Sprintf("%d:%s%v@%d", u.Group.Kind, u.Group.Name, names, u.Priority))
	}
	return out
}

func TestPodsAreEvictedInTheUnitsOfTheirGroupsDisruptionMode(t *testing.T) {
	groups := []*schedulingv1beta1.PodGroup{
		podGroup("all", 10, true, ""),
		podGroup("single", 20, false, ""),
		podGroup("under-all", 5, false, "team"),
		podGroup("under-single", 5, false, "loose"),
		podGroup("all-under-all", 5, true, "team"),
		podGroup("cycle", 5, false, "c1"),
	}
	composites := []*schedulingv1alpha3.CompositePodGroup{
		compositeGroup("team", 40, true, "root"),
		compositeGroup("root", 50, false, ""),
		compositeGroup("loose", 30, false, ""),
		compositeGroup("c1", 7, false, "c2"),
		compositeGroup("c2", 8, false, "c1"),
	}
	elsewhere := []*v1.Pod{member("all-far", "n9", "all"), member("team-far", "n9", "under-all"), member("stranger", "n9", "single")}
	scheduled := func(ns string) []*v1.Pod {
		if ns != "ns" {
			t.Errorf("listed the pods of namespace %q", ns)
		}
		return elsewhere
	}
	for _, tc := range []struct {
		name   string
		groups Groups
		pods   []*v1.Pod
		list   func(string) []*v1.Pod
		want   []string
	}{
		{
			name:   "a pod without a group goes alone at its own priority",
			groups: groupsOf(groups),
			pods:   []*v1.Pod{member("a", "n1", "")},
			list:   scheduled,
			want:   []string{"0:[a]@1"},
		},
		{
			name:   "a group's pod goes alone at the group's priority when its mode is Single",
			groups: groupsOf(groups),
			pods:   []*v1.Pod{member("s-0", "n1", "single"), member("s-1", "n2", "single")},
			list:   scheduled,
			want:   []string{"1:[s-0]@20", "1:[s-1]@20"},
		},
		{
			name:   "the pods of a group whose mode is All go together, with those running elsewhere",
			groups: groupsOf(groups),
			pods:   []*v1.Pod{member("all-0", "n1", "all"), member("a", "n1", ""), member("all-1", "n2", "all")},
			list:   scheduled,
			want:   []string{"2:all[all-0 all-1 all-far]@10", "0:[a]@1"},
		},
		{
			name:   "without a list of the scheduled pods a group's unit has the pods given",
			groups: groupsOf(groups),
			pods:   []*v1.Pod{member("all-0", "n1", "all")},
			want:   []string{"2:all[all-0]@10"},
		},
		{
			name:   "a pod whose group is unknown goes alone at its own priority",
			groups: groupsOf(groups),
			pods:   []*v1.Pod{member("lost", "n1", "missing")},
			list:   scheduled,
			want:   []string{"1:[lost]@1"},
		},
		{
			name:   "with CompositePodGroup on the highest All group takes the pods of every group under it, at the root's priority",
			groups: groupsOf(groups, composites...),
			pods:   []*v1.Pod{member("u-0", "n1", "under-all"), member("aa-0", "n2", "all-under-all")},
			list:   scheduled,
			want:   []string{"3:team[u-0 aa-0 team-far]@50"},
		},
		{
			name:   "with CompositePodGroup off a PodGroup's parent is ignored",
			groups: groupsOf(groups),
			pods:   []*v1.Pod{member("u-0", "n1", "under-all"), member("aa-0", "n2", "all-under-all")},
			list:   scheduled,
			want:   []string{"1:[u-0]@5", "2:all-under-all[aa-0]@5"},
		},
		{
			name:   "under a parent whose mode is not All pods go alone at the parent's priority",
			groups: groupsOf(groups, composites...),
			pods:   []*v1.Pod{member("us-0", "n1", "under-single")},
			list:   scheduled,
			want:   []string{"1:[us-0]@30"},
		},
		{
			name:   "a cycle of parents ends the walk",
			groups: groupsOf(groups, composites...),
			pods:   []*v1.Pod{member("c-0", "n1", "cycle")},
			list:   scheduled,
			want:   []string{"1:[c-0]@8"},
		},
		{
			name:   "without GenericWorkload every pod goes alone at its own priority",
			groups: Groups{},
			pods:   []*v1.Pod{member("all-0", "n1", "all"), member("all-1", "n2", "all")},
			list:   scheduled,
			want:   []string{"0:[all-0]@1", "0:[all-1]@1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := unitNames(tc.groups.Units(tc.pods, tc.list)); !slices.Equal(got, tc.want) {
				t.Errorf("units %v, want %v", got, tc.want)
			}
		})
	}
}

func TestUnitsAreOrderedAsDefaultPreemptionOrdersVictims(t *testing.T) {
	started := func(p *v1.Pod, ago time.Duration) *v1.Pod {
		p.Status.StartTime = &metav1.Time{Time: time.Unix(1_000_000, 0).Add(-ago)}
		return p
	}
	unit := func(kind GroupKind, priority int32, pods ...*v1.Pod) Unit {
		return Unit{Group: GroupKey{Kind: kind}, Priority: priority, Pods: pods}
	}
	old, young, unstarted := started(pod("old", "n1"), time.Hour), started(pod("young", "n1"), time.Minute), pod("new", "n1")
	for _, tc := range []struct {
		name string
		a, b Unit
	}{
		{"a higher priority wins over everything", unit(Pod, 2, young), unit(CompositePodGroup, 1, old, old)},
		{"a CompositePodGroup wins over a PodGroup", unit(CompositePodGroup, 1, young), unit(PodGroup, 1, old, old)},
		{"a PodGroup and a group's pod alone rank the same", unit(PodGroupMember, 1, old), unit(PodGroup, 1, young)},
		{"a group's pod alone wins over a pod without a group", unit(PodGroupMember, 1, young), unit(Pod, 1, old)},
		{"more pods win", unit(PodGroup, 1, young, young), unit(PodGroup, 1, old)},
		{"the earlier start wins", unit(PodGroup, 1, young, old), unit(PodGroup, 1, young, young)},
		{"a started pod wins over one not started", unit(Pod, 1, young), unit(Pod, 1, unstarted)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !MoreImportant(tc.a, tc.b) {
				t.Error("the first unit is not the more important")
			}
			if MoreImportant(tc.b, tc.a) {
				t.Error("the second unit is the more important too")
			}
		})
	}
	if u := unit(Pod, 1, unstarted); MoreImportant(u, u) {
		t.Error("a unit is more important than itself")
	}
}

func TestAUnitsVictimCountsItsPodsFromTheEarliestStart(t *testing.T) {
	a, b := pod("a", "n1"), pod("b", "n2")
	b.Status.StartTime = &metav1.Time{Time: time.Unix(1_000_000, 0)}
	got := Unit{Priority: 7, Pods: []*v1.Pod{a, b}}.Victim()
	if want := (Victim{Priority: 7, Pods: 2, Start: time.Unix(1_000_000, 0)}); !got.Start.Equal(want.Start) || got.Priority != want.Priority || got.Pods != want.Pods {
		t.Errorf("victim %+v, want %+v", got, want)
	}
	if got := (Unit{Pods: []*v1.Pod{a}}).Start(); !got.After(time.Now()) {
		t.Errorf("a unit of pods not started starts at %v, not after every pod that started", got)
	}
}
