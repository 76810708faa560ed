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
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/podlatency"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// namespace is the examples' namespace, guarded by the admission policy.
const namespace = "gpu-workloads"

// workload is a group of identical pods, each with a claim from template.
type workload struct {
	prefix   string
	pods     int
	template *resourceapi.ResourceClaimTemplate
	why      string
}

// workloads are the demo's own jobs beside the examples: whole-node
// training, PCIe-local pairs, A100 quads, MIG inference, and two that
// cannot run (to show the explanations).
func workloads() []workload {
	tmpl := func(name string, claim *resourceapi.ResourceClaim) *resourceapi.ResourceClaimTemplate {
		return &resourceapi.ResourceClaimTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: claim.Spec},
		}
	}
	return []workload{
		{"train-h100x8", 12, tmpl("h100-x8", inventorygen.ExactClaim("c", inventorygen.ClassNvidiaGPU, 8, inventorygen.ProductSelector("h100"))), "8 H100s on one node"},
		{"llm-80gi", 10, objects.ClaimTemplate("llm-80gi", namespace, "gpu", inventorygen.ClassNvidiaGPU, 1, inventorygen.GPUMemorySelector("80Gi")), "one GPU with ≥80Gi (H200)"},
		{"finetune-pair", 20, tmpl("pcie-pair", inventorygen.GPUsOnSamePCIeRootClaim("c", 2)), "2 GPUs on one PCIe root"},
		{"a100x4", 16, tmpl("a100-x4", inventorygen.ExactClaim("c", inventorygen.ClassNvidiaGPU, 4, inventorygen.ProductSelector("a100"))), "4 A100s"},
		{"infer-mig", 40, tmpl("mig-1g10gb-demo", inventorygen.MIGProfileClaim("c", "1g.10gb")), "one 1g.10gb MIG slice"},
		{"too-big", 1, tmpl("gpu-x9", inventorygen.ExactClaim("c", inventorygen.ClassNvidiaGPU, 9)), "9 GPUs: no node has them"},
		{"no-class", 1, objects.ClaimTemplate("tpu", namespace, "tpu", "tpu.example.com", 1), "a DeviceClass nobody installed"},
	}
}

// submission is the measured pods and the recorder of their creation and
// binding times.
type submission struct {
	rec   *podlatency.Recorder
	names []string
}

// submit creates the workloads' templates, starts watching the namespace,
// then creates every pod as fast as the API server takes them, recording
// times. The examples' pods, created before, are not measured. Stop the
// submission's recorder when done.
func submit(ctx context.Context, client kubernetes.Interface, wls []workload) (*submission, error) {
	for _, w := range wls {
		if err := objects.Create(ctx, client, w.template); err != nil {
			return nil, err
		}
	}
	rec, err := podlatency.Start(ctx, client, namespace)
	if err != nil {
		return nil, err
	}
	s := &submission{rec: rec}
	for _, w := range wls {
		for i := range w.pods {
			name := fmt.Sprintf("%s-%d", w.prefix, i)
			pod := objects.MakePod(name, namespace).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", w.template.Name).Obj()
			s.names = append(s.names, name)
			rec.Created(name, time.Now())
			if _, err := client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				rec.Stop()
				return nil, fmt.Errorf("create pod %s/%s: %w", namespace, name, err)
			}
		}
	}
	return s, nil
}
