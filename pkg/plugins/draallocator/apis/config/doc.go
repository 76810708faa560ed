// Package config holds the internal (unversioned) configuration types of the
// DRAAllocator scheduler plugin.
//
// Design and invariants:
//
//   - These types are what the plugin works with. They are never read from or
//     written to the wire directly; the versioned types in package v1 are.
//   - Every field is a plain value: an internal DRAAllocatorArgs is complete.
//     Defaults are applied in exactly one place, the v1 defaulter
//     (v1.SetDefaults_DRAAllocatorArgs), before conversion to these types.
//     Nothing in this package fills in missing values.
//   - A zero FilterTimeout means "no limit"; it is a valid, explicit setting,
//     not a marker for "unset".
//   - The kind is registered under the internal version
//     (runtime.APIVersionInternal) of group kubescheduler.config.k8s.io in
//     schemes built by the caller (see AddToScheme); no global scheme is
//     modified.
//   - DeepCopy methods are generated (zz_generated.deepcopy.go, by
//     hack/update-codegen.sh; make verify fails when they are stale).
//
// +k8s:deepcopy-gen=package
package config
