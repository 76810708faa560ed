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
// release: the archives of the kubectl plugin, SHA256SUMS and the krew
// plugin manifest (hack/release is its command line, hack/make/release.mk
// drives it; docs/release.md says how to cut and publish a release).
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
//     file the archive holds (the binary, and LICENSE when the repository
//     has one), so krew copies exactly what was packed.
//   - Verify checks a finished release directory from the outside, as a
//     user downloading it would: SHA256SUMS matches every file and lists
//     every artifact, and every platform of the manifest points at an
//     archive of this directory under the release's download URL, with its
//     checksum, holding the binary and files the manifest names. Krew's own
//     validator (sigs.k8s.io/krew/cmd/validate-krew-manifest) is run by the
//     tests and by make verify-release; it is not a dependency of this
//     module.
package release
