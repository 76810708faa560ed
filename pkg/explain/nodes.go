package explain

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// Reasons a node fails before its devices are looked at, in kube-scheduler's
// words where it has them.
const (
	reasonNodeName      = "node(s) didn't match the requested node name"
	reasonAffinity      = "node(s) didn't match Pod's node affinity/selector"
	reasonUnschedulable = "node(s) were unschedulable"
	reasonClaimNode     = "node(s) not among those an allocated claim's devices are available on"
)

// nodeCheck is what a node must pass before its devices are asked about.
type nodeCheck struct {
	pod      *v1.Pod
	affinity nodeaffinity.RequiredNodeAffinity
	// allocatedOn are the node selectors of the pod's allocated claims.
	allocatedOn []*nodeaffinity.NodeSelector
}

func newNodeCheck(pod *v1.Pod, claims []Claim) (*nodeCheck, error) {
	nc := &nodeCheck{pod: pod, affinity: nodeaffinity.GetRequiredNodeAffinity(pod)}
	for _, c := range claims {
		if c.State != ClaimAllocated || c.obj.Status.Allocation.NodeSelector == nil {
			continue
		}
		ns, err := nodeaffinity.NewNodeSelector(c.obj.Status.Allocation.NodeSelector)
		if err != nil {
			return nil, fmt.Errorf("claim %s: node selector of the allocation: %w", c.Name, err)
		}
		nc.allocatedOn = append(nc.allocatedOn, ns)
	}
	return nc, nil
}

// reject returns why node cannot take the pod whatever its devices, or "".
func (nc *nodeCheck) reject(node *v1.Node) string {
	if nc.pod.Spec.NodeName != "" && nc.pod.Spec.NodeName != node.Name {
		return reasonNodeName
	}
	if ok, _ := nc.affinity.Match(node); !ok {
		return reasonAffinity
	}
	if node.Spec.Unschedulable && !tolerates(nc.pod, &v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}) {
		return reasonUnschedulable
	}
	taint, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, nc.pod.Spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}, true)
	if untolerated {
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value)
	}
	for _, ns := range nc.allocatedOn {
		if !ns.Match(node) {
			return reasonClaimNode
		}
	}
	return ""
}

func tolerates(pod *v1.Pod, taint *v1.Taint) bool {
	return v1helper.TolerationsTolerateTaint(klog.Background(), pod.Spec.Tolerations, taint, true)
}
