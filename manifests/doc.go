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

// Package manifests holds what a cluster admin applies to run dra-scheduler
// as a secondary scheduler, and embeds it so that tests and the demo use
// exactly the files shipped:
//   - install/: namespace.yaml, rbac.yaml, configmap.yaml, deployment.yaml,
//     pdb.yaml, admission.yaml, allocation-guard.yaml, listed in its
//     kustomization.yaml (the top kustomization.yaml has install/ as its
//     one resource);
//   - overlays/in-tree/: the A/B switch, the install with the in-tree
//     DynamicResources plugin's profile;
//   - admission/opt-out/, admission/label-guard/: optional components,
//     routing every namespace but those excluded, and letting only admin
//     groups change a namespace's routing label;
//   - monitoring/: the optional monitoring component, and
//     monitoring/podmonitor/, which swaps its ServiceMonitor for a
//     PodMonitor;
//   - examples/: DeviceClasses, claim templates, a shared claim, pods.
//
// Build runs kustomize's own library on the embedded tree, as
// `kubectl apply -k` does; Load reads a directory file by file.
//
// Invariants, checked by this package's tests and test/integration:
//   - every kustomization builds, and lists every manifest file of its
//     directory, in the order they can be applied;
//   - the ConfigMap's profile equals config/dra-scheduler.yaml's, the
//     overlay's config/in-tree.yaml's, and the overlay changes nothing
//     else but the config hash;
//   - the Deployment mounts that ConfigMap where its --config points, its
//     config-sha256 annotation is the configuration's hash, and the Lease
//     it elects on is the one rbac.yaml grants;
//   - the Helm chart charts/dra-scheduler renders, with its default values,
//     exactly what Build(InstallDir) builds (with inTree.enabled the
//     overlay, with monitoring.enabled the monitoring component, and so on
//     for each component): a change here needs the same change there (go
//     test ./charts).
package manifests
