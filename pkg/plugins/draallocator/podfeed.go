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

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// podEvents is what one feature does with the pod informer's events (the
// nomination clock, the preemption metrics); a nil func is not called.
type podEvents struct {
	add    func(pod *v1.Pod)
	update func(old, pod *v1.Pod)
	delete func(pod *v1.Pod)
}

// watchPods subscribes ev to the pod informer, each event guarded as a
// pod event (a panic in a handler is recovered and counted, not fatal).
// A deleted pod's last known state stands for it when the informer missed
// the deletion. purpose names the feature in the error.
func watchPods(factory informers.SharedInformerFactory, g *guard, purpose string, ev podEvents) error {
	_, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			defer g.recoverHandler(pointPodEvent)
			if pod, ok := obj.(*v1.Pod); ok && ev.add != nil {
				g.enter(pointPodEvent, nil)
				ev.add(pod)
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			defer g.recoverHandler(pointPodEvent)
			old, okOld := oldObj.(*v1.Pod)
			pod, ok := obj.(*v1.Pod)
			if okOld && ok && ev.update != nil {
				g.enter(pointPodEvent, nil)
				ev.update(old, pod)
			}
		},
		DeleteFunc: func(obj any) {
			defer g.recoverHandler(pointPodEvent)
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if pod, ok := obj.(*v1.Pod); ok && ev.delete != nil {
				g.enter(pointPodEvent, nil)
				ev.delete(pod)
			}
		},
	})
	if err != nil {
		return fmt.Errorf("watch pods for %s: %w", purpose, err)
	}
	return nil
}
