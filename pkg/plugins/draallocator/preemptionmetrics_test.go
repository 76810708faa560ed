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
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics/testutil"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/metrics"
)

// preempted returns the pod with the DisruptionTarget condition that
// scheduler's preemption sets for a pod.
func preempted(pod *v1.Pod, scheduler string) *v1.Pod {
	return preemptedFor(pod, scheduler, "pod")
}

// preemptedFor is preempted for a preemptor of the kind ("pod",
// "podgroup").
func preemptedFor(pod *v1.Pod, scheduler, kind string) *v1.Pod {
	pod = pod.DeepCopy()
	pod.Status.Conditions = append(pod.Status.Conditions, v1.PodCondition{
		Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler,
		Message: scheduler + ": preempting to accommodate a higher priority " + kind,
	})
	return pod
}

func TestPreemptionMetricsCountThisSchedulersVictimsWithClaimsOnce(t *testing.T) {
	metrics.Register()
	withClaim := boundPod("victim", "node-1", lowPriority, "held-0")
	withoutClaim := withClaim.DeepCopy()
	withoutClaim.Spec.ResourceClaims = nil
	for _, tc := range []struct {
		name            string
		old, new        *v1.Pod
		want, wantGroup float64
	}{
		{"a pod with claims that a profile of ours preempted counts", withClaim, preempted(withClaim, "dra-scheduler"), 1, 0},
		{"a pod with claims preempted for a pod group counts as a group's victim too", withClaim, preemptedFor(withClaim, "dra-scheduler", "podgroup"), 1, 1},
		{"a pod with claims preempted for a composite pod group counts as a group's victim too", withClaim, preemptedFor(withClaim, "dra-scheduler", "compositepodgroup"), 1, 1},
		{"a later update of the same victim does not count again", preempted(withClaim, "dra-scheduler"), preempted(withClaim, "dra-scheduler"), 0, 0},
		{"a later update of a group's victim does not count again", preemptedFor(withClaim, "dra-scheduler", "podgroup"), preemptedFor(withClaim, "dra-scheduler", "podgroup"), 0, 0},
		{"another scheduler's victim does not count", withClaim, preemptedFor(withClaim, "default-scheduler", "podgroup"), 0, 0},
		{"a victim without claims does not count", withoutClaim, preemptedFor(withoutClaim, "dra-scheduler", "podgroup"), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newPreemptionWatch()
			w.addProfile("dra-scheduler")
			before, err := testutil.GetCounterMetricValue(metrics.PreemptionVictims)
			if err != nil {
				t.Fatal(err)
			}
			beforeGroup, err := testutil.GetCounterMetricValue(metrics.GroupPreemptionVictims)
			if err != nil {
				t.Fatal(err)
			}
			w.update(tc.old, tc.new)
			after, _ := testutil.GetCounterMetricValue(metrics.PreemptionVictims)
			if got := after - before; got != tc.want {
				t.Errorf("victims counted: %v, want %v", got, tc.want)
			}
			afterGroup, _ := testutil.GetCounterMetricValue(metrics.GroupPreemptionVictims)
			if got := afterGroup - beforeGroup; got != tc.wantGroup {
				t.Errorf("group victims counted: %v, want %v", got, tc.wantGroup)
			}
		})
	}
}

func TestPreemptionMetricsTimeANominatedPodWithClaimsUntilItIsBound(t *testing.T) {
	metrics.Register()
	pending := boundPod("preemptor", "", highPriority, "want")
	pending.Spec.SchedulerName = "dra-scheduler"
	nominated := pending.DeepCopy()
	nominated.Status.NominatedNodeName = "node-1"
	bound := nominated.DeepCopy()
	bound.Spec.NodeName = "node-1"
	other := pending.DeepCopy()
	other.Spec.SchedulerName = "default-scheduler"
	otherNominated := other.DeepCopy()
	otherNominated.Status.NominatedNodeName = "node-1"
	otherBound := otherNominated.DeepCopy()
	otherBound.Spec.NodeName = "node-1"
	for _, tc := range []struct {
		name      string
		steps     func(w *preemptionWatch, clock *time.Time)
		wantCount uint64
		wantSum   float64
	}{
		{"nominated, then bound 3s later: one observation of 3s", func(w *preemptionWatch, clock *time.Time) {
			w.update(pending, nominated)
			*clock = clock.Add(3 * time.Second)
			w.update(nominated, bound)
		}, 1, 3},
		{"bound without a nomination: nothing", func(w *preemptionWatch, _ *time.Time) {
			w.update(pending, bound)
		}, 0, 0},
		{"nominated, then deleted: nothing, and nothing kept", func(w *preemptionWatch, clock *time.Time) {
			w.update(pending, nominated)
			w.forget(nominated.UID)
			*clock = clock.Add(time.Second)
			w.update(nominated, bound)
		}, 0, 0},
		{"another scheduler's pod: nothing", func(w *preemptionWatch, clock *time.Time) {
			w.update(other, otherNominated)
			*clock = clock.Add(time.Second)
			w.update(otherNominated, otherBound)
		}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newPreemptionWatch()
			w.addProfile("dra-scheduler")
			clock := time.Unix(1000, 0)
			w.now = func() time.Time { return clock }
			before, err := testutil.GetHistogramMetricValue(metrics.PreemptionNominatedToBound.ObserverMetric)
			if err != nil {
				t.Fatal(err)
			}
			beforeCount, _ := testutil.GetHistogramMetricCount(metrics.PreemptionNominatedToBound.ObserverMetric)
			tc.steps(w, &clock)
			after, _ := testutil.GetHistogramMetricValue(metrics.PreemptionNominatedToBound.ObserverMetric)
			afterCount, _ := testutil.GetHistogramMetricCount(metrics.PreemptionNominatedToBound.ObserverMetric)
			if got := afterCount - beforeCount; got != tc.wantCount {
				t.Errorf("observations: %d, want %d", got, tc.wantCount)
			}
			if got := after - before; got != tc.wantSum {
				t.Errorf("observed seconds: %v, want %v", got, tc.wantSum)
			}
			if len(w.nominatedAt) != 0 {
				t.Errorf("nominations still timed: %v", w.nominatedAt)
			}
		})
	}
}
