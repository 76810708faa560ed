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

// Package release writes and checks the artifacts of a dra-scheduler
// release: the archives of the kubectl plugin, every binary's SBOM and
// third-party license texts, SHA256SUMS and the krew plugin manifest
// (hack/release is its command line, hack/make/release.mk drives it;
// docs/release.md says how to cut and publish a release).
//
// Design:
//
//   - Names are computed, never parsed: ArchiveName and BinaryName give
//     every artifact's file name from the program, the version and the
//     Platform, so the Makefile, the manifest and Verify agree by
//     construction.
//   - Archives are reproducible: entries in the order given, a fixed
//     modification time, owner root, mode 0755 for executables and 0644
//     otherwise; tar.gz on Linux and macOS, zip on Windows (what krew
//     installs on each).
//   - The krew manifest is derived from the archives themselves: each
//     platform's sha256 is the archive's, and its files list names every
//     top-level file and directory the archive holds (the binary,
//     LICENSE, NOTICE, the SBOM, third_party_licenses/), so krew copies
//     exactly what was packed.
//   - Every binary ships with a CycloneDX SBOM of the modules it links,
//     generated from the binary's own build information by cyclonedx-gomod
//     (CycloneDXGomod, run with go run, not a dependency of this module),
//     and with the license texts of those modules (CollectLicenseTexts).
//     The license policy (licenses.go) is in one place: the licenses a
//     shipped binary may link (ClassifyLicense) and the detections a
//     person corrected (ConcludeLicenses); CheckLicenses refuses a module
//     whose license is copyleft, unknown or missing, naming it.
//   - Verify checks a finished release directory from the outside, as a
//     user downloading it would: SHA256SUMS matches every file and lists
//     every artifact, and every platform of the manifest points at an
//     archive of this directory under the release's download URL, with its
//     checksum, holding the binary and files the manifest names, and every
//     binary's SBOM describes it, passes the policy and has its license
//     texts shipped beside it. Krew's own
//     validator (sigs.k8s.io/krew/cmd/validate-krew-manifest) is run by the
//     tests and by make verify-release; it is not a dependency of this
//     module.
package release
