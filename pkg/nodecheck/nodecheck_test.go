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

package nodecheck_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/nodecheck"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

func TestReject(t *testing.T) {
	taint := func(effect v1.TaintEffect) func(*v1.Node) {
		return func(n *v1.Node) {
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "gpu", Value: "reserved", Effect: effect})
		}
	}
	tolerateGPU := func(p *v1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: "gpu", Operator: v1.TolerationOpExists})
	}
	tolerateGreater := func(p *v1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: "gpu", Operator: v1.TolerationOpGt, Value: "5", Effect: v1.TaintEffectNoSchedule})
	}
	numericTaint := func(n *v1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "gpu", Value: "9", Effect: v1.TaintEffectNoSchedule})
	}
	for _, tc := range []struct {
		name        string
		pod         func(*v1.Pod)
		node        func(*v1.Node)
		features    nodecheck.Features
		allocatedOn string
		want        string
	}{
		{name: "a pod without constraints may use any node"},
		{name: "a pod bound by name to another node may not",
			pod: func(p *v1.Pod) { p.Spec.NodeName = "other" }, want: nodecheck.ReasonNodeName},
		{name: "a pod bound by name to this node may",
			pod: func(p *v1.Pod) { p.Spec.NodeName = "node-1" }},
		{name: "a node selector the node's labels miss rejects it",
			pod: func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "b"} }, want: nodecheck.ReasonAffinity},
		{name: "a node selector the node's labels match accepts it",
			pod: func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "a"} }},
		{name: "required node affinity the node misses rejects it",
			pod: func(p *v1.Pod) {
				p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
					NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpNotIn, Values: []string{"a"}}}}}}}}
			}, want: nodecheck.ReasonAffinity},
		{name: "a cordoned node is rejected",
			node: func(n *v1.Node) { n.Spec.Unschedulable = true }, want: nodecheck.ReasonUnschedulable},
		{name: "a cordoned node is accepted by a pod tolerating unschedulable",
			node: func(n *v1.Node) { n.Spec.Unschedulable = true },
			pod: func(p *v1.Pod) {
				p.Spec.Tolerations = []v1.Toleration{{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
			}},
		{name: "an untolerated NoSchedule taint rejects the node and is named",
			node: taint(v1.TaintEffectNoSchedule), want: "node(s) had untolerated taint {gpu: reserved}"},
		{name: "an untolerated NoExecute taint rejects the node",
			node: taint(v1.TaintEffectNoExecute), want: "node(s) had untolerated taint {gpu: reserved}"},
		{name: "a PreferNoSchedule taint does not reject the node",
			node: taint(v1.TaintEffectPreferNoSchedule)},
		{name: "a tolerated taint does not reject the node",
			node: taint(v1.TaintEffectNoSchedule), pod: tolerateGPU},
		{name: "a toleration comparing values tolerates a greater taint with TaintTolerationComparisonOperators",
			node: numericTaint, pod: tolerateGreater, features: nodecheck.Features{TolerationComparisonOperators: true}},
		{name: "a toleration comparing values tolerates nothing without TaintTolerationComparisonOperators",
			node: numericTaint, pod: tolerateGreater, want: "node(s) had untolerated taint {gpu: 9}"},
		{name: "a claim allocated on another node rejects this one",
			allocatedOn: "node-2", want: nodecheck.ReasonClaimNode},
		{name: "a claim allocated on this node accepts it",
			allocatedOn: "node-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := objects.MakePod("pod", "test").Obj()
			if tc.pod != nil {
				tc.pod(pod)
			}
			node := objects.MakeNode("node-1").Label("zone", "a").Obj()
			if tc.node != nil {
				tc.node(node)
			}
			check := nodecheck.New(pod, tc.features)
			// An allocation usable anywhere restricts nothing.
			if err := check.AddAllocation("test/anywhere", &resourceapi.AllocationResult{}); err != nil {
				t.Fatal(err)
			}
			if tc.allocatedOn != "" {
				if err := check.AddAllocation("test/local", &resourceapi.AllocationResult{NodeSelector: objects.NodeSelectorFor(tc.allocatedOn)}); err != nil {
					t.Fatal(err)
				}
			}
			if got := check.Reject(node); got != tc.want {
				t.Errorf("Reject = %q, want %q", got, tc.want)
			}
			eligible := check.Eligible([]*v1.Node{node})
			if (len(eligible) == 1) != (tc.want == "") {
				t.Errorf("Eligible = %d nodes, want the node exactly when Reject gives no reason", len(eligible))
			}
		})
	}
}

func TestAnAllocationWhoseNodeSelectorDoesNotParseIsAnErrorNamingTheClaim(t *testing.T) {
	check := nodecheck.New(objects.MakePod("pod", "test").Obj(), nodecheck.Features{})
	bad := &resourceapi.AllocationResult{NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: "Around", Values: []string{"a"}}},
	}}}}
	err := check.AddAllocation("test/gpu", bad)
	if err == nil || !strings.Contains(err.Error(), "claim test/gpu") {
		t.Fatalf("AddAllocation = %v, want an error naming claim test/gpu", err)
	}
}
