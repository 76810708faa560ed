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

package integration

import (
	"strings"
	"testing"

	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/dra-scheduler/dra-scheduler/pkg/allocator"
	"github.com/dra-scheduler/dra-scheduler/pkg/clusterstate"
	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestAGangIsPlacedWhereItsDevicesFitOnlyJointly runs issue 32's cases on
// the real kube-apiserver with GenericWorkload on, once with DRAAllocator
// and once with the in-tree plugin, which is the reference: a GPU is one
// whole device or two halves (shared counters), and every pod of a gang
// prefers a whole GPU and accepts a half (firstAvailable). Pod by pod,
// the first pod takes a whole GPU and strands a sibling
// (kubernetes/kubernetes#138765); DRAAllocator plans the gang's devices
// jointly and binds it. Each case has a driver and node of its own.
func TestAGangIsPlacedWhereItsDevicesFitOnlyJointly(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		plans        bool
	}{
		{"with DRAAllocator", podGroupConfig, true},
		{"with the in-tree plugin", inTreeConfig, false},
	} {
		t.Run(tc.name, func(t *testing.T) { testGangPlannedJointly(t, tc.config, tc.plans) })
	}
}

func testGangPlannedJointly(t *testing.T, schedulerConfig string, plans bool) {
	e := startPodGroupCluster(t, schedulerConfig)
	for _, tc := range []struct {
		name       string
		prefix     string
		gpus, pods int
		fits       bool
	}{
		{"two pods that each prefer the one whole GPU bind with a half each (#138765)", "pair", 1, 2, true},
		{"a gang of four binds on two partitioned GPUs", "four", 2, 4, true},
		{"a gang that cannot fit leaves every pod pending and nothing allocated", "three", 1, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.t = t
			driver := tc.prefix + ".example.com"
			node := tc.prefix + "-node"
			e.create(partitionedObjects(driver, node, tc.gpus)...)
			e.create(objects.FirstAvailableTemplate(tc.prefix+"-gpu", e.ns, "gpu", driver+"-whole", driver+"-half"))
			e.createGang(tc.prefix, tc.pods)
			pods := e.gangPods(tc.prefix, tc.prefix, "gpu", tc.prefix+"-gpu", tc.pods)
			t.Cleanup(func() { e.t = t; e.deletePods(pods) })
			if !tc.fits || !plans {
				msg := e.stayPending(pods, nil)
				for _, name := range pods {
					if claim := e.generatedClaim(name, "gpu"); claim.Status.Allocation != nil {
						t.Errorf("pod %s is pending but its claim %s is allocated", name, claim.Name)
					}
				}
				if !tc.fits && plans {
					if !strings.Contains(msg, "pod group "+e.ns+"/"+tc.prefix) {
						t.Errorf("the pods' messages do not name the pod group's shortfall: %s", msg)
					}
					e.checkExplainGang(pods[0], 2, tc.pods)
				}
				what := "cannot fit"
				if tc.fits {
					what = "fits jointly, but not pod by pod (recorded difference)"
				}
				t.Logf("the gang %s: every pod pending, nothing allocated; %s", what, msg)
				return
			}
			halves := 0
			for _, name := range pods {
				if pod := e.waitScheduled(name); pod.Spec.NodeName != node {
					t.Errorf("pod %s is on %s, want %s", name, pod.Spec.NodeName, node)
				}
				for _, d := range e.devicesOf(name) {
					if strings.Contains(d, "-half-") {
						halves++
					}
				}
			}
			if halves != tc.pods {
				t.Errorf("%d pods got half a GPU, want all %d", halves, tc.pods)
			}
			e.checkNoDeviceTwice()
		})
	}
}

// partitionedObjects are the classes driver-whole and driver-half and
// node with gpus GPUs, each a whole device or two halves
// (objects.HalvableGPUs).
func partitionedObjects(driver, node string, gpus int) []any {
	objs := []any{objects.SizeClass(driver+"-whole", driver, "whole"), objects.SizeClass(driver+"-half", driver, "half"), objects.MakeNode(node).Obj()}
	for _, s := range objects.HalvableGPUs(driver, node, gpus) {
		objs = append(objs, s)
	}
	return objs
}

// checkExplainGang checks that kubectl dra explain, reading the cluster,
// says that pod's group cannot run: the devices of only fit of its need
// pending pods fit together.
func (e *env) checkExplainGang(pod string, fit, need int) {
	e.t.Helper()
	objs, err := clusterstate.Get(e.ctx, e.client, clusterstate.Query{Namespace: e.ns, Pod: pod, Preemption: true})
	if err != nil {
		e.t.Fatalf("read the cluster for explain: %v", err)
	}
	c := explain.NewCluster(objs, explain.Settings{Features: structured.Features{PrioritizedList: true, PartitionableDevices: true}, Policy: allocator.FirstFit})
	p, err := c.FindPod(e.ns, pod)
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := c.Pod(e.ctx, p)
	if err != nil {
		e.t.Fatalf("explain pod %s: %v", pod, err)
	}
	if g := r.Gang; g == nil || g.Runs() || g.Fit != fit || g.Need != need || g.Pending != need {
		e.t.Errorf("explain pod %s: verdict %q, group %+v; want %d of %d pending pods fitting, %d needed", pod, r.Verdict, r.Gang, fit, need, need)
	} else {
		e.t.Logf("explain pod %s: %s", pod, r.Verdict)
	}
}
