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

package explain_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// gpuCluster has nodes with two GPUs each (gpu-0, gpu-1) and the
// templates one-gpu and two-gpus.
func gpuCluster(nodes ...string) *clusterstate.Objects {
	objs := &clusterstate.Objects{
		Classes: []*resourceapi.DeviceClass{objects.DeviceClass(gpu, gpu)},
		Templates: []*resourceapi.ResourceClaimTemplate{
			objects.ClaimTemplate("one-gpu", ns, "gpu", gpu, 1),
			objects.ClaimTemplate("two-gpus", ns, "gpu", gpu, 2),
		},
	}
	for _, node := range nodes {
		objs.Nodes = append(objs.Nodes, objects.MakeNode(node).Obj())
		objs.Slices = append(objs.Slices, objects.MakeSlice(node+"-gpu", gpu, node).Device("gpu-0", nil).Device("gpu-1", nil).Obj())
	}
	return objs
}

// running adds a pod of priority bound to node whose claim "<pod>-gpu"
// (reserved for it) holds the node's devices; it returns the pod.
func running(objs *clusterstate.Objects, name, node string, priority int32, devices ...string) *v1.Pod {
	claimName := name + "-gpu"
	pod := objects.MakePod(name, ns).Claim("gpu", claimName).Obj()
	pod.UID = types.UID("uid-" + name)
	pod.Spec.NodeName = node
	pod.Spec.Priority = ptr.To(priority)
	pod.Status.Phase = v1.PodRunning
	objs.Pods = append(objs.Pods, pod)
	holds(objs, claimName, node, devices, pod)
	return pod
}

// holds adds the claim name allocated to node's devices and reserved for
// pods.
func holds(objs *clusterstate.Objects, name, node string, devices []string, pods ...*v1.Pod) {
	claim := objects.Claim(name, ns, objects.ClaimSpec("gpu", gpu, int64(len(devices))))
	claim.UID = types.UID("uid-" + name)
	alloc := &resourceapi.AllocationResult{NodeSelector: objects.NodeSelectorFor(node)}
	for _, d := range devices {
		alloc.Devices.Results = append(alloc.Devices.Results, resourceapi.DeviceRequestAllocationResult{Request: "gpu", Driver: gpu, Pool: node, Device: d})
	}
	claim.Status.Allocation = alloc
	for _, p := range pods {
		claim.Status.ReservedFor = append(claim.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
	}
	objs.Claims = append(objs.Claims, claim)
}

// preemptor is a pending pod of priority 100 with a claim from template.
func preemptor(template string) *v1.Pod {
	pod := objects.MakePod("urgent", ns).ClaimFromTemplate("gpu", template).Obj()
	pod.UID = "uid-urgent"
	pod.Spec.Priority = ptr.To[int32](100)
	return pod
}

func TestExplainNamesThePodsPreemptionWouldEvict(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cluster  func() *clusterstate.Objects
		pod      *v1.Pod
		settings explain.Settings
		// wantNode and wantVictims ("pod (priority)") are the answer;
		// wantNotPossible the reason when there is none.
		wantNode        string
		wantVictims     []string
		wantNotPossible string
	}{
		{
			name: "a pod of higher priority is told to evict the low-priority pod holding the GPUs it needs",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1")
				running(objs, "batch", "node-1", 10, "gpu-0", "gpu-1")
				return objs
			},
			pod:         preemptor("two-gpus"),
			wantNode:    "node-1",
			wantVictims: []string{"team/batch (10)"},
		},
		{
			name: "only as many pods as needed are evicted: the more important one is reprieved",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1")
				running(objs, "training", "node-1", 50, "gpu-0")
				running(objs, "batch", "node-1", 10, "gpu-1")
				return objs
			},
			pod:         preemptor("one-gpu"),
			wantNode:    "node-1",
			wantVictims: []string{"team/batch (10)"},
		},
		{
			name: "the node whose victims have the lowest priority is chosen",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1", "node-2", "node-3")
				running(objs, "training", "node-1", 50, "gpu-0", "gpu-1")
				running(objs, "batch", "node-2", 10, "gpu-0", "gpu-1")
				running(objs, "service", "node-3", 200, "gpu-0", "gpu-1")
				return objs
			},
			pod:         preemptor("two-gpus"),
			wantNode:    "node-2",
			wantVictims: []string{"team/batch (10)"},
		},
		{
			name: "at equal priorities the node with fewer victims is chosen",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1", "node-2")
				running(objs, "batch-a", "node-1", 10, "gpu-0")
				running(objs, "batch-b", "node-1", 10, "gpu-1")
				running(objs, "batch-c", "node-2", 10, "gpu-0", "gpu-1")
				return objs
			},
			pod:         preemptor("two-gpus"),
			wantNode:    "node-2",
			wantVictims: []string{"team/batch-c (10)"},
		},
		{
			name: "a pod whose pod group goes whole costs all the group's pods: two pods alone elsewhere cost less",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1", "node-2")
				running(objs, "grouped", "node-1", 10, "gpu-0", "gpu-1")
				evictedWhole(objs, []string{"grouped"}, 2, "node-1")
				running(objs, "batch-a", "node-2", 10, "gpu-0")
				running(objs, "batch-b", "node-2", 10, "gpu-1")
				return objs
			},
			pod:         preemptor("two-gpus"),
			wantNode:    "node-2",
			wantVictims: []string{"team/batch-a (10)", "team/batch-b (10)"},
		},
		{
			name: "a pod protected by a PodDisruptionBudget is spared when another node needs no violation",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1", "node-2")
				protected := running(objs, "protected", "node-1", 10, "gpu-0", "gpu-1")
				protected.Labels = map[string]string{"app": "protected"}
				running(objs, "batch", "node-2", 20, "gpu-0", "gpu-1")
				objs.PDBs = append(objs.PDBs, &policyv1.PodDisruptionBudget{
					ObjectMeta: metav1.ObjectMeta{Name: "protected", Namespace: ns},
					Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "protected"}}},
					Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 0},
				})
				return objs
			},
			pod:         preemptor("two-gpus"),
			wantNode:    "node-2",
			wantVictims: []string{"team/batch (20)"},
		},
		{
			name: "a claim shared with a pod of higher priority that stays frees nothing",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1")
				low := running(objs, "batch", "node-1", 10, "gpu-0")
				high := objects.MakePod("service", ns).Claim("gpu", "shared").Obj()
				high.UID, high.Spec.NodeName, high.Spec.Priority = "uid-service", "node-1", ptr.To[int32](200)
				low.Spec.ResourceClaims[0].ResourceClaimName = ptr.To("shared")
				objs.Pods = append(objs.Pods, high)
				objs.Claims = nil
				holds(objs, "shared", "node-1", []string{"gpu-0", "gpu-1"}, low, high)
				return objs
			},
			pod:             preemptor("two-gpus"),
			wantNotPossible: "no node would have room",
		},
		{
			name: "pods of equal priority are not evicted",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1")
				running(objs, "peer", "node-1", 100, "gpu-0", "gpu-1")
				return objs
			},
			pod:             preemptor("two-gpus"),
			wantNotPossible: "no node would have room",
		},
		{
			name: "a pod with preemptionPolicy Never is told it does not preempt",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1")
				running(objs, "batch", "node-1", 10, "gpu-0", "gpu-1")
				return objs
			},
			pod: func() *v1.Pod {
				p := preemptor("two-gpus")
				p.Spec.PreemptionPolicy = ptr.To(v1.PreemptNever)
				return p
			}(),
			wantNotPossible: "preemptionPolicy is Never",
		},
		{
			name: "with the plugin's preemption Disabled nothing is evicted",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1")
				running(objs, "batch", "node-1", 10, "gpu-0", "gpu-1")
				return objs
			},
			pod:             preemptor("two-gpus"),
			settings:        explain.Settings{PreemptionDisabled: true},
			wantNotPossible: "preemption is Disabled",
		},
		{
			name: "a dump without the bound pods says what to add",
			cluster: func() *clusterstate.Objects {
				objs := gpuCluster("node-1")
				running(objs, "batch", "node-1", 10, "gpu-0", "gpu-1")
				objs.Pods = nil
				return objs
			},
			pod:             preemptor("two-gpus"),
			wantNotPossible: "kubectl get pods -A -o yaml",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := tc.cluster()
			objs.Pods = append(objs.Pods, tc.pod)
			settings := tc.settings
			settings.Features, settings.Policy = features, allocator.FirstFit
			r, err := explain.NewCluster(objs, settings).Pod(t.Context(), tc.pod)
			if err != nil {
				t.Fatalf("Pod: %v", err)
			}
			p := r.Preemption
			if p == nil {
				t.Fatalf("no preemption answer; report %+v", r)
			}
			if p.Node != tc.wantNode {
				t.Errorf("node %q, want %q (%+v)", p.Node, tc.wantNode, p)
			}
			var victims []string
			for _, v := range p.Victims {
				victims = append(victims, fmt.Sprintf("%s (%d)", v.Pod, v.Priority))
			}
			if !reflect.DeepEqual(victims, tc.wantVictims) {
				t.Errorf("victims %v, want %v", victims, tc.wantVictims)
			}
			if tc.wantNotPossible == "" {
				if !strings.Contains(r.Verdict, "preemption would evict") || !strings.Contains(r.Verdict, tc.wantNode) {
					t.Errorf("verdict %q does not name the preemption on %s", r.Verdict, tc.wantNode)
				}
				if len(p.Devices) == 0 {
					t.Errorf("no devices named for the pod once the victims are gone")
				}
			} else if !strings.Contains(p.NotPossible, tc.wantNotPossible) {
				t.Errorf("not possible because %q, want it to say %q", p.NotPossible, tc.wantNotPossible)
			}
		})
	}
}

func TestExplainTextListsVictimsWithTheirPrioritiesAndClaims(t *testing.T) {
	objs := gpuCluster("node-1")
	running(objs, "batch", "node-1", 10, "gpu-0", "gpu-1")
	r := explainPod(t, objs, preemptor("two-gpus"))
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Preemption: node node-1 (evictions make room on 1 node)",
		"team/batch (10): batch-gpu",
		"Devices then: gpu/gpu: gpu.example.com/node-1/gpu-0, gpu/gpu: gpu.example.com/node-1/gpu-1",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}
