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

// Package integration tests dra-scheduler against a real kube-apiserver and
// etcd started in this process (pkg/controlplane), with the scheduler run
// from a KubeSchedulerConfiguration file the way the binary runs it.
//
// Every test gets its own control plane, so cluster-scoped objects (nodes,
// slices, classes) never leak between tests. All tests live in this one
// package on purpose: each package that links kube-apiserver costs minutes
// and gigabytes to link.
//
// Set DRA_TEST_LOG=/some/file to keep the components' logs; by default they
// are discarded and only test output is shown.
//
// The chaos scenarios (chaos_*_test.go) build only with the tag chaos:
// make test-chaos runs them, make test does not (docs/development.md).
package integration
