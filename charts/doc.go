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

// Package charts holds dra-scheduler's Helm chart, dra-scheduler/, and
// embeds it, so that tests load exactly the files `helm package` ships.
//
// The chart's reference is manifests/install, built by kustomize
// (manifests.Build): this package's tests render the chart with Helm's Go
// SDK and check that
//   - the default values render the objects kustomize builds from
//     manifests/install, object by object, the config-sha256 annotation
//     included; inTree.enabled renders manifests/overlays/in-tree and
//     monitoring.enabled the install with the manifests/monitoring
//     component;
//   - every on/off combination of the optional parts renders objects that
//     decode strictly into their API types, with a configuration
//     kube-scheduler and the DRAAllocator plugin accept;
//   - values.schema.json refuses a misspelt or mistyped value, naming it.
//
// Go files live here, outside dra-scheduler/, so the packaged chart holds
// none of them.
package charts
