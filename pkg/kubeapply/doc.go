// Package kubeapply applies manifests to a cluster the way
// "kubectl apply --server-side" does: any kind the API server serves,
// resolved through discovery, with one field manager, conflicts forced.
// It records the warnings the API server returns (PodSecurity, deprecated
// APIs), so callers can show or assert them.
package kubeapply
