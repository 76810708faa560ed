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

// Package kubectldra is the kubectl plugin "kubectl dra" (binary
// kubectl-dra): `explain pod` tells why a pod with ResourceClaims is
// pending and where it could run, `fit` how many more copies of a pod fit
// now (pkg/simulate), `usage` how a cluster's DRA devices are used. Both read a live cluster (kubeconfig or in-cluster, read-only:
// list and get, as the ClusterRole dra-scheduler:explain of
// manifests/install grants) or, with --from, files of `kubectl get ... -o
// yaml` output, and answer with the scheduler's own allocator, device
// selection policy, scoring strategy and feature gates (pkg/explain,
// pkg/deviceusage). `version` (or --version) prints the plugin's version,
// git commit and embedded Kubernetes release (pkg/version).
//
// NewCommand builds the command tree with its output streams, so that
// tests run exactly what users run.
package kubectldra
