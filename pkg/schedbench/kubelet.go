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
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// kubeletDelay is how long the kubelet stand-in lets a pod terminate
// before it deletes it for good, as test/integration's does: a kubelet
// takes at least that long to stop containers and report it. (Deleting
// victims within milliseconds, while kube-scheduler's asynchronous
// preemption is still running, is no real kubelet's timing.)
const kubeletDelay = 300 * time.Millisecond

// kubeletStandIn ends the graceful deletions of one namespace's pods, as
// their kubelet would once the containers stopped: kubeletDelay after it
// first sees a pod with a deletionTimestamp, it deletes it again with grace
// period 0. kube-scheduler's
// preemption deletes a victim gracefully (with the pod's
// terminationGracePeriodSeconds); on an in-process control plane nothing
// else would ever remove it, and its claims would stay reserved.
type kubeletStandIn struct {
	cancel  context.CancelFunc
	done    sync.WaitGroup
	factory informers.SharedInformerFactory
	// seen holds the pods being deleted, so that each is deleted once.
	mu   sync.Mutex
	seen map[types.UID]bool
	// deleted counts the pods it deleted; err is the first failed delete.
	deleted atomic.Int64
	errOnce sync.Once
	err     error
}

// startKubeletStandIn starts a kubeletStandIn for namespace and waits until
// its pod informer has synced. It runs until stop or the end of ctx.
func startKubeletStandIn(ctx context.Context, client kubernetes.Interface, namespace string) (*kubeletStandIn, error) {
	ctx, cancel := context.WithCancel(ctx)
	k := &kubeletStandIn{cancel: cancel, seen: map[types.UID]bool{}}
	k.factory = informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
	onPod := func(obj any) {
		pod, ok := obj.(*v1.Pod)
		if !ok || pod.DeletionTimestamp == nil || pod.Namespace != namespace {
			return
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.seen[pod.UID] || ctx.Err() != nil {
			return
		}
		k.seen[pod.UID] = true
		k.done.Go(func() {
			select {
			case <-ctx.Done():
			case <-time.After(kubeletDelay):
				k.finish(ctx, client, pod)
			}
		})
	}
	informer := k.factory.Core().V1().Pods().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    onPod,
		UpdateFunc: func(_, obj any) { onPod(obj) },
	}); err != nil {
		cancel()
		return nil, fmt.Errorf("kubelet stand-in: watch pods in %s: %w", namespace, err)
	}
	k.factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		k.stop()
		return nil, fmt.Errorf("kubelet stand-in: pods in %s: informer did not sync: %w", namespace, context.Cause(ctx))
	}
	return k, nil
}

// finish deletes the terminating pod for good (grace period 0), only if
// it is still the same pod (UID).
func (k *kubeletStandIn) finish(ctx context.Context, client kubernetes.Interface, pod *v1.Pod) {
	err := client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64),
		Preconditions:      &metav1.Preconditions{UID: &pod.UID},
	})
	switch {
	case err == nil:
		k.deleted.Add(1)
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err) || ctx.Err() != nil:
		// Gone already (a second event of the same pod), or stopping.
	default:
		k.errOnce.Do(func() {
			k.err = fmt.Errorf("kubelet stand-in: delete terminating pod %s/%s: %w", pod.Namespace, pod.Name, err)
		})
	}
}

// stop ends the stand-in and waits for it. Its first failed delete, if
// any, is returned.
func (k *kubeletStandIn) stop() error {
	k.cancel()
	k.mu.Lock() // no deletion starts after this
	k.mu.Unlock()
	k.done.Wait()
	k.factory.Shutdown()
	return k.err
}
