// Package kubectldra is the kubectl plugin "kubectl dra" (binary
// kubectl-dra): `explain pod` tells why a pod with ResourceClaims is
// pending and where it could run, `usage` how a cluster's DRA devices are
// used. Both read a live cluster (kubeconfig or in-cluster, read-only:
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
