package explain

import (
	v1 "k8s.io/api/core/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/nodecheck"
)

// newNodeCheck returns what a node must pass before its devices are asked
// about: the pod's own constraints and where its allocated claims are.
func newNodeCheck(pod *v1.Pod, claims []Claim) (*nodecheck.Check, error) {
	// kubectl dra explain does not know the scheduler's feature gates:
	// those of 1.37 by default.
	nc := nodecheck.New(pod, nodecheck.Features{})
	for _, c := range claims {
		if c.State != ClaimAllocated {
			continue
		}
		if err := nc.AddAllocation(c.obj.Namespace+"/"+c.obj.Name, c.obj.Status.Allocation); err != nil {
			return nil, err
		}
	}
	return nc, nil
}
