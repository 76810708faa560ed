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

// Command release packages a dra-scheduler release from binaries the
// Makefile built (hack/make/release.mk runs it; see docs/release.md). Each
// subcommand does one job; every file name comes from pkg/release:
//
//	release check-version VERSION
//	release sbom     -version V -out SBOM BINARY
//	release licenses -sbom SBOM -out DIR/third_party_licenses
//	release archive  -dir DIST -version V -platform OS/ARCH -sbom SBOM -licenses DIR BINARY [FILE...]
//	release binary   -dir DIST -version V -platform OS/ARCH -sbom SBOM -licenses DIR BINARY [FILE...]
//	release krew     -dir DIST -version V -platforms LIST
//	release checksums -dir DIST
//	release verify   -dir DIST -version V -platforms LIST [-binaries LIST -binary-platforms LIST]
//
// sbom writes BINARY's CycloneDX SBOM with cyclonedx-gomod
// (release.CycloneDXGomod, through go run) and the license policy's
// corrections (release.ConcludeLicenses); licenses checks an SBOM against
// the policy (release.CheckLicenses: it fails naming every refused
// module) and copies its modules' license texts from the module cache
// into DIR/third_party_licenses. archive packs BINARY (kubectl-dra or
// kubectl-dra.exe), FILEs (LICENSE, NOTICE) under their base names, the
// SBOM as <program>.cdx.json and the license texts' directory into
// DIST/<program>_<V>_<os>_<arch>.tar.gz (.zip on Windows), and copies the
// SBOM to DIST/<program>_<V>_<os>_<arch>.cdx.json; binary copies a bare
// binary to DIST/<program>_<V>_<os>_<arch>, its SBOM beside it, and packs
// FILEs and the license texts into
// DIST/<program>_<V>_<os>_<arch>.licenses.tar.gz; krew writes DIST/dra.yaml
// for the kubectl-dra archives of LIST; checksums writes DIST/SHA256SUMS
// over every file of DIST; verify checks them all (release.Verify) and
// prints each SBOM's license tally. Archive entries are dated
// SOURCE_DATE_EPOCH (seconds; -mtime overrides), so that the same
// binaries give the same archives. -go names the go command (sbom and
// licenses run it).
//
// Design: the Makefile builds (it owns the Go flags) and this command
// packages; names, formats, the license policy and the checks live in
// pkg/release, so the command only parses flags and reports. Exit code 2
// is a bad command line, 1 a failure.
package main
