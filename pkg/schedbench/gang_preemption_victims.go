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

package schedbench

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// What the gang preemption workload reads back from the API between and
// after its gangs: the racks' layout once no pod is terminating, each
// gang's victims and rack, and the victims the scheduler's Preempted
// events attribute to each gang's PodGroup.

// observedLayout is the racks' layout as the API shows it, the
// low-priority pods staying (not terminating) and every bound pod's
// node.
type observedLayout struct {
	racks      []RackLayout
	lowStaying int
	nodeOf     map[string]string
}

// settleGang waits, up to terminatingSettle, until no pod of ns is
// terminating (the kubelet stand-in deletes victims 300 ms after their
// eviction starts) and returns the layout then, whose devices come from
// layout and pods from the API; the last gang of gp, if any, gets its
// victims (the low-priority pods staying before it and no longer) and
// its rack.
func settleGang(ctx context.Context, client kubernetes.Interface, ns string, rackOf map[string]int, layout []RackLayout, gp *GangPreemptionResult) (observedLayout, error) {
	var now observedLayout
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, terminatingSettle, true, func(ctx context.Context) (bool, error) {
		pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, fmt.Errorf("list the pods in %s: %w", ns, err)
		}
		now = observedLayout{racks: make([]RackLayout, len(layout)), nodeOf: map[string]string{}}
		for r := range layout {
			now.racks[r].Devices = layout[r].Devices
		}
		for _, pod := range pods.Items {
			if pod.DeletionTimestamp != nil {
				return false, nil
			}
			r, bound := rackOf[pod.Spec.NodeName]
			if pod.Spec.PriorityClassName == lowPriorityClass {
				now.lowStaying++
			}
			if !bound {
				continue
			}
			now.nodeOf[pod.Name] = pod.Spec.NodeName
			if pod.Spec.PriorityClassName == lowPriorityClass {
				now.racks[r].Low++
			} else {
				now.racks[r].High++
			}
		}
		return true, nil
	})
	if err != nil {
		return now, fmt.Errorf("wait for the terminating pods of %s to be gone: %w", ns, err)
	}
	if gp != nil && len(gp.Gangs) > 0 {
		last := &gp.Gangs[len(gp.Gangs)-1]
		last.Victims = last.lowBefore - now.lowStaying
		last.Rack = rackOfGang(last.members, now.nodeOf, rackOf)
	}
	return now, nil
}

// rackOfGang names the rack of the gang's bound pods: "-" for none,
// "split" for more than one.
func rackOfGang(pods []string, nodeOf map[string]string, rackOf map[string]int) string {
	racks := map[int]bool{}
	for _, pod := range pods {
		if node, ok := nodeOf[pod]; ok {
			racks[rackOf[node]] = true
		}
	}
	switch len(racks) {
	case 0:
		return "-"
	case 1:
		for r := range racks {
			return rackName(r)
		}
	}
	return "split"
}

// attributeGangVictims sets each gang's VictimsByEvents: the distinct
// victims of the scheduler's Preempted events in ns whose note names the
// gang's PodGroup ("Preempted by podgroup <uid> on node <node>"). It
// waits up to eventsSettle for as many as the gangs' victims, as the
// scheduler writes events asynchronously.
func attributeGangVictims(ctx context.Context, client kubernetes.Interface, ns string, gp *GangPreemptionResult) error {
	groups, err := client.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list the PodGroups in %s: %w", ns, err)
	}
	gangOf := map[string]int{} // PodGroup UID → gang index
	for _, group := range groups.Items {
		for i, g := range gp.Gangs {
			if g.Name == group.Name {
				gangOf[string(group.UID)] = i
			}
		}
	}
	deadline := time.Now().Add(eventsSettle)
	for {
		events, err := client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("list the events in %s: %w", ns, err)
		}
		counts := make([]int, len(gp.Gangs))
		seen, total := map[string]bool{}, 0
		for _, ev := range events.Items {
			i, ok := gangOf[preemptorUID(ev.Note)]
			if ev.Reason != "Preempted" || !ok || seen[string(ev.Regarding.UID)] {
				continue
			}
			seen[string(ev.Regarding.UID)] = true
			counts[i]++
			total++
		}
		for i := range gp.Gangs {
			gp.Gangs[i].VictimsByEvents = counts[i]
		}
		if total >= gp.Victims || time.Now().After(deadline) {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
}
