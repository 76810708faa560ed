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
	"errors"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// Domains explained (issue 39). kube-scheduler's FailedScheduling for a
// pod group that fits in no placement says only what the first placement
// found. A group with a topology constraint gets, from DRAAllocator, what
// the device plan found in every domain the cycle tried (an event on each
// of its pods when none fits), and the domain chosen once its pods are
// reserved for binding.

// domainsKey is where a pod-group cycle records its domains' answers.
const domainsKey fwk.StateKey = Name + "/domains"

// domainsTried are the answers of the device plan in each domain a
// pod-group cycle tried, in order ("rack=r1: the devices of ...").
// Placements are tried one after another; the lock is for safety only.
type domainsTried struct {
	mu      sync.Mutex
	answers []string
}

// Clone returns the same record: the cycle's placements share it.
func (d *domainsTried) Clone() fwk.StateData { return d }

// recordDomain adds the plan's answer to the cycle's record, for a plan
// made in a topology domain.
func recordDomain(gcs fwk.PodGroupCycleState, plan *gangPlan) {
	if plan.domain == (topologyDomain{}) {
		return
	}
	d, err := stateAs[*domainsTried](gcs.Read(domainsKey))
	if err != nil {
		d = &domainsTried{}
		gcs.Write(domainsKey, d)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.answers = append(d.answers, plan.domain.String()+": "+plan.answer)
}

// explainDomains records on each unscheduled pod of a group that fit in
// no placement what the device plan found in each domain tried.
func (pl *DRAAllocator) explainDomains(ctx context.Context, gcs fwk.PodGroupCycleState, info fwk.PodGroupInfo) {
	d, err := stateAs[*domainsTried](gcs.Read(domainsKey))
	if err != nil {
		if !errors.Is(err, fwk.ErrNotFound) {
			klog.FromContext(ctx).Error(err, "Cannot read the domains tried", "podGroup", info.GetKey())
		}
		return
	}
	d.mu.Lock()
	note := "domains tried by the device plan of pod group " + info.GetNamespace() + "/" + info.GetName() + ": " + strings.Join(d.answers, "; ")
	d.mu.Unlock()
	recorder := pl.handle.EventRecorder()
	if recorder == nil {
		return
	}
	for _, pod := range info.GetUnscheduledPods() {
		recorder.Eventf(pod, nil, v1.EventTypeWarning, "FailedTopologyDomains", "Scheduling", "%s", note)
	}
}

// reportDomain records on a pod reserved for binding the domain its
// group's placement is in: the commit's Reserve, outside the pod-group
// cycle, with the winning placement's plan.
func (pl *DRAAllocator) reportDomain(cs fwk.CycleState, pod *v1.Pod, s *stateData) {
	if cs.IsPodGroupSchedulingCycle() || s.gang == nil || s.gang.plan.domain == (topologyDomain{}) {
		return
	}
	if recorder := pl.handle.EventRecorder(); recorder != nil {
		recorder.Eventf(pod, nil, v1.EventTypeNormal, "TopologyDomain", "Scheduling", "pod group %s placed in %s: %s",
			s.gang.plan.group, s.gang.plan.domain, s.gang.plan.answer)
	}
}
