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
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// loopBoundConfig is podGroupConfig with a pod-group cycle's planning
// budget of one second.
const loopBoundConfig = podGroupConfig + `  pluginConfig:
  - name: DRAAllocator
    args: {groupPlanTimeout: 1s}
`

// TestAPathologicalGangHoldsTheLoopNoLongerThanItsBudget: kube-scheduler's
// loop is serial, so a gang whose joint device plan is expensive must not
// hold it. 21 pods of one GPU each, every claim with a selector of its own
// (no two pods are twins, so no plan is reused for another), on 10 nodes
// of 2 GPUs: the gang cannot fit, and the search for a plan, within its
// budget of allocator calls, used to run for more than ten minutes. With
// groupPlanTimeout 1s, a cheap pod created right behind the gang is bound
// within one budget and some slack, the gang's pods fail with the message
// saying so, and nothing is allocated. (TestExpensiveSelector is the
// same check for a selector of the highest cost the API server accepts.)
func TestAPathologicalGangHoldsTheLoopNoLongerThanItsBudget(t *testing.T) {
	e := startPodGroupCluster(t, loopBoundConfig)
	const (
		driver, cheap = "pathological.example.com", "cheap.example.com"
		size          = 21
		// One pod-group cycle may hold the loop for its budget (1s), plus
		// one allocator call; the cheap pod waits for at most one such
		// cycle, with slack for a loaded machine.
		cheapBound = 15 * time.Second
	)
	e.create(objects.DeviceClass(driver, driver), objects.DeviceClass(cheap, cheap))
	for i := range 10 {
		e.create(gpuNode(fmt.Sprintf("node-%02d", i), driver, 2)...)
	}
	e.create(objects.MakeNode("cheap-node").Obj(), objects.MakeSlice("cheap-node", cheap, "cheap-node").Device("dev-0", nil).Obj())

	e.createGang("gang", size)
	var pods []string
	for i := range size {
		name := fmt.Sprintf("gang-%d", i)
		selector := fmt.Sprintf(`device.driver == %q && %d >= 0`, driver, i)
		e.create(objects.Claim(name+"-gpu", e.ns, objects.ClaimSpec("gpu", driver, 1, selector)))
		pod := objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).Claim("gpu", name+"-gpu").Obj()
		pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To("gang")}
		e.create(pod)
		pods = append(pods, name)
	}
	// Right behind the gang in the queue.
	start := time.Now()
	e.create(objects.Claim("cheap", e.ns, objects.ClaimSpec("dev", cheap, 1)),
		objects.MakePod("cheap", e.ns).Scheduler(schedulerapp.Name).Claim("dev", "cheap").Obj())
	if pod := e.waitScheduled("cheap"); pod.Spec.NodeName != "cheap-node" {
		t.Errorf("the cheap pod is on %s, want cheap-node", pod.Spec.NodeName)
	}
	took := time.Since(start)
	t.Logf("the cheap pod was bound %v after its creation (bound asserted: %v)", took.Round(time.Millisecond), cheapBound)
	if took > cheapBound {
		t.Errorf("the cheap pod took %v to bind beside the pathological gang, want at most %v", took.Round(time.Millisecond), cheapBound)
	}

	const outOfTime = "planning its devices took longer than the 1s allowed (groupPlanTimeout)"
	e.waitFor("a gang pod to fail for its planning budget", func() (bool, string) {
		for _, name := range pods {
			if msg := scheduledMessage(e.pod(name)); strings.Contains(msg, outOfTime) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%s: %q", pods[0], scheduledMessage(e.pod(pods[0])))
	})
	for _, name := range pods {
		if pod := e.pod(name); pod.Spec.NodeName != "" {
			t.Errorf("gang pod %s was bound to %s; the gang cannot fit", name, pod.Spec.NodeName)
		}
	}
	e.checkNoDeviceTwice()
}
