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
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// pointPodEvent names the pod event handler in the panic metric.
const pointPodEvent = "PodEvent"

// nominatedLimit bounds the nominations preemptionWatch times at once;
// beyond it, new ones are not timed.
const nominatedLimit = 10000

// preemptionWatch follows the scheduler's pods for the preemption
// metrics: the pods with claims that its profiles preempt, and how long
// nominated pods with claims take from nomination to binding. It learns
// both from the pod informer, as the API server has them, because
// DefaultPreemption, not the plugin, picks and evicts the victims.
type preemptionWatch struct {
	mu sync.Mutex
	// profiles are the scheduler names whose preemptions count.
	profiles sets.Set[string]
	// nominatedAt is when a pod was seen nominated, by UID.
	nominatedAt map[types.UID]time.Time
	now         func() time.Time
}

func newPreemptionWatch() *preemptionWatch {
	return &preemptionWatch{profiles: sets.New[string](), nominatedAt: map[types.UID]time.Time{}, now: time.Now}
}

// addProfile counts the preemptions of the profile's pods.
func (w *preemptionWatch) addProfile(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.profiles.Insert(name)
}

// watch subscribes w to the pod informer.
func (w *preemptionWatch) watch(factory informers.SharedInformerFactory, g *guard) error {
	return watchPods(factory, g, "the preemption metrics", podEvents{
		update: w.update,
		delete: func(pod *v1.Pod) { w.forget(pod.UID) },
	})
}

// update counts a pod that became a victim of one of the profiles and
// times a pod of theirs from nomination to binding.
func (w *preemptionWatch) update(old, pod *v1.Pod) {
	if !hasClaims(pod) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if by, forGroup := preemptedBy(pod); by != "" && w.profiles.Has(by) {
		if before, _ := preemptedBy(old); before == "" {
			metrics.PreemptionVictims.Inc()
			if forGroup {
				metrics.GroupPreemptionVictims.Inc()
			}
		}
	}
	if !w.profiles.Has(pod.Spec.SchedulerName) {
		return
	}
	switch {
	case old.Spec.NodeName == "" && pod.Spec.NodeName != "":
		if at, ok := w.nominatedAt[pod.UID]; ok {
			metrics.PreemptionNominatedToBound.Observe(w.now().Sub(at).Seconds())
			delete(w.nominatedAt, pod.UID)
		}
	case pod.Spec.NodeName == "" && old.Status.NominatedNodeName == "" && pod.Status.NominatedNodeName != "":
		if _, ok := w.nominatedAt[pod.UID]; !ok && len(w.nominatedAt) < nominatedLimit {
			w.nominatedAt[pod.UID] = w.now()
		}
	}
}

// forget drops a deleted pod's nomination.
func (w *preemptionWatch) forget(uid types.UID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.nominatedAt, uid)
}

// preemptedBy is the scheduler that preempted the pod, read from the
// DisruptionTarget condition kube-scheduler's preemption sets ("<scheduler
// name>: preempting to accommodate a higher priority <pod, podgroup or
// compositepodgroup>"), and whether it did for a pod group; "" if none
// did.
func preemptedBy(pod *v1.Pod) (scheduler string, forGroup bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.DisruptionTarget && c.Status == v1.ConditionTrue && c.Reason == v1.PodReasonPreemptionByScheduler {
			name, rest, ok := strings.Cut(c.Message, ": ")
			if ok {
				return name, !strings.HasSuffix(rest, " "+string(fwk.PodKeyType))
			}
		}
	}
	return "", false
}
