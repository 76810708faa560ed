// Package manifests holds what a cluster admin applies to run dra-scheduler
// as a secondary scheduler (namespace.yaml, rbac.yaml, configmap.yaml,
// deployment.yaml, admission.yaml, listed in kustomization.yaml) and
// examples/ (DeviceClasses, claim templates, a shared claim, pods), and
// embeds them so that tests and the demo use exactly the files shipped.
//
// Invariants, checked by this package's tests and test/integration:
//   - kustomization.yaml lists every manifest file of its directory, in
//     the order they can be applied;
//   - the ConfigMap's profile equals config/dra-scheduler.yaml's;
//   - the Deployment mounts that ConfigMap where its --config points, and
//     the Lease it elects on is the one rbac.yaml grants.
package manifests
