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

package main

import (
	"context"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dra-scheduler/dra-scheduler/manifests"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/kubeapply"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// demoCluster is the GPU cluster the demo seeds: 50 nodes of the shapes
// NVIDIA's DRA driver publishes.
func demoCluster() inventorygen.Cluster {
	return inventorygen.NvidiaH100(16).Merge(
		inventorygen.NvidiaH200(8),
		inventorygen.NvidiaA100(16),
		inventorygen.DynamicMIG(10, 0),
	)
}

// driverClasses are the DeviceClasses NVIDIA's DRA driver chart installs
// (gpu.nvidia.com, mig.nvidia.com, ...): the demo's workloads use them, as
// a cluster's would; the shipped examples bring classes of their own.
func driverClasses() []*resourceapi.DeviceClass { return inventorygen.NvidiaClasses() }

// seedCluster creates the nodes and their ResourceSlices, as the kubelet
// and the driver would, and the driver's DeviceClasses, as its chart would.
func seedCluster(ctx context.Context, client kubernetes.Interface, cluster inventorygen.Cluster) error {
	for _, c := range driverClasses() {
		if err := objects.Create(ctx, client, c.DeepCopy()); err != nil {
			return fmt.Errorf("seed DeviceClass %s: %w", c.Name, err)
		}
	}
	for _, n := range cluster.Nodes {
		n := n.DeepCopy()
		n.UID = ""
		if err := objects.Create(ctx, client, n); err != nil {
			return fmt.Errorf("seed node: %w", err)
		}
	}
	for _, s := range cluster.Slices {
		s := s.DeepCopy()
		s.OwnerReferences = nil
		if err := objects.Create(ctx, client, s); err != nil {
			return fmt.Errorf("seed slice: %w", err)
		}
	}
	return nil
}

// applyShipped applies, from manifests/, the admission policies and the
// examples (DeviceClasses, claim templates, a shared claim, pods) as an
// operator would; the Deployment is not needed: dra-scheduler runs in this
// process. It returns the names of the example pods.
func applyShipped(ctx context.Context, a *kubeapply.Applier) ([]string, error) {
	admission, err := manifests.ReadFile(manifests.AdmissionFile)
	if err != nil {
		return nil, err
	}
	objs, err := manifests.Decode(admission)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifests.AdmissionFile, err)
	}
	examples, err := manifests.Load(manifests.ExamplesDir)
	if err != nil {
		return nil, err
	}
	for _, f := range examples {
		objs = append(objs, f.Objects...)
	}
	var pods []string
	for _, o := range objs {
		if _, err := a.Apply(ctx, o); err != nil {
			return nil, err
		}
		if o.GetKind() == "Pod" {
			pods = append(pods, o.GetName())
		}
	}
	return pods, nil
}
