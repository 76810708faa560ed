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
	"sync"
	"time"

	fwk "k8s.io/kube-scheduler/framework"
)

// Group planning bounded in time (issue 56). kube-scheduler's scheduling
// loop is serial, and a pod group's joint device plan (allocator.PlanGang)
// runs in PreFilter, whose context has no deadline: its budget of
// allocator calls bounds the work, not the time, and a group tried in many
// placements plans once per placement. So a pod-group cycle has one time
// budget for all its plans (groupPlanTimeout, or filterTimeout): the first
// plan starts it, every plan gets what is left as its context's deadline,
// and a plan that runs out fails the group with a message saying so; the
// next attempt gets a new budget, and other pods go on meanwhile.

// groupBudgetKey is where a pod-group cycle keeps its planning budget.
const groupBudgetKey fwk.StateKey = Name + "/group-plan-budget"

// groupBudget is a pod-group cycle's planning deadline, set by its first
// plan.
type groupBudget struct {
	once     sync.Once
	deadline time.Time
}

// Clone returns the same budget: the cycle's placements share it.
func (b *groupBudget) Clone() fwk.StateData { return b }

// groupPlanTimeout is the time a pod-group cycle may plan for; zero: no
// limit.
func (pl *DRAAllocator) groupPlanTimeout() time.Duration {
	if d := pl.args.GroupPlanTimeout.Duration; d > 0 {
		return d
	}
	return pl.filterTimeout()
}

// groupPlanContext returns ctx bounded by what is left of the pod-group
// cycle's budget (started now if this is its first plan), and the budget
// as a whole; without a limit, or outside a pod-group cycle, ctx itself
// and zero. cancel releases the context's timer.
func (pl *DRAAllocator) groupPlanContext(ctx context.Context, gcs fwk.PodGroupCycleState) (_ context.Context, cancel context.CancelFunc, budget time.Duration) {
	budget = pl.groupPlanTimeout()
	if budget <= 0 || gcs == nil {
		return ctx, func() {}, 0
	}
	b, err := stateAs[*groupBudget](gcs.Read(groupBudgetKey))
	if err != nil {
		// The cycle's synchronous phases write it: no race.
		b = &groupBudget{}
		gcs.Write(groupBudgetKey, b)
	}
	b.once.Do(func() { b.deadline = time.Now().Add(budget) })
	ctx, cancel = context.WithDeadline(ctx, b.deadline)
	return ctx, cancel, budget
}
