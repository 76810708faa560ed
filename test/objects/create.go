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
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Create creates one object of the kinds the builders make. A Node's
// status is written too, since creation drops it.
func Create(ctx context.Context, client kubernetes.Interface, obj any) error {
	var err error
	switch o := obj.(type) {
	case *v1.Namespace:
		_, err = client.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
	case *v1.Node:
		var created *v1.Node
		if created, err = client.CoreV1().Nodes().Create(ctx, o, metav1.CreateOptions{}); err == nil {
			created.Status = o.Status
			_, err = client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
		}
	case *v1.Pod:
		_, err = client.CoreV1().Pods(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	case *resourceapi.DeviceClass:
		_, err = client.ResourceV1().DeviceClasses().Create(ctx, o, metav1.CreateOptions{})
	case *resourceapi.ResourceSlice:
		_, err = client.ResourceV1().ResourceSlices().Create(ctx, o, metav1.CreateOptions{})
	case *resourceapi.ResourceClaimTemplate:
		_, err = client.ResourceV1().ResourceClaimTemplates(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	case *resourceapi.ResourceClaim:
		_, err = client.ResourceV1().ResourceClaims(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	case *resourceapi.DeviceTaintRule:
		_, err = client.ResourceV1().DeviceTaintRules().Create(ctx, o, metav1.CreateOptions{})
	default:
		return fmt.Errorf("create: unsupported object %T", obj)
	}
	if err != nil {
		return fmt.Errorf("create %T: %w", obj, err)
	}
	return nil
}
