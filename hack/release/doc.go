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
//	release archive  -dir DIST -version V -platform OS/ARCH BINARY [FILE...]
//	release binary   -dir DIST -version V -platform OS/ARCH BINARY
//	release krew     -dir DIST -version V -platforms LIST
//	release checksums -dir DIST
//	release verify   -dir DIST -version V -platforms LIST [-binaries LIST -binary-platforms LIST]
//
// archive packs BINARY (kubectl-dra or kubectl-dra.exe) and FILEs (e.g.
// LICENSE) under their base names into DIST/<program>_<V>_<os>_<arch>.tar.gz
// (.zip on Windows); binary copies a bare binary to
// DIST/<program>_<V>_<os>_<arch>; krew writes DIST/dra.yaml for the
// kubectl-dra archives of LIST; checksums writes DIST/SHA256SUMS over
// every file of DIST; verify checks them all (release.Verify). Archive
// entries are dated SOURCE_DATE_EPOCH (seconds; -mtime overrides), so that
// the same binaries give the same archives.
//
// Design: the Makefile builds (it owns the Go flags) and this command
// packages; names, formats and checks live in pkg/release, so the command
// only parses flags and reports. Exit code 2 is a bad command line, 1 a
// failure.
package main
