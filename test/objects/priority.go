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

package objects

import (
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PriorityClass returns a PriorityClass of value that pods may preempt
// lower-priority pods with (the default preemptionPolicy).
func PriorityClass(name string, value int32) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
}

// PriorityClass sets spec.priorityClassName. The API server's Priority
// admission plugin fills spec.priority (and spec.preemptionPolicy) from the
// class, which must exist when the pod is created.
func (w *PodWrapper) PriorityClass(name string) *PodWrapper {
	w.Spec.PriorityClassName = name
	return w
}

// GracePeriod sets spec.terminationGracePeriodSeconds (MakePod's is 0).
// A deletion that names no grace period of its own, as kube-scheduler's
// preemption makes, then leaves a scheduled pod terminating, its claims
// still reserved, until something (its kubelet) deletes it for good.
func (w *PodWrapper) GracePeriod(seconds int64) *PodWrapper {
	w.Spec.TerminationGracePeriodSeconds = &seconds
	return w
}
