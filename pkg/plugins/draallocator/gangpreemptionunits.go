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
	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"

	"github.com/dra-scheduler/dra-scheduler/pkg/eviction"
)

// The victims of a pod group preemption's re-run, in DefaultPreemption's
// units (eviction.Groups): a pod group whose disruptionMode is All is one
// victim of all its scheduled pods, the others a pod each. DefaultPreemption
// gives a unit back whole or not at all; the estimate of each placement's
// victims (victimsOf) does the same, and counts every pod of a unit,
// those without claims or on other nodes included, in its cost.

// evictionGroups looks pod groups up in the scheduler's snapshot, as
// DefaultPreemption does: CompositePodGroups only with that feature on.
func (pl *DRAAllocator) evictionGroups() eviction.Groups {
	lister := pl.handle.SnapshotSharedLister()
	pgs := lister.PodGroups()
	g := eviction.Groups{PodGroup: func(namespace, name string) *schedulingv1beta1.PodGroup {
		pg, err := pgs.Get(namespace, name)
		if err != nil {
			return nil
		}
		return pg
	}}
	if pl.gates.EnableCompositePodGroup {
		cpgs := lister.CompositePodGroups()
		g.CompositePodGroup = func(namespace, name string) *schedulingv1alpha3.CompositePodGroup {
			cpg, err := cpgs.Get(namespace, name)
			if err != nil {
				return nil
			}
			return cpg
		}
	}
	return g
}

// scheduledPodsIn lists the pods of namespace that run on a node and are
// not on their way out: those a group's eviction evicts besides the
// removed pods it has.
func (pl *DRAAllocator) scheduledPodsIn(namespace string) []*v1.Pod {
	pods, err := pl.podLister.Pods(namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	out := pods[:0:0]
	for _, pod := range pods {
		if pod.Spec.NodeName != "" && pod.DeletionTimestamp == nil && pod.Status.Phase != v1.PodSucceeded && pod.Status.Phase != v1.PodFailed {
			out = append(out, pod)
		}
	}
	return out
}

// victimUnits returns the victims the removed pods make, each a
// DefaultPreemption victim of its unit's pods, priority and kind.
func (pl *DRAAllocator) victimUnits(removed []fwk.PodInfo) []preemption.Victim {
	infos := make(map[types.UID]fwk.PodInfo, len(removed))
	for _, pi := range removed {
		infos[pi.GetPod().UID] = pi
	}
	units := pl.evictionGroups().Units(podsOf(removed), pl.scheduledPodsIn)
	victims := make([]preemption.Victim, 0, len(units))
	for _, u := range units {
		pods := make([]fwk.PodInfo, 0, len(u.Pods))
		for _, pod := range u.Pods {
			pi := infos[pod.UID]
			if pi == nil {
				var err error
				if pi, err = framework.NewPodInfo(pod); err != nil {
					continue
				}
			}
			pods = append(pods, pi)
		}
		v, err := preemption.NewVictim(pods, u.Priority, entityKeyType(u.Group.Kind))
		if err != nil {
			continue // no pods: nothing to evict
		}
		victims = append(victims, v)
	}
	return victims
}

// entityKeyType is the key type DefaultPreemption gives victims of kind.
func entityKeyType(kind eviction.GroupKind) fwk.EntityKeyType {
	switch kind {
	case eviction.CompositePodGroup:
		return fwk.CompositePodGroupKeyType
	case eviction.PodGroup, eviction.PodGroupMember:
		return fwk.PodGroupKeyType
	}
	return fwk.PodKeyType
}
