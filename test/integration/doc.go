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
package integration
