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

// Package nodecheck decides whether a node can take a pod whatever the
// node's devices: the checks a node must pass before the allocator is
// asked about it. They are kube-scheduler's own filters that a device
// plan must respect (NodeName, NodeAffinity, NodeUnschedulable,
// TaintToleration): spec.nodeName, required node affinity and
// nodeSelector, cordoned nodes, untolerated NoSchedule and NoExecute
// taints; and the node selectors of the pod's claims that are already
// allocated (their devices are only available there). Not seen: a
// profile's NodeAffinity addedAffinity, which only kube-scheduler's
// plugin knows; a plan that uses such a node loses it in Filter, as it
// loses nodes other plugins reject.
//
// Design: a Check is built once per pod and asked per node; an allocated
// claim's node selector is parsed when added, so a malformed one is an
// error naming the claim (a pod's own affinity that does not parse
// rejects every node, as kube-scheduler's NodeAffinity does). Invariant: Reject is a pure function of the pod, the
// allocations added and the node; callers (the plugin's gang plan,
// kubectl dra explain) share it so that a plan and an explanation never
// disagree on which nodes a pod may use.
package nodecheck
