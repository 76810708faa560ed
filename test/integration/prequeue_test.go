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
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestTemplateBurst: 200 pods whose claims come from one template, created
// at once for 200 devices, are all scheduled, each device allocated once —
// with the SchedulerPreQueueingHints gate off (every claim event asks about
// every waiting pod) and on (the plugin narrows each claim event to the
// pods it concerns, and the queue says so in its metric).
func TestTemplateBurst(t *testing.T) {
	const (
		driver = "burst.example.com"
		nodes  = 20
		pods   = 200
	)
	for _, gate := range []bool{false, true} {
		t.Run(fmt.Sprintf("SchedulerPreQueueingHints=%v", gate), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SchedulerPreQueueingHints, gate)
			e := startCluster(t, draConfig)
			e.create(objects.DeviceClass(driver, driver), objects.ClaimTemplate("gpu", e.ns, "dev", driver, 1))
			for n := range nodes {
				node := fmt.Sprintf("node-%d", n)
				slice := objects.MakeSlice(node, driver, node)
				for d := range pods / nodes {
					slice.Device(fmt.Sprintf("dev-%d", d), nil)
				}
				e.create(objects.MakeNode(node).Obj(), slice.Obj())
			}
			before := gatherMetrics(t, "scheduler_pre_queueing_hint_evaluations_total")
			for i := range pods {
				e.create(objects.MakePod(fmt.Sprintf("burst-%d", i), e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "gpu").Obj())
			}
			e.waitFor("every pod bound", func() (bool, string) {
				bound, pending := e.burstPods()
				return len(pending) == 0, fmt.Sprintf("%d bound, %d pending", len(bound), len(pending))
			})
			held := e.allocatedDevices()
			for device, claims := range held {
				if len(claims) > 1 {
					t.Errorf("device %s allocated to %d claims: %v", device, len(claims), claims)
				}
			}
			if len(held) != pods {
				t.Errorf("%d devices allocated, want %d", len(held), pods)
			}
			narrowed := sumDelta(before, gatherMetrics(t, "scheduler_pre_queueing_hint_evaluations_total"),
				"scheduler_pre_queueing_hint_evaluations_total", "plugin=DRAAllocator")
			if gate && narrowed == 0 {
				t.Error("the queue never asked DRAAllocator's pre-queueing hint")
			}
			if !gate && narrowed != 0 {
				t.Errorf("without the gate the queue asked DRAAllocator's pre-queueing hint %v times", narrowed)
			}
		})
	}
}
