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

package release

import (
	"fmt"
	"regexp"
	"strings"
)

// Platform is a GOOS/GOARCH pair.
type Platform struct {
	OS, Arch string
}

// ParsePlatforms reads a list of os/arch pairs separated by commas or
// spaces, e.g. "linux/amd64,darwin/arm64".
func ParsePlatforms(list string) ([]Platform, error) {
	var out []Platform
	seen := map[Platform]bool{}
	for _, s := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		os, arch, ok := strings.Cut(s, "/")
		if !ok || os == "" || arch == "" || strings.Contains(arch, "/") {
			return nil, fmt.Errorf("platform %q: want os/arch, e.g. linux/amd64", s)
		}
		p := Platform{OS: os, Arch: arch}
		if seen[p] {
			return nil, fmt.Errorf("platform %q listed twice", s)
		}
		seen[p] = true
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no platform in %q", list)
	}
	return out, nil
}

// String returns "os/arch".
func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Executable returns the file name of program's binary on p: program, with
// .exe on Windows.
func (p Platform) Executable(program string) string {
	if p.OS == "windows" {
		return program + ".exe"
	}
	return program
}

// ArchiveExt returns the archive format users of p expect: ".zip" on
// Windows, ".tar.gz" elsewhere.
func (p Platform) ArchiveExt() string {
	if p.OS == "windows" {
		return ".zip"
	}
	return ".tar.gz"
}

// stem returns what every artifact name of program's binary for p starts
// with: "<program>_<version>_<os>_<arch>".
func stem(program, version string, p Platform) string {
	return fmt.Sprintf("%s_%s_%s_%s", program, version, p.OS, p.Arch)
}

// ArchiveName returns the file name of program's archive for p, e.g.
// "kubectl-dra_v0.1.0_linux_amd64.tar.gz".
func ArchiveName(program, version string, p Platform) string {
	return stem(program, version, p) + p.ArchiveExt()
}

// BinaryName returns the file name of program's bare binary for p, e.g.
// "dra-scheduler_v0.1.0_linux_amd64" (".exe" appended on Windows).
func BinaryName(program, version string, p Platform) string {
	return p.Executable(stem(program, version, p))
}

// SBOMExt ends the name of a CycloneDX SBOM in JSON.
const SBOMExt = ".cdx.json"

// SBOMName returns the file name of the SBOM of program's binary for p in
// a release directory, e.g. "dra-scheduler_v0.1.0_linux_amd64.cdx.json":
// the bare binary's or the archive's name without its extension, and
// SBOMExt.
func SBOMName(program, version string, p Platform) string {
	return stem(program, version, p) + SBOMExt
}

// SBOMEntryName returns the name of program's SBOM inside its archive,
// e.g. "kubectl-dra.cdx.json".
func SBOMEntryName(program string) string { return program + SBOMExt }

// LicensesArchiveName returns the file name of the archive holding the
// license texts of program's bare binary for p, e.g.
// "dra-scheduler_v0.1.0_linux_amd64.licenses.tar.gz": LICENSE, NOTICE and
// ThirdPartyLicensesDir.
func LicensesArchiveName(program, version string, p Platform) string {
	return stem(program, version, p) + licensesArchiveExt
}

// licensesArchiveExt ends the name of a bare binary's licenses archive.
const licensesArchiveExt = ".licenses.tar.gz"

// bareBinaryStem returns the stem of a bare binary's name (BinaryName).
func bareBinaryStem(name string) string { return strings.TrimSuffix(name, ".exe") }

// releaseVersion is what krew accepts as spec.version (a "v", then
// semantic versioning) and what the release's tag must be.
var releaseVersion = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// CheckVersion refuses a version that cannot name a release: it must be
// "v" and a semantic version, e.g. v0.1.0 or v0.1.0-rc.0, as krew requires
// and as the release's git tag and download URL use it.
func CheckVersion(version string) error {
	if !releaseVersion.MatchString(version) {
		return fmt.Errorf("version %q: want v<major>.<minor>.<patch>[-<pre-release>], e.g. v0.1.0 or v0.1.0-rc.0", version)
	}
	return nil
}

// DownloadURL returns where the release's artifact name is downloaded from
// once the release is published on GitHub.
func DownloadURL(repository, version, name string) string {
	return fmt.Sprintf("https://github.com/%s/releases/download/%s/%s", repository, version, name)
}
