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
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// The statuses the plugin answers with, each logged at verbosity 5 with
// the place that gave it. Which one a rejection gets matters to
// DefaultPreemption: it dry-runs only nodes whose status is Unschedulable
// and lets a nominated pod preempt again when its node's status is
// UnschedulableAndUnresolvable (docs/design/preemption.md).

// statusUnresolvable is UnschedulableAndUnresolvable: evicting pods from
// the node would not help.
func statusUnresolvable(logger klog.Logger, reason string, kv ...any) *fwk.Status {
	if loggerV := logger.V(5); loggerV.Enabled() {
		helper, loggerV := loggerV.WithCallStackHelper()
		helper()
		loggerV.Info("pod unschedulable", append(kv, "reason", reason)...)
	}
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, reason)
}

// statusResolvable is Unschedulable: the pod may fit once lower-priority
// pods leave the node, which DefaultPreemption then dry-runs.
func statusResolvable(logger klog.Logger, reason string, kv ...any) *fwk.Status {
	if loggerV := logger.V(5); loggerV.Enabled() {
		helper, loggerV := loggerV.WithCallStackHelper()
		helper()
		loggerV.Info("pod unschedulable unless lower-priority pods leave the node", append(kv, "reason", reason)...)
	}
	return fwk.NewStatus(fwk.Unschedulable, reason)
}

// nodeUnresolvable is statusUnresolvable for the pod on a node, Filter's
// answer on most nodes: the log's values are made only when it logs.
func nodeUnresolvable(logger klog.Logger, reason string, pod *v1.Pod, node *v1.Node) *fwk.Status {
	if loggerV := logger.V(5); loggerV.Enabled() {
		helper, loggerV := loggerV.WithCallStackHelper()
		helper()
		loggerV.Info("pod unschedulable", "pod", klog.KObj(pod), "node", klog.KObj(node), "reason", reason)
	}
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, reason)
}

// nodeResolvable is statusResolvable for the pod on a node, with the
// log's values made only when it logs.
func nodeResolvable(logger klog.Logger, reason string, pod *v1.Pod, node *v1.Node) *fwk.Status {
	if loggerV := logger.V(5); loggerV.Enabled() {
		helper, loggerV := loggerV.WithCallStackHelper()
		helper()
		loggerV.Info("pod unschedulable unless lower-priority pods leave the node", "pod", klog.KObj(pod), "node", klog.KObj(node), "reason", reason)
	}
	return fwk.NewStatus(fwk.Unschedulable, reason)
}

// statusError logs where the error came from and returns it as a status.
func statusError(logger klog.Logger, err error, kv ...any) *fwk.Status {
	if loggerV := logger.V(5); loggerV.Enabled() {
		helper, loggerV := loggerV.WithCallStackHelper()
		helper()
		loggerV.Error(err, "DRAAllocator failed", kv...)
	}
	return fwk.AsStatus(err)
}

// rejectedBy reports whether plugin gave the status.
func rejectedBy(st *fwk.Status, plugin string) bool { return st != nil && st.Plugin() == plugin }
