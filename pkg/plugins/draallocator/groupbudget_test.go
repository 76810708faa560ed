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
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

func TestAPodGroupCycleHasOneBudgetForAllItsPlans(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		groupPlan, filter     time.Duration
		wantBudget            time.Duration
		wantDeadline, noGroup bool
	}{
		{name: "groupPlanTimeout sets the budget", groupPlan: time.Minute, filter: time.Second, wantBudget: time.Minute, wantDeadline: true},
		{name: "without groupPlanTimeout, filterTimeout does", filter: time.Second, wantBudget: time.Second, wantDeadline: true},
		{name: "with neither, no limit", wantBudget: 0},
		{name: "outside a pod-group cycle, no limit", groupPlan: time.Minute, noGroup: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &DRAAllocator{args: &config.DRAAllocatorArgs{GroupPlanTimeout: metav1.Duration{Duration: tc.groupPlan}, FilterTimeout: metav1.Duration{Duration: tc.filter}}}
			pl.gates.EnableDRASchedulerFilterTimeout = true
			var gcs *framework.CycleState
			if !tc.noGroup {
				gcs = framework.NewCycleState()
			}
			var first time.Time
			for i := range 2 {
				var ctx context.Context
				var cancel context.CancelFunc
				var budget time.Duration
				if gcs == nil {
					ctx, cancel, budget = pl.groupPlanContext(context.Background(), nil)
				} else {
					ctx, cancel, budget = pl.groupPlanContext(context.Background(), gcs)
				}
				defer cancel()
				deadline, ok := ctx.Deadline()
				if ok != tc.wantDeadline || budget != tc.wantBudget {
					t.Fatalf("plan %d: deadline %v (set %v), budget %v; want a deadline %v, budget %v", i, deadline, ok, budget, tc.wantDeadline, tc.wantBudget)
				}
				if i == 0 {
					first = deadline
					time.Sleep(2 * time.Millisecond)
				} else if !deadline.Equal(first) {
					t.Errorf("the second plan's deadline %v is not the first's %v: each plan got a budget of its own", deadline, first)
				}
			}
		})
	}
}

func TestAGangWhosePlanRunsOutOfTimeSaysSoAndReservesNothing(t *testing.T) {
	withPodGroups(t, false)
	names := []string{"node-1", "node-2", "node-3", "node-4"}
	var nodes []*v1.Node
	for _, n := range names {
		nodes = append(nodes, objects.MakeNode(n).Obj())
	}
	objs := append(partitionedGPUs(names, 2), gangOf(8, 8)...)
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	// A budget no plan can keep: the deadline has passed at the first
	// allocator call.
	h.plugins[0].args.GroupPlanTimeout = metav1.Duration{Duration: time.Nanosecond}
	var pods []*v1.Pod
	for i := range 8 {
		pods = append(pods, gangPod(fmt.Sprintf("pod-%d", i)))
	}
	_, devices, failures := runGangCycle(t, h, pods)
	if len(devices) != 0 {
		t.Errorf("devices reserved %v, want none", devices)
	}
	want := "pod group test/gang: planning its devices took longer than the 1ns allowed (groupPlanTimeout) in this attempt; it is tried again later"
	for _, p := range pods {
		if failures[p.Name] != want {
			t.Errorf("%s: %q, want %q", p.Name, failures[p.Name], want)
		}
	}
}

// TestAPathologicalGangHoldsTheLoopNoLongerThanItsBudget: 21 pods of one
// GPU each, every claim of a selector of its own (no two pods are twins,
// so no plan is memoized for another), on 10 nodes of 2 GPUs: the gang
// cannot fit, and the search for a plan, within its budget of allocator
// calls, ran for more than 10 minutes before it had a time budget too.
func TestAPathologicalGangHoldsTheLoopNoLongerThanItsBudget(t *testing.T) {
	withPodGroups(t, false)
	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("node-%02d", i))
	}
	nodes, objs := gpuNodes(names, 2)
	const size = 21
	objs = append(objs, gangGroup(size))
	var pods []*v1.Pod
	for i := range size {
		name := fmt.Sprintf("pod-%d", i)
		selector := fmt.Sprintf(`device.driver == %q && %d >= 0`, testDriver, i)
		objs = append(objs, objects.Claim(name+"-gpu", testNamespace, objects.ClaimSpec("gpu", testDriver, 1, selector)), gangPod(name))
		pods = append(pods, gangPod(name))
	}
	h := newHarness(t, nil, []string{"default"}, nodes, objs...)
	const budget = 300 * time.Millisecond
	h.plugins[0].args.GroupPlanTimeout = metav1.Duration{Duration: budget}
	start := time.Now()
	_, devices, failures := runGangCycle(t, h, pods[:1])
	took := time.Since(start)
	want := "pod group test/gang: planning its devices took longer than the 300ms allowed (groupPlanTimeout) in this attempt; it is tried again later"
	if failures["pod-0"] != want || len(devices) != 0 {
		t.Errorf("pod-0: %q, devices %v; want %q and none", failures["pod-0"], devices, want)
	}
	// Generous: the bound is the budget plus one allocator call.
	if took > 10*budget {
		t.Errorf("the pod-group cycle's first pod took %v, more than ten times its budget of %v", took, budget)
	}
	t.Logf("the first pod's cycle ended after %v (budget %v)", took, budget)
}
