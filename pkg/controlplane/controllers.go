package controlplane

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/resourceclaim"
)

// resourceClaimWorkers is how many claims and pods the resourceclaim
// controller syncs in parallel (kube-controller-manager's
// --concurrent-resourceclaim-syncs).
const resourceClaimWorkers = 10

// startControllers runs the controllers of kube-controller-manager that DRA
// depends on: the resourceclaim controller creates ResourceClaims from
// ResourceClaimTemplates, records them in pod status, removes stale
// reservations and deletes generated claims of finished pods.
func startControllers(ctx context.Context, client kubernetes.Interface) (func(), error) {
	logger := klog.LoggerWithName(klog.FromContext(ctx), "resourceclaim-controller")
	ctx, cancel := context.WithCancel(klog.NewContext(ctx, logger))

	factory := informers.NewSharedInformerFactory(client, 0)
	controller, err := resourceclaim.NewController(logger, client,
		factory.Core().V1().Pods(),
		factory.Scheduling().V1beta1().PodGroups(),
		factory.Resource().V1().ResourceClaims(),
		factory.Resource().V1().ResourceClaimTemplates())
	if err != nil {
		cancel()
		return nil, fmt.Errorf("create resourceclaim controller: %w", err)
	}
	factory.Start(ctx.Done())

	var wg sync.WaitGroup
	wg.Go(func() { controller.Run(ctx, resourceClaimWorkers) })
	return func() {
		cancel()
		wg.Wait()
		factory.Shutdown()
	}, nil
}
