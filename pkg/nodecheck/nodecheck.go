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

package nodecheck

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// Reasons a node fails, in kube-scheduler's words where it has them. A
// taint's reason names the taint, where kube-scheduler says "node(s) had
// untolerated taint(s)" (see Check.Reject).
const (
	ReasonNodeName      = "node(s) didn't match the requested node name"
	ReasonAffinity      = "node(s) didn't match Pod's node affinity/selector"
	ReasonUnschedulable = "node(s) were unschedulable"
	ReasonClaimNode     = "node(s) not among those an allocated claim's devices are available on"
)

// Features are the kube-scheduler feature gates the checks follow.
type Features struct {
	// TolerationComparisonOperators is TaintTolerationComparisonOperators
	// (alpha in 1.37): tolerations may compare taint values (Gt, Lt).
	TolerationComparisonOperators bool
}

// Check is what a node must pass to take a pod, devices aside.
type Check struct {
	features Features
	pod      *v1.Pod
	affinity nodeaffinity.RequiredNodeAffinity
	// allocatedOn are the node selectors of the pod's allocated claims.
	allocatedOn []*nodeaffinity.NodeSelector
}

// New returns the check for pod under the features' gates;
// AddAllocation adds its allocated claims.
func New(pod *v1.Pod, features Features) *Check {
	return &Check{features: features, pod: pod, affinity: nodeaffinity.GetRequiredNodeAffinity(pod)}
}

// AddAllocation restricts the pod to the nodes where the allocation of its
// claim (namespace/name, for the message) is available. A nil allocation
// or one usable on every node restricts nothing; a node selector that does
// not parse is an error naming the claim.
func (c *Check) AddAllocation(claim string, a *resourceapi.AllocationResult) error {
	if a == nil || a.NodeSelector == nil {
		return nil
	}
	ns, err := nodeaffinity.NewNodeSelector(a.NodeSelector)
	if err != nil {
		return fmt.Errorf("claim %s: node selector of the allocation: %w", claim, err)
	}
	c.allocatedOn = append(c.allocatedOn, ns)
	return nil
}

// Pod is the pod the check is for.
func (c *Check) Pod() *v1.Pod { return c.pod }

// Reject returns why node cannot take the pod whatever its devices, or ""
// when it can.
func (c *Check) Reject(node *v1.Node) string {
	if c.pod.Spec.NodeName != "" && c.pod.Spec.NodeName != node.Name {
		return ReasonNodeName
	}
	if ok, _ := c.affinity.Match(node); !ok {
		return ReasonAffinity
	}
	if node.Spec.Unschedulable && !c.tolerates(&v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}) {
		return ReasonUnschedulable
	}
	taint, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, c.pod.Spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}, c.features.TolerationComparisonOperators)
	if untolerated {
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value)
	}
	for _, ns := range c.allocatedOn {
		if !ns.Match(node) {
			return ReasonClaimNode
		}
	}
	return ""
}

// Eligible returns the nodes that can take the pod, in the given order.
func (c *Check) Eligible(nodes []*v1.Node) []*v1.Node {
	out := make([]*v1.Node, 0, len(nodes))
	for _, n := range nodes {
		if c.Reject(n) == "" {
			out = append(out, n)
		}
	}
	return out
}

func (c *Check) tolerates(taint *v1.Taint) bool {
	return v1helper.TolerationsTolerateTaint(klog.Background(), c.pod.Spec.Tolerations, taint, c.features.TolerationComparisonOperators)
}
