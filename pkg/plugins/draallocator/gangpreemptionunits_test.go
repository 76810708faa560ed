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

package draallocator

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// victimGroup is PodGroup name of priority whose pods are evicted
// together when all, one by one otherwise.
func victimGroup(name string, priority int32, all bool) *schedulingapi.PodGroup {
	pg := &schedulingapi.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace}}
	pg.Spec.SchedulingPolicy.Basic = &schedulingapi.BasicSchedulingPolicy{}
	pg.Spec.Priority = ptr.To(priority)
	pg.Spec.DisruptionMode = &schedulingapi.DisruptionMode{Single: &schedulingapi.SingleDisruptionMode{}}
	if all {
		pg.Spec.DisruptionMode = &schedulingapi.DisruptionMode{All: &schedulingapi.AllDisruptionMode{}}
	}
	return pg
}

// inGroup puts pod in PodGroup group.
func inGroup(pod *v1.Pod, group string) *v1.Pod {
	pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
	return pod
}

// TestAPodGroupPreemptionsVictimsComeInDefaultPreemptionsUnits: the
// re-run's removed pods are only those with claims; the victims they make
// are DefaultPreemption's, a group whose disruptionMode is All one victim
// of all its scheduled pods (one without claims on another node
// included), at the group's priority.
func TestAPodGroupPreemptionsVictimsComeInDefaultPreemptionsUnits(t *testing.T) {
	withPodGroups(t, false)
	nodes, objs := preemptionCluster()
	all0, all1 := inGroup(boundPod("all-0", "node-1", 1, "c-all-0"), "all"), inGroup(boundPod("all-1", "node-1", 1, "c-all-1"), "all")
	allClaimless := inGroup(boundPod("all-2", "node-2", 1), "all")
	single0, single1 := inGroup(boundPod("single-0", "node-1", 1, "c-single-0"), "single"), inGroup(boundPod("single-1", "node-2", 1, "c-single-1"), "single")
	alone := boundPod("alone", "node-1", 3, "c-alone")
	pending := inGroup(boundPod("all-pending", "", 1), "all")
	objs = append(objs, victimGroup("all", 5, true), victimGroup("single", 6, false), all0, all1, allClaimless, single0, single1, alone, pending)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	pl := h.plugins[0]
	h.eventually("the informer to have every pod", func() bool { return len(pl.scheduledPodsIn(testNamespace)) == 6 })

	var removed []fwk.PodInfo
	for _, pod := range []*v1.Pod{single0, all0, alone, all1} {
		pi, err := framework.NewPodInfo(pod)
		if err != nil {
			t.Fatal(err)
		}
		removed = append(removed, pi)
	}
	got := map[string]string{}
	for _, v := range pl.victimUnits(removed) {
		var names []string
		for _, pi := range v.Pods() {
			names = append(names, pi.GetPod().Name)
			// The unit's priority is the one DefaultPreemption gives
			// each of its pods.
			if want := preemption.GetPodPriority(pi.GetPod(), h.snapshot.PodGroups(), nil); v.Priority() != want {
				t.Errorf("the victim of %s has priority %d, want DefaultPreemption's %d", pi.GetPod().Name, v.Priority(), want)
			}
		}
		slices.Sort(names)
		got[fmt.Sprint(names)] = fmt.Sprintf("%s group=%v", v.Type(), v.IsGroup())
	}
	want := map[string]string{
		"[all-0 all-1 all-2]": "podgroup group=true",
		"[single-0]":          "podgroup group=true",
		"[alone]":             "pod group=false",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("victims %v, want %v", got, want)
	}
}

// TestUnitsAreAsImportantAsDefaultPreemptionsVictims compares
// eviction.MoreImportant (explain's order) with DefaultPreemption's over
// random units.
func TestUnitsAreAsImportantAsDefaultPreemptionsVictims(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 1))
	kinds := []eviction.GroupKind{eviction.Pod, eviction.PodGroupMember, eviction.PodGroup, eviction.CompositePodGroup}
	randomUnit := func(i int) (eviction.Unit, preemption.Victim) {
		u := eviction.Unit{Group: eviction.GroupKey{Kind: kinds[r.IntN(len(kinds))]}, Priority: int32(r.IntN(3))}
		n := 1
		if u.Group.Kind >= eviction.PodGroup {
			n += r.IntN(3)
		}
		var infos []fwk.PodInfo
		for j := range n {
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%d-%d", i, j), UID: types.UID(fmt.Sprintf("u-%d-%d", i, j))}}
			if r.IntN(4) > 0 {
				pod.Status.StartTime = &metav1.Time{Time: time.Unix(1_000_000+int64(r.IntN(3))*60, 0)}
			}
			u.Pods = append(u.Pods, pod)
			pi, err := framework.NewPodInfo(pod)
			if err != nil {
				t.Fatal(err)
			}
			infos = append(infos, pi)
		}
		v, err := preemption.NewVictim(infos, u.Priority, entityKeyType(u.Group.Kind))
		if err != nil {
			t.Fatal(err)
		}
		return u, v
	}
	started := func(u eviction.Unit) bool {
		return slices.ContainsFunc(u.Pods, func(p *v1.Pod) bool { return p.Status.StartTime != nil })
	}
	disagreements := 0
	for i := range 5000 {
		a, va := randomUnit(2 * i)
		b, vb := randomUnit(2*i + 1)
		if !started(a) && !started(b) {
			// DefaultPreemption has such pods start when it looks at
			// them: the one it built first is the older.
			continue
		}
		if got, want := eviction.MoreImportant(a, b), preemption.MoreImportantVictim(va, vb); got != want {
			disagreements++
			if disagreements <= 5 {
				t.Errorf("units of kind %d and %d, priority %d and %d, %d and %d pods starting %v and %v: MoreImportant %v, DefaultPreemption %v",
					a.Group.Kind, b.Group.Kind, a.Priority, b.Priority, len(a.Pods), len(b.Pods), a.Start(), b.Start(), got, want)
			}
		}
	}
	if disagreements > 0 {
		t.Errorf("%d of 5000 pairs ordered otherwise than DefaultPreemption orders them", disagreements)
	}
}
