//go:build !windows

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
	"syscall"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestTheConsistencyCheckFindsNothingInARealCluster schedules DRA pods
// through a real API server, with a slice republished and a pod deleted on
// the way, then sends the process SIGUSR2: the plugin's
// consistency check (and kube-scheduler's own comparer) run, and the
// plugin's state agrees with the API's objects. The metrics are
// process-wide, so they are compared before and after.
func TestTheConsistencyCheckFindsNothingInARealCluster(t *testing.T) {
	e := startCluster(t, draConfig)
	const driver = "consistency.example.com"
	for _, n := range []string{"node-1", "node-2", "node-3"} {
		e.create(objects.MakeNode(n).Obj(),
			objects.MakeSlice("consistency-"+n, driver, n).Device("d0", nil).Device("d1", nil).Obj())
	}
	e.create(objects.DeviceClass("consistency", driver), objects.ClaimTemplate("one", e.ns, "dev", "consistency", 1))
	schedule := func(name string) {
		e.create(objects.MakePod(name, e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("dev", "one").Obj())
		e.waitScheduled(name)
	}
	for i := range 4 {
		schedule(fmt.Sprintf("c-%d", i))
	}
	// A slice republished with a third device, a pod and its claim gone;
	// the next pod's PreFilter applies the slice.
	slice, err := e.client.ResourceV1().ResourceSlices().Get(e.ctx, "consistency-node-3", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slice.Spec.Devices = append(slice.Spec.Devices, resourceapi.Device{Name: "d2"})
	if _, err := e.client.ResourceV1().ResourceSlices().Update(e.ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	gone := e.generatedClaim("c-0", "dev")
	e.deletePods([]string{"c-0"})
	e.waitFor("claim "+gone.Name+" to be released", func() (bool, string) {
		claim, err := e.client.ResourceV1().ResourceClaims(e.ns).Get(e.ctx, gone.Name, metav1.GetOptions{})
		if err != nil {
			return true, err.Error()
		}
		return len(claim.Status.ReservedFor) == 0, fmt.Sprintf("reserved for %v", claim.Status.ReservedFor)
	})
	schedule("c-4")

	const checks = "dra_scheduler_consistency_check_duration_seconds"
	before := gatherDRAMetrics(t)
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	e.waitFor("a consistency check", func() (bool, string) {
		n := gatherDRAMetrics(t)[checks]
		return n > before[checks], fmt.Sprintf("%v checks", n)
	})
	after := gatherDRAMetrics(t)
	for key, v := range after {
		if strings.HasPrefix(key, "dra_scheduler_cache_differences_total{") && v != before[key] {
			t.Errorf("%s grew by %v, want 0: the scheduler's log (DRA_TEST_LOG) names the differences", key, v-before[key])
		}
	}
	if n := after["dra_scheduler_consistency_check_differences"]; n != 0 {
		t.Errorf("dra_scheduler_consistency_check_differences = %v, want 0", n)
	}
}
