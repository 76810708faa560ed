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

// Package kubeapply applies manifests to a cluster the way
// "kubectl apply --server-side" does: any kind the API server serves,
// resolved through discovery, with one field manager, conflicts forced.
// It records the warnings the API server returns (PodSecurity, deprecated
// APIs), so callers can show or assert them. It deletes them as "kubectl
// delete -f" does, too.
package kubeapply
