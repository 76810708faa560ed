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

// Package controlplane runs a real, single-process Kubernetes control plane
// for dra-scheduler's integration tests, benchmark tool and demo: embedded
// etcd, kube-apiserver, the resourceclaim and namespace controllers of
// kube-controller-manager (and, with Options.GarbageCollector, its garbage
// collector, which deletes the claims generated for deleted pods), and
// dra-scheduler itself started from a KubeSchedulerConfiguration file
// exactly as the binary starts.
//
// Everything listens on 127.0.0.1 on ports picked at start-up and keeps its
// state in a temporary directory, so several control planes can run one
// after another (or side by side) in one process. Stop shuts the components
// down in reverse order and removes the directory.
//
// Invariants:
//   - Start either returns a running control plane or stops whatever it had
//     started before returning the error.
//   - The admin kubeconfig written to disk carries the apiserver's CA, TLS
//     server name and loopback token, so any client (kubectl included) can
//     use it while the control plane runs.
//   - Nodes are not tainted not-ready on creation (TaintNodesByCondition
//     admission is off) and pods need no ServiceAccount object (there is no
//     token controller): tests create Nodes and Pods directly.
package controlplane
