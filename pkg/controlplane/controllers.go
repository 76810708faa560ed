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

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	restclient "k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	namespacecontroller "k8s.io/kubernetes/pkg/controller/namespace"
	"k8s.io/kubernetes/pkg/controller/resourceclaim"
)

// DefaultResourceClaimWorkers is how many claims and pods the resourceclaim
// controller syncs in parallel unless Options.ClaimWorkers says otherwise:
// kube-controller-manager's default for --concurrent-resourceclaim-syncs.
// In k8s.io/kubernetes v1.37.2 the flag is declared in
// cmd/kube-controller-manager/app/options/resourceclaimcontroller.go with
// the component configuration's value as its default, which
// RecommendedDefaultResourceClaimControllerConfiguration in
// pkg/controller/resourceclaim/config/v1alpha1/defaults.go sets to 50 ("50
// workers were needed to pass the 1000 simulated node DRA test"); the
// controller runs with it in cmd/kube-controller-manager/app/resource.go.
// TestDefaultResourceClaimWorkersIsKubeControllerManagers checks it against
// that source.
const DefaultResourceClaimWorkers = 50

// namespaceWorkers and namespaceResync are kube-controller-manager's
// --concurrent-namespace-syncs (smaller: namespaces here are few) and
// --namespace-sync-period.
const (
	namespaceWorkers = 2
	namespaceResync  = 5 * time.Minute
)

// startControllers runs the controllers of kube-controller-manager that DRA
// and the tools depend on: the resourceclaim controller creates
// ResourceClaims from ResourceClaimTemplates, records them in pod status,
// removes stale reservations and deletes generated claims of finished
// pods; the namespace controller empties and removes deleted namespaces,
// as in any cluster (tools wait for that before reusing a name).
// claimWorkers is the resourceclaim controller's worker count.
func startControllers(ctx context.Context, config *restclient.Config, client kubernetes.Interface, claimWorkers int) (func(), error) {
	logger := klog.FromContext(ctx)
	ctx, cancel := context.WithCancel(ctx)
	logger.V(2).Info("Starting controllers", "resourceClaimWorkers", claimWorkers)

	factory := informers.NewSharedInformerFactory(client, 0)
	claimLogger := klog.LoggerWithName(logger, "resourceclaim-controller")
	claims, err := resourceclaim.NewController(claimLogger, client,
		factory.Core().V1().Pods(),
		factory.Scheduling().V1beta1().PodGroups(),
		factory.Resource().V1().ResourceClaims(),
		factory.Resource().V1().ResourceClaimTemplates())
	if err != nil {
		cancel()
		return nil, fmt.Errorf("create resourceclaim controller: %w", err)
	}
	metadataClient, err := metadata.NewForConfig(config)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("create metadata client for the namespace controller: %w", err)
	}
	nsCtx := klog.NewContext(ctx, klog.LoggerWithName(logger, "namespace-controller"))
	namespaces := namespacecontroller.NewNamespaceController(nsCtx, client, metadataClient,
		client.Discovery().ServerPreferredNamespacedResources, factory.Core().V1().Namespaces(),
		namespaceResync, v1.FinalizerKubernetes)
	factory.Start(ctx.Done())

	var wg sync.WaitGroup
	wg.Go(func() { claims.Run(klog.NewContext(ctx, claimLogger), claimWorkers) })
	wg.Go(func() { namespaces.Run(nsCtx, namespaceWorkers) })
	return func() {
		cancel()
		wg.Wait()
		factory.Shutdown()
	}, nil
}
