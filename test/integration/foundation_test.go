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
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const (
	exampleDriver = "gpu.example.com"
	// atLeast80Gi selects example-driver GPUs with 80Gi or more.
	atLeast80Gi = `device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0`
)

// exampleGPUCluster creates three nodes whose only GPU has 40Gi, 80Gi and
// 48Gi; only node-b can satisfy atLeast80Gi.
func exampleGPUCluster(e *env) {
	e.create(objects.DeviceClass("gpu.example.com", exampleDriver))
	for _, n := range []struct{ node, memory string }{{"node-a", "40Gi"}, {"node-b", "80Gi"}, {"node-c", "48Gi"}} {
		e.create(
			objects.MakeNode(n.node).Obj(),
			objects.MakeSlice(n.node+"-gpus", exampleDriver, n.node).Device("gpu-0", map[string]string{"memory": n.memory}).Obj(),
		)
	}
}

// TestFoundation runs the same cases against both allocators: the in-tree
// DynamicResources plugin and ours. Only the wording of the failure reason
// differs.
func TestFoundation(t *testing.T) {
	for _, profile := range []struct {
		name, config string
		// unsatisfiable is what the FailedScheduling event of a pod whose
		// claim no device satisfies must say; tooBig, of a pod asking for
		// more devices than any node has.
		unsatisfiable, tooBig string
	}{
		{"in-tree DynamicResources", inTreeConfig, "cannot allocate all claims", "0/3 nodes are available: 3 cannot allocate all claims"},
		{"DRAAllocator", draConfig, `3 no device matches request "gpu" (class gpu.example.com, selector device.capacity`,
			`0/3 nodes are available: 3 request "gpu" needs 2 matching devices, more than the node has, allocated or free (class gpu.example.com)`},
	} {
		t.Run(profile.name, func(t *testing.T) { testFoundation(t, profile.config, profile.unsatisfiable, profile.tooBig) })
	}
}

func testFoundation(t *testing.T, config, unsatisfiable, tooBig string) {
	e := startCluster(t, config)
	exampleGPUCluster(e)
	e.create(objects.ClaimTemplate("big-gpu", e.ns, "gpu", "gpu.example.com", 1, atLeast80Gi))
	e.create(objects.ClaimTemplate("huge-gpu", e.ns, "gpu", "gpu.example.com", 1,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("200Gi")) >= 0`))

	t.Run("a pod whose claim needs an 80Gi GPU lands on the only node with one and its claim names that device", func(t *testing.T) {
		e.t = t
		e.create(objects.MakePod("trainer", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "big-gpu").Obj())
		pod := e.waitScheduled("trainer")
		if pod.Spec.NodeName != "node-b" {
			t.Fatalf("pod landed on %q, want node-b (the only node with an 80Gi GPU)", pod.Spec.NodeName)
		}
		claim := e.generatedClaim("trainer", "gpu")
		alloc := claim.Status.Allocation
		if alloc == nil {
			t.Fatalf("claim %s is not allocated: %+v", claim.Name, claim.Status)
		}
		want := resourceapi.DeviceRequestAllocationResult{Request: "gpu", Driver: exampleDriver, Pool: "node-b", Device: "gpu-0"}
		if got := alloc.Devices.Results; len(got) != 1 || got[0].Request != want.Request || got[0].Driver != want.Driver || got[0].Pool != want.Pool || got[0].Device != want.Device {
			t.Errorf("allocation results %+v, want exactly %+v", got, want)
		}
		if !selectsOnly(alloc.NodeSelector, "node-b") {
			t.Errorf("allocation node selector %v does not pin node-b", alloc.NodeSelector)
		}
		if r := claim.Status.ReservedFor; len(r) != 1 || r[0].Resource != "pods" || r[0].Name != "trainer" || r[0].UID != pod.UID {
			t.Errorf("reservedFor %+v, want exactly pod trainer (uid %s)", r, pod.UID)
		}
	})

	t.Run("a pod for another scheduler is never touched by dra-scheduler", func(t *testing.T) {
		e.t = t
		e.create(objects.MakePod("foreign", e.ns).Scheduler("some-other-scheduler").ClaimFromTemplate("gpu", "big-gpu").Obj())
		// A pod of ours created after it is a sync point: once it is
		// scheduled, dra-scheduler has seen the foreign pod too.
		e.create(objects.MakePod("marker", e.ns).Scheduler(schedulerapp.Name).Obj())
		e.waitScheduled("marker")
		claim := e.generatedClaim("foreign", "gpu")
		time.Sleep(2 * time.Second) // give a wrong scheduler every chance to act
		pod := e.pod("foreign")
		if pod.Spec.NodeName != "" {
			t.Errorf("foreign pod was bound to %q", pod.Spec.NodeName)
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == v1.PodScheduled {
				t.Errorf("foreign pod has a PodScheduled condition %+v: someone tried to schedule it", c)
			}
		}
		if ev := e.schedulerEvents("foreign"); len(ev) > 0 {
			t.Errorf("dra-scheduler reported events for the foreign pod: %s", describeEvents(ev))
		}
		claim = e.generatedClaim("foreign", "gpu")
		if claim.Status.Allocation != nil || len(claim.Status.ReservedFor) > 0 {
			t.Errorf("the foreign pod's claim was allocated or reserved: %+v", claim.Status)
		}
	})

	t.Run("a pod asking for more devices than any node has is told so, not that they are taken", func(t *testing.T) {
		e.t = t
		e.create(objects.ClaimTemplate("two-gpus", e.ns, "gpu", "gpu.example.com", 2))
		e.create(objects.MakePod("greedy", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "two-gpus").Obj())
		e.waitForEvent("greedy", "FailedScheduling", tooBig)
	})

	t.Run("a pod whose claim cannot be satisfied stays pending with an event that says why", func(t *testing.T) {
		e.t = t
		e.create(objects.MakePod("dreamer", e.ns).Scheduler(schedulerapp.Name).ClaimFromTemplate("gpu", "huge-gpu").Obj())
		e.waitFor("a FailedScheduling event for pod dreamer", func() (bool, string) {
			for _, ev := range e.schedulerEvents("dreamer") {
				if ev.Reason == "FailedScheduling" && ev.Type == v1.EventTypeWarning {
					return true, ""
				}
			}
			return false, describeEvents(e.schedulerEvents("dreamer"))
		})
		pod := e.pod("dreamer")
		if pod.Spec.NodeName != "" {
			t.Fatalf("pod was bound to %q although no GPU has 200Gi", pod.Spec.NodeName)
		}
		var note string
		for _, ev := range e.schedulerEvents("dreamer") {
			if ev.Reason == "FailedScheduling" {
				note = ev.Note
			}
		}
		// The message must count the nodes and name the DRA reason.
		if !strings.Contains(note, "0/3 nodes are available") || !strings.Contains(note, unsatisfiable) {
			t.Errorf("FailedScheduling event %q does not say that no node could allocate the claim (want %q)", note, unsatisfiable)
		}
		var cond *v1.PodCondition
		for i, c := range pod.Status.Conditions {
			if c.Type == v1.PodScheduled {
				cond = &pod.Status.Conditions[i]
			}
		}
		if cond == nil || cond.Status != v1.ConditionFalse || cond.Reason != v1.PodReasonUnschedulable {
			t.Errorf("PodScheduled condition %+v, want False/Unschedulable", cond)
		}
		claim := e.generatedClaim("dreamer", "gpu")
		if claim.Status.Allocation != nil {
			t.Errorf("unsatisfiable claim got allocated: %+v", claim.Status.Allocation)
		}
	})
}

// selectsOnly reports whether a node selector from an allocation pins
// exactly the named node by its name field or hostname label.
func selectsOnly(sel *v1.NodeSelector, node string) bool {
	if sel == nil || len(sel.NodeSelectorTerms) != 1 {
		return false
	}
	term := sel.NodeSelectorTerms[0]
	reqs := append(append([]v1.NodeSelectorRequirement{}, term.MatchFields...), term.MatchExpressions...)
	if len(reqs) != 1 {
		return false
	}
	r := reqs[0]
	return r.Operator == v1.NodeSelectorOpIn && fmt.Sprint(r.Values) == fmt.Sprint([]string{node})
}
