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
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// Gang preemption explained (issue 55). DefaultPreemption's events name
// each victim's preemptor on the victim ("Preempted"); the group's pods
// get, from DRAAllocator, the domains its re-run ranked and the victims
// each would cost (a PreemptionDomain event), once per re-run that ranked
// its placements.

// victimsNamed is how many victims an event names, those of the cheapest
// domain; it says how many more there are. Other domains are counted, not
// named: kube-apiserver refuses an event's note past eventNoteLimit.
const victimsNamed = 5

// eventNoteLimit is the longest note kube-apiserver accepts on an event.
const eventNoteLimit = 1024

// explainPreemptionDomains records on each pod of the group the domains
// its preemption's re-run ranked, the cheapest first, with their victims.
func (pl *DRAAllocator) explainPreemptionDomains(ctx context.Context, info fwk.PodGroupInfo, ranked []rankedPlacement) {
	key, _ := topologyKey(info)
	var parts []string
	for i, r := range ranked {
		parts = append(parts, describeDomainVictims(key, r, i == 0))
	}
	note := fitNote(fmt.Sprintf("pod group %s/%s preempts where its victims cost least: ", info.GetNamespace(), info.GetName()), parts)
	klog.FromContext(ctx).V(4).Info("Ranked a pod group preemption's domains by their victims", "podGroup", klog.KRef(info.GetNamespace(), info.GetName()), "ranking", note)
	recorder := pl.handle.EventRecorder()
	if recorder == nil {
		return
	}
	for _, pod := range info.GetUnscheduledPods() {
		recorder.Eventf(pod, nil, v1.EventTypeNormal, "PreemptionDomain", "Scheduling", "%s", note)
	}
}

// fitNote joins the parts after head, as many as fit in an event's note,
// saying how many more domains there are.
func fitNote(head string, parts []string) string {
	note := head
	for i, p := range parts {
		sep := ""
		if i > 0 {
			sep = "; "
		}
		more := ""
		if i < len(parts)-1 {
			more = fmt.Sprintf("; and %d more domains", len(parts)-1-i)
		}
		if len(note)+len(sep)+len(p)+len(more) > eventNoteLimit && i > 0 {
			return note + fmt.Sprintf("; and %d more domains", len(parts)-i)
		}
		note += sep + p
	}
	if len(note) > eventNoteLimit {
		note = note[:eventNoteLimit-len("…")] + "…"
	}
	return note
}

// describeDomainVictims says what one ranked placement costs: "rack=r2
// (cheapest): 2 victims, priority up to 100: ns/a, ns/b", naming the
// victims only where named says so.
func describeDomainVictims(key string, r rankedPlacement, named bool) string {
	domain := "the cluster"
	if key != "" {
		domain = key + "=" + r.placement.Name
	}
	if r.cheapest {
		domain += " (cheapest)"
	}
	v := r.victims
	if len(v.victims) == 0 {
		return domain + ": no victims"
	}
	pdb := ""
	if v.pdbViolations > 0 {
		pdb = fmt.Sprintf(", %d violating a PodDisruptionBudget", v.pdbViolations)
	}
	count := fmt.Sprintf("%d victims", v.pods())
	if v.pods() == 1 {
		count = "1 victim"
	}
	summary := fmt.Sprintf("%s: %s, priority up to %d%s", domain, count, v.victims[0].Priority(), pdb)
	if !named {
		return summary
	}
	names := v.podNames()
	more := ""
	if len(names) > victimsNamed {
		more = fmt.Sprintf(" and %d more", len(names)-victimsNamed)
		names = names[:victimsNamed]
	}
	return fmt.Sprintf("%s: %s%s", summary, strings.Join(names, ", "), more)
}
