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
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// topologyConfig is the shipped profile's plugins
// (manifests/config/dra-scheduler.yaml): DRAAllocator in place of
// DynamicResources, and its placement score weight.
const topologyConfig = configHeader + `  plugins:
    multiPoint:
      enabled: [{name: DRAAllocator, weight: 2}, {name: DefaultPreemption}]
      disabled: [{name: DynamicResources}, {name: DefaultPreemption}, {name: TopologyPlacementGenerator}]
    placementScore:
      enabled: [{name: DRAAllocator, weight: 2}]
`

// startTopologyCluster is startPodGroupCluster with topology-aware
// workload scheduling on: kube-scheduler tries a gang with a topology
// constraint in every domain of the key (upstream's
// TopologyPlacementGenerator) and commits the best feasible one.
func startTopologyCluster(t *testing.T, schedulerConfig string) *env {
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
		features.GenericWorkload:                 true,
		features.TopologyAwareWorkloadScheduling: true,
	})
	return startClusterOn(t, controlplane.Options{APIServerFlags: []string{"--runtime-config=scheduling.k8s.io/v1beta1=true"}},
		schedulerConfig, controlplane.SchedulerOptions{})
}

// createTopologyGang creates the gang PodGroup name needing minCount pods,
// all in one domain of the node label key.
func (e *env) createTopologyGang(name string, minCount int, key string) {
	e.t.Helper()
	group := e.gangPodGroup(name, minCount)
	group.Spec.SchedulingConstraints = &schedulingapi.PodGroupSchedulingConstraints{Topology: []schedulingapi.TopologyConstraint{{Key: key}}}
	e.createPodGroup(group)
}

// rackNode is a node of rack with n plain devices of driver.
func rackNode(name, rack, driver string, n int) []any {
	slice := objects.MakeSlice(name, driver, name)
	for i := range n {
		slice.Device(fmt.Sprintf("gpu-%d", i), nil)
	}
	return []any{objects.MakeNode(name).Label("rack", rack).Obj(), slice.Obj()}
}

func TestTopologyAwareGangs(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		ours         bool
	}{
		{"with DRAAllocator", topologyConfig, true},
		{"with the in-tree plugin", inTreeConfig, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startTopologyCluster(t, tc.config)
			t.Run("a gang lands in the rack where its devices fit only jointly", func(t *testing.T) {
				e.t = t
				testRackFitsOnlyJointly(e, tc.ours)
			})
			t.Run("a gang packs the partly used rack and leaves a whole rack for the next", func(t *testing.T) {
				e.t = t
				testGangsPackRacks(e, tc.ours)
			})
			t.Run("a gang stays in one NVLink domain published only as a device attribute", func(t *testing.T) {
				e.t = t
				testAttributeDomain(e, tc.ours)
			})
		})
	}
}

// testRackFitsOnlyJointly: rack-1 holds a two-pod gang only as the two
// halves of one GPU, rack-2 has one whole GPU. Each pod prefers a whole
// GPU: pod by pod, rack-1's first pod takes the whole GPU and strands its
// sibling, so only the joint plan (made over the rack being tried) places
// the gang.
func testRackFitsOnlyJointly(e *env, ours bool) {
	driver := "joint.example.com"
	e.create(objects.SizeClass(driver+"-whole", driver, "whole"), objects.SizeClass(driver+"-half", driver, "half"),
		objects.MakeNode("joint-r1").Label("rack", "joint-1").Obj())
	for _, s := range objects.HalvableGPUs(driver, "joint-r1", 1) {
		e.create(s)
	}
	whole := objects.MakeSlice("joint-r2", driver, "joint-r2")
	whole.Device("gpu-0-whole", nil).Attribute("size", "whole")
	e.create(objects.MakeNode("joint-r2").Label("rack", "joint-2").Obj(), whole.Obj())
	e.create(objects.FirstAvailableTemplate("joint-gpu", e.ns, "gpu", driver+"-whole", driver+"-half"))
	e.createTopologyGang("joint", 2, "rack")
	pods := e.gangPods("joint", "joint", "gpu", "joint-gpu", 2)
	e.t.Cleanup(func() { e.deletePods(pods) })
	if !ours {
		msg := e.stayPending(pods, nil)
		e.t.Logf("the in-tree plugin leaves the gang pending (recorded difference): %s", msg)
		return
	}
	for _, name := range pods {
		if pod := e.waitScheduled(name); pod.Spec.NodeName != "joint-r1" {
			e.t.Errorf("pod %s is on %s, want joint-r1", name, pod.Spec.NodeName)
		}
		for _, d := range e.devicesOf(name) {
			if !strings.Contains(d, "-half-") {
				e.t.Errorf("pod %s got %s, want a half GPU", name, d)
			}
		}
	}
	e.checkNoDeviceTwice()
}

// testGangsPackRacks is the second scenario: two racks of two
// nodes with two GPUs each; one GPU of rack-1 is in use, and a pod without
// devices makes rack-2 the busier by CPU, so that kube-scheduler's own
// placement score (NodeResourcesFit, which packs CPU and memory) prefers
// rack-2. Gang A (two one-GPU pods) fits in either; gang B (four) needs a
// whole rack. Ranked by devices, A packs rack-1 and B gets rack-2; ranked
// by CPU, A takes rack-2 and B waits for ever.
func testGangsPackRacks(e *env, ours bool) {
	driver := "pack.example.com"
	for _, n := range []struct{ name, rack string }{{"pack-1a", "pack-1"}, {"pack-1b", "pack-1"}, {"pack-2a", "pack-2"}, {"pack-2b", "pack-2"}} {
		e.create(rackNode(n.name, n.rack, driver, 2)...)
	}
	e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("pack-gpu", e.ns, "gpu", driver, 1))
	busy := objects.MakePod("pack-busy", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "pack-gpu").Obj()
	busy.Spec.NodeSelector = map[string]string{v1.LabelHostname: "pack-1a"}
	load := objects.MakePod("pack-load", e.ns).Scheduler(schedulerapp.Name).Obj()
	load.Spec.NodeSelector = map[string]string{v1.LabelHostname: "pack-2a"}
	load.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")}
	e.create(busy, load)
	e.waitScheduled(busy.Name)
	e.waitScheduled(load.Name)
	e.t.Cleanup(func() { e.deletePods([]string{busy.Name, load.Name}) })

	e.createTopologyGang("pack-a", 2, "rack")
	a := e.gangPods("pack-a", "pack-a", "gpu", "pack-gpu", 2)
	e.t.Cleanup(func() { e.deletePods(a) })
	wantA := "pack-1"
	if !ours {
		wantA = "pack-2"
	}
	for _, name := range a {
		if pod := e.waitScheduled(name); !strings.HasPrefix(pod.Spec.NodeName, wantA) {
			e.t.Errorf("gang A's pod %s is on %s, want rack %s", name, pod.Spec.NodeName, wantA)
		}
	}

	e.createTopologyGang("pack-b", 4, "rack")
	b := e.gangPods("pack-b", "pack-b", "gpu", "pack-gpu", 4)
	e.t.Cleanup(func() { e.deletePods(b) })
	if !ours {
		msg := e.stayPending(b, nil)
		e.t.Logf("ranked by CPU, gang A took the whole rack and gang B waits (recorded difference): %s", msg)
		return
	}
	for _, name := range b {
		if pod := e.waitScheduled(name); !strings.HasPrefix(pod.Spec.NodeName, "pack-2") {
			e.t.Errorf("gang B's pod %s is on %s, want rack pack-2", name, pod.Spec.NodeName)
		}
	}
	e.checkNoDeviceTwice()
}

// testAttributeDomain is the third scenario: the NVLink domain is
// published only as a device attribute, no node carries it as a label.
// Node nvl-a has GPUs 0 and 1 in domain d1 and 2 and 3 in d2, node nvl-b
// two GPUs in d2; a gang of two pods with two GPUs each fits only in d2,
// over both nodes. Upstream's generator finds no node with the key.
func testAttributeDomain(e *env, ours bool) {
	driver := "nvl.example.com"
	a := objects.MakeSlice("nvl-a", driver, "nvl-a")
	for i, domain := range []string{"d1", "d1", "d2", "d2"} {
		a.Device(fmt.Sprintf("gpu-%d", i), nil).Attribute("nvlinkDomain", domain)
	}
	b := objects.MakeSlice("nvl-b", driver, "nvl-b").Device("gpu-0", nil).Attribute("nvlinkDomain", "d2").Device("gpu-1", nil).Attribute("nvlinkDomain", "d2")
	e.create(objects.MakeNode("nvl-a").Obj(), objects.MakeNode("nvl-b").Obj(), a.Obj(), b.Obj(),
		objects.DeviceClass(driver, driver), objects.ClaimTemplate("nvl-gpus", e.ns, "gpu", driver, 2))
	e.createTopologyGang("nvl", 2, driver+"/nvlinkDomain")
	pods := e.gangPods("nvl", "nvl", "gpu", "nvl-gpus", 2)
	e.t.Cleanup(func() { e.deletePods(pods) })
	if !ours {
		msg := e.stayPending(pods, nil)
		e.t.Logf("upstream's generator finds no node with the key (recorded difference): %s", msg)
		return
	}
	inD2 := []string{"nvl-a/gpu-2", "nvl-a/gpu-3", "nvl-b/gpu-0", "nvl-b/gpu-1"}
	for _, name := range pods {
		e.waitScheduled(name)
		for _, d := range e.devicesOf(name) {
			if !slices.Contains(inD2, d) {
				e.t.Errorf("pod %s got %s, outside NVLink domain d2", name, d)
			}
		}
	}
	e.checkNoDeviceTwice()
}
