// Package nodecheck decides whether a node can take a pod whatever the
// node's devices: the checks a node must pass before the allocator is
// asked about it. They are kube-scheduler's own filters that a device
// plan must respect, in kube-scheduler's words: spec.nodeName, required
// node affinity and nodeSelector, cordoned nodes, untolerated NoSchedule
// and NoExecute taints, and the node selectors of the pod's claims that
// are already allocated (their devices are only available there).
//
// Design: a Check is built once per pod and asked per node; building it
// parses the selectors, so a malformed one is an error when added, never a
// silent rejection. Invariant: Reject is a pure function of the pod, the
// allocations added and the node; callers (the plugin's gang plan,
// kubectl dra explain) share it so that a plan and an explanation never
// disagree on which nodes a pod may use.
package nodecheck
