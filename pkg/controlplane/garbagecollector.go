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

package controlplane

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/controller-manager/pkg/informerfactory"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/garbagecollector"
)

// Garbage collector settings: kube-controller-manager's default
// --concurrent-gc-syncs, and how often it rediscovers resources.
const (
	garbageCollectorWorkers = 20
	garbageCollectorSync    = 30 * time.Second
)

// startGarbageCollector runs kube-controller-manager's garbage collector:
// it deletes objects whose owners are gone. DRA depends on it where pods
// are deleted: the resourceclaim controller deletes a pod's generated
// ResourceClaims only while it still sees the pod, and leaves the claims of
// a pod already gone to the garbage collector (their owner reference).
func startGarbageCollector(ctx context.Context, config *restclient.Config, client kubernetes.Interface) (func(), error) {
	logger := klog.LoggerWithName(klog.FromContext(ctx), "garbage-collector")
	ctx, cancel := context.WithCancel(klog.NewContext(ctx, logger))
	metadataClient, err := metadata.NewForConfig(config)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("create metadata client for the garbage collector: %w", err)
	}
	// The mapper's discovery client must not be the one Sync polls: Sync
	// resets the mapper when resources change.
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery()))
	typed := informers.NewSharedInformerFactory(client, 0)
	metadataInformers := metadatainformer.NewSharedInformerFactory(metadataClient, 0)
	started := make(chan struct{})
	gc, err := garbagecollector.NewGarbageCollector(ctx, client, metadataClient, mapper,
		garbagecollector.DefaultIgnoredResources(), informerfactory.NewInformerFactory(typed, metadataInformers), started)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("create garbage collector: %w", err)
	}
	typed.Start(ctx.Done())
	metadataInformers.Start(ctx.Done())
	close(started)

	var wg sync.WaitGroup
	wg.Go(func() { gc.Run(ctx, garbageCollectorWorkers, garbageCollectorSync) })
	wg.Go(func() { gc.Sync(ctx, client.Discovery(), garbageCollectorSync) })
	return func() {
		cancel()
		wg.Wait()
		typed.Shutdown()
		metadataInformers.Shutdown()
	}, nil
}
