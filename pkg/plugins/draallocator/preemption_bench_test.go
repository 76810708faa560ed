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

package draallocator

import (
	"fmt"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// BenchmarkPreemptorFilter is a preemptor's PreFilter and Filter on a
// cluster full of low-priority pods: nodes of 8 devices, each held by a
// pod of its own through a claim of its own, and a high-priority pod
// asking for one device. It fits nowhere now, and on every node Filter
// asks whether preemption may help (preemptionMayHelp), a what-if of the
// node's devices with every lower-priority pod gone. Logs are discarded:
// the test logger would cost more than Filter.
func BenchmarkPreemptorFilter(b *testing.B) {
	for _, nodes := range []int{100, 500} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			h, pod := fullCluster(b, nodes, 1)
			for b.Loop() {
				c, st := h.filter(h.plugins[0], pod)
				if st != nil || len(c.feasible) != 0 {
					b.Fatalf("PreFilter %v, feasible %v; want none", st, c.feasible)
				}
			}
		})
	}
}

// BenchmarkPreemptorDryRuns is one preemption attempt as kube-scheduler
// makes it on a cluster full of low-priority pods (fullCluster): Filter on
// every node, then DefaultPreemption's dry runs on as many nodes as it
// tries (10% of them, at least 100): on a copy of the cycle state and the
// node, every lower-priority pod removed and Filter, then each given back
// in turn and Filter again, removed again where the preemptor no longer
// fits. ns/op is per attempt; the metric node-µs is per node dry-run.
func BenchmarkPreemptorDryRuns(b *testing.B) {
	for _, tc := range []struct{ nodes, devices int }{{500, 1}, {500, 8}, {1000, 4}} {
		b.Run(fmt.Sprintf("nodes=%d/devices=%d", tc.nodes, tc.devices), func(b *testing.B) {
			h, pod := fullCluster(b, tc.nodes, int64(tc.devices))
			candidates := min(tc.nodes, max(tc.nodes/10, 100))
			for b.Loop() {
				c, st := h.filter(h.plugins[0], pod)
				if st != nil || len(c.feasible) != 0 {
					b.Fatalf("PreFilter %v, feasible %v; want none", st, c.feasible)
				}
				for _, ni := range h.nodes[:candidates] {
					if victims := c.selectVictims(ni); victims != tc.devices {
						b.Fatalf("node %s: %d victims, want %d", ni.Node().Name, victims, tc.devices)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*candidates), "node-µs")
		})
	}
}

// selectVictims is DefaultPreemption's SelectVictimsOnNode for a node
// whose pods all have lower priority than the preemptor: it returns how
// many pods the preemptor needs evicted there, -1 where it fits not even
// without them.
func (c *cycle) selectVictims(node fwk.NodeInfo) int {
	cs := c.state.Clone()
	ni := node.Snapshot()
	pods := slices.Clone(ni.GetPods())
	for _, pi := range pods {
		if err := ni.RemovePod(klog.FromContext(c.h.ctx), pi.GetPod()); err != nil {
			c.h.t.Fatal(err)
		}
		c.pl.RemovePod(c.h.ctx, cs, c.pod, pi, ni)
	}
	if !c.pl.Filter(c.h.ctx, cs, c.pod, ni).IsSuccess() {
		return -1
	}
	victims := 0
	for _, pi := range pods {
		ni.AddPodInfo(pi)
		c.pl.AddPod(c.h.ctx, cs, c.pod, pi, ni)
		if !c.pl.Filter(c.h.ctx, cs, c.pod, ni).IsSuccess() {
			if err := ni.RemovePod(klog.FromContext(c.h.ctx), pi.GetPod()); err != nil {
				c.h.t.Fatal(err)
			}
			c.pl.RemovePod(c.h.ctx, cs, c.pod, pi, ni)
			victims++
		}
	}
	return victims
}

// fullCluster is a harness of nodes with 8 devices each, every device held
// by a low-priority pod of its own through a claim of its own, and a
// high-priority preemptor asking for devices; its logs are discarded.
func fullCluster(b *testing.B, nodes int, devices int64) (*harness, *v1.Pod) {
	var nodeObjs []*v1.Node
	objs := []runtime.Object{objects.DeviceClass(testDriver, testDriver)}
	for n := range nodes {
		name := fmt.Sprintf("node-%04d", n)
		nodeObjs = append(nodeObjs, objects.MakeNode(name).Obj())
		slice := objects.MakeSlice(name, testDriver, name)
		for d := range 8 {
			device := fmt.Sprintf("dev-%d", d)
			slice.Device(device, nil)
			pod := boundPod(fmt.Sprintf("low-%04d-%d", n, d), name, lowPriority, fmt.Sprintf("held-%04d-%d", n, d))
			objs = append(objs, pod, heldClaim(fmt.Sprintf("held-%04d-%d", n, d), name, []string{device}, consumer(pod)))
		}
		objs = append(objs, slice.Obj())
	}
	pod, claim := preemptor(devices)
	objs = append(objs, claim, pod)
	h := newHarness(b, nil, []string{"default"}, nodeObjs, objs...)
	h.ctx = klog.NewContext(h.ctx, logr.Discard())
	return h, pod
}
