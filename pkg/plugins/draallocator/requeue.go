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
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// requeuer closes a gap between the scheduler's queue and the plugin's own
// copies of the cluster. The scheduler requeues a pod on an event it sees
// (a slice added, a claim deallocated) through its own informers; the
// plugin sees the same change through its slice tracker and claim handler,
// possibly later. A pod retried in between is rejected again for the old
// reason and would wait for the next event. So whenever the plugin's own
// copy learns of a change that can free devices, it activates every pod it
// looked at since the previous such change and did not place: pods waiting
// in the queue go back to the active queue, and pods in the middle of a
// cycle are requeued when they return (the framework's Activate contract).
type requeuer struct {
	activator fwk.PodActivator
	logger    klog.Logger

	mu   sync.Mutex
	pods map[types.UID]*v1.Pod
}

func newRequeuer(activator fwk.PodActivator, logger klog.Logger) *requeuer {
	return &requeuer{activator: activator, logger: logger, pods: map[types.UID]*v1.Pod{}}
}

// seen records a pod the plugin is about to judge.
func (r *requeuer) seen(pod *v1.Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pods[pod.UID] = pod
}

// placed forgets a pod that got its devices.
func (r *requeuer) placed(pod *v1.Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pods, pod.UID)
}

// changed activates the recorded pods: the plugin's view of devices just
// changed in a way that may let them fit.
func (r *requeuer) changed() {
	r.mu.Lock()
	if len(r.pods) == 0 {
		r.mu.Unlock()
		return
	}
	pods := make(map[string]*v1.Pod, len(r.pods))
	for _, pod := range r.pods {
		pods[pod.Namespace+"/"+pod.Name] = pod
	}
	clear(r.pods)
	r.mu.Unlock()
	if r.activator != nil {
		r.logger.V(5).Info("Device view changed, retrying pods", "pods", len(pods))
		r.activator.Activate(r.logger, pods)
	}
}
